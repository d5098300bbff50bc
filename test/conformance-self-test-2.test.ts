import { faultSelfTest } from './helpers/fault-self-test.js';

// One part of the fault self-test (test/helpers/fault-self-test.ts); the parts run side by side.
faultSelfTest(2, 3);
