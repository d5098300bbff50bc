import { generatedPassesOverSeeds } from './helpers/generated-bench.js';

// The odd ones of the 20 seeds the generated group must pass with no fault (test/conformance-generated-self-test.test.ts); the halves run side by side.
generatedPassesOverSeeds(Array.from({ length: 10 }, (_, i) => 2 * i + 1));
