import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The fault suite (`test/fault-*.test.ts`): real processes against backends of the tests' own that
 * are frozen, killed or cut off (a redis-server stopped with SIGSTOP, an object store down or hung),
 * each asserting that every answer comes within its deadline, nothing is lost or charged twice, and
 * the service comes back by itself. Slow by nature (outages of a minute), so apart from `npm test`:
 * `npm run test:faults`; CI runs it as its own step.
 */
export default defineConfig({
  test: {
    ...base.test,
    include: ['test/fault-*.test.ts'],
    exclude: [],
    testTimeout: 300_000,
  },
});
