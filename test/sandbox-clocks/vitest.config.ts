import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Two test files sharing one `agent-tts-sandbox` process, run at once, each on a test clock of its own
 * (README "Sandbox", "Test clocks"). Run by test/sandbox-clocks-parallel.test.ts, or on its own:
 * `npm run build && npx vitest run -c test/sandbox-clocks/vitest.config.ts`.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/sandbox-clocks/*.flow.ts'],
    globalSetup: ['test/sandbox-clocks/global-setup.ts'],
    // The two files wait for each other's steps: they only pass when they run at the same time.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});
