import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import type { ClientClock } from '../clock.js';
import { EXIT } from './exit-codes.js';
import { run } from './run.js';

/** The command's 429 advice against a sandbox at the API's limits (one POST a minute a key): real HTTP, the waits on its clock. */
let sandbox: RunningSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox();
  await sandbox.clock.freeze();
  dir = await mkdtemp(join(tmpdir(), 'agent-tts-cli-429-'));
});
afterAll(async () => {
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs `agent-tts <args>` in this process (stderr not a terminal), with the sandbox as its service. */
async function cli(args: string[], key: string, clock?: ClientClock) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = '';
  stdout.resume();
  stderr.on('data', (d) => (err += d));
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  stdin.end();
  const env = { AGENT_TTS_BASE_URL: sandbox.baseUrl, AGENT_TTS_API_KEY: key, XDG_CONFIG_HOME: join(dir, 'config') };
  const code = await run(args, { stdin, stdout, stderr, env, signal: new AbortController().signal, clock });
  return { code, err };
}

describe('agent-tts rate-limit advice', () => {
  it('talking to a sandbox, names the sandbox’s own ways round the limit, not the sandbox', async () => {
    const key = sandbox.keys.active_pro;
    expect((await cli(['speak', 'First.', '--no-download'], key, sandbox.clock.client)).code).toBe(EXIT.OK);
    const second = await cli(['speak', 'Second.', '--no-download'], key, sandbox.clock.client);
    expect(second.code, second.err).toBe(EXIT.OK);
    const lines = second.err.trim().split('\n');
    expect(lines[0]).toMatch(/^rate limited: 1 POST per minute for this key; retrying in \d+ s \(Retry-After\)…$/);
    expect(lines[1]).toBe(
      '  This is the sandbox: add --sandbox-clock to move its clock instead of waiting (a key is refilled at once), or use another of the test keys it printed at start (limits are per key).',
    );
    expect(second.err).not.toContain('agent-tts-sandbox');
  });

  it('with --sandbox-clock, says it advances the clock, not that it is retrying in 60 s, and gives no advice', async () => {
    const key = sandbox.keys.active_ultimate;
    expect((await cli(['speak', 'First.', '--no-download', '--sandbox-clock'], key)).code).toBe(EXIT.OK);
    const before = sandbox.clock.now().getTime();
    const second = await cli(['speak', 'Second.', '--no-download', '--sandbox-clock'], key);
    expect(second.code, second.err).toBe(EXIT.OK);
    const lines = second.err.trim().split('\n');
    expect(lines[0]).toMatch(/^rate limited: 1 POST per minute for this key; advancing the sandbox clock (\d+) s \(Retry-After\) and retrying$/);
    // Then the job's summary (--no-download), and no advice how to avoid a wait that cost nothing.
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^0\.\d+ s, voice /)]);
    const seconds = Number(/clock (\d+) s/.exec(second.err)![1]);
    expect(sandbox.clock.now().getTime() - before).toBeGreaterThanOrEqual((seconds - 1) * 1000);
    expect(second.err).not.toContain('retrying in');
  });
});
