import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/**
 * The @agent-tts packages import one another by name; in this workspace those names resolve to the
 * TypeScript sources (the `agent-tts-source` export condition), so a test runs the code beside it, not
 * the last build.
 */
const conditions = ['agent-tts-source', ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['src/**/*.test.ts', 'conformance/**/*.test.ts', 'mock/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    // The fault suite runs on its own (vitest.faults.config.ts, `npm run test:faults`).
    exclude: ['**/node_modules/**', 'test/fault-*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: end-to-end files start servers and synthesis pools of their own.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
