import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/**
 * Test clocks keep parallel test files independent on one sandbox process: test/sandbox-clocks/ is a
 * vitest project of two files run at once against one `agent-tts-sandbox` (from dist/), each on its
 * own test clock; one moves its clock a month ahead while the other's time, rate-limit window and
 * usage stay put. The two wait for each other's steps, so they pass only when they run concurrently.
 */
describe('test clocks: two vitest files at once on one sandbox process', () => {
  it('both files pass', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '-c', 'test/sandbox-clocks/vitest.config.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      timeout: 120_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).toMatch(/✓ test\/sandbox-clocks\/ahead\.flow\.ts/);
    expect(output).toMatch(/✓ test\/sandbox-clocks\/steady\.flow\.ts/);
    expect(output).toMatch(/Test Files\s+2 passed \(2\)/);
  }, 150_000);
});
