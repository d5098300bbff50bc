import { randomBytes } from 'node:crypto';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The reference server's end-to-end suite (`test/server-*.test.ts`, its HTTP behaviour in
 * `*.http.test.ts` under src/server, and the admin's commands) once more, in the distributed
 * mode: every server the suite starts is backed by Redis (TEST_REDIS_URL, database 11) under a key
 * prefix of this run, which is deleted afterwards. `npm run test:redis`; CI runs it after `npm test`.
 */
const runPrefix = `agent-tts-test:run-${randomBytes(4).toString('hex')}:`;
process.env.TEST_REDIS_RUN_PREFIX = runPrefix;

export default defineConfig({
  test: {
    ...base.test,
    include: ['test/server-*.test.ts', 'src/server/**/*.http.test.ts', 'src/server/entry/admin/*.test.ts', 'test/conformance-reference.test.ts'],
    env: { TEST_BACKEND: 'redis', TEST_REDIS_RUN_PREFIX: runPrefix },
    globalSetup: ['test/helpers/redis-run.ts'],
  },
});
