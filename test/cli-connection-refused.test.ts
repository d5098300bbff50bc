import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentTtsClient } from '../src/client/client.js';
import { AgentTtsError } from '../src/client/errors.js';
import { describeFailure } from '../src/client/cli/errors.js';
import { freePort } from '@agent-tts/bench/harness/server-process.js';
import { runCli } from './helpers/cli.js';

const KEY = `tts_00000000_${'0'.repeat(48)}`;

/**
 * A refused connection on this machine (nothing listens at the port) is reported at once, without
 * retries, naming the URL setting and where it came from (docs/clients.md#connection-refused).
 */
describe('a connection refused on loopback', () => {
  let dir: string;
  let url: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-refused-'));
    url = `http://127.0.0.1:${await freePort()}`;
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is one attempt of the typed client, not four, and its message says nothing listens there', async () => {
    const retries: number[] = [];
    const client = new AgentTtsClient({ baseUrl: url, apiKey: KEY, onRetry: (event) => retries.push(event.attempt) });
    const error = await client.submit({ text: 'Hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentTtsError);
    const failure = error as AgentTtsError;
    expect([failure.code, failure.attempts, retries]).toEqual(['NETWORK_ERROR', 1, []]);
    expect(failure.message).toMatch(new RegExp(`^Could not reach ${url}/v1/agent-tts: .*ECONNREFUSED.*: nothing is listening there \\(not retried\\)$`));
  });

  it('from AGENT_TTS_BASE_URL: the command names the variable, tries once and says so', async () => {
    const result = await runCli(['speak', 'Hello', '-o', join(dir, 'a.mp3')], {
      AGENT_TTS_API_KEY: KEY,
      AGENT_TTS_BASE_URL: url,
      XDG_CONFIG_HOME: join(dir, 'c1'),
    });
    expect(result.code).toBe(9);
    expect(result.stderr).not.toContain('retrying');
    expect(result.stderr).not.toContain('Attempts:');
    const lines = result.stderr.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Error NETWORK_ERROR: Could not reach ${url}/v1/agent-tts: .*ECONNREFUSED`));
    expect(lines[1]).toBe(
      `  Suggested action: Nothing is listening at ${url}: start the service there, or give --base-url (or AGENT_TTS_BASE_URL) the URL it listens on.`,
    );
    expect(lines[2]).toBe(`  The base URL ${url} is from AGENT_TTS_BASE_URL.`);
  });

  it('from --base-url, and from the config file: the command names that', async () => {
    const flag = await runCli(['status', '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', '--base-url', url], {
      AGENT_TTS_API_KEY: KEY,
      XDG_CONFIG_HOME: join(dir, 'c2'),
    });
    expect(flag.code).toBe(9);
    expect(flag.stderr).toContain(`  The base URL ${url} is from --base-url.\n`);
    const config = join(dir, 'c3', 'agent-tts');
    await mkdir(config, { recursive: true, mode: 0o700 });
    await writeFile(join(config, 'config.json'), JSON.stringify({ base_url: url }), { mode: 0o600 });
    const file = await runCli(['speak', 'Hello', '--json', '-o', join(dir, 'b.mp3')], { AGENT_TTS_API_KEY: KEY, XDG_CONFIG_HOME: join(dir, 'c3') });
    expect(file.code).toBe(9);
    const report = JSON.parse(file.stdout) as { error: { code: string; setting: string; suggested_action: string; attempts: number } };
    expect(report.error).toMatchObject({
      code: 'NETWORK_ERROR',
      attempts: 1,
      setting: `The base URL ${url} is from base_url in ${join(config, 'config.json')}.`,
    });
    expect(report.error.suggested_action).toMatch(/^Nothing is listening at /);
  });

  it('at the default base URL: the message says it is the default and how to set another', async () => {
    const error = await new AgentTtsClient({ baseUrl: url, apiKey: KEY }).submit({ text: 'Hi' }).catch((e: unknown) => e);
    const setting = { value: url, source: 'default' as const };
    const { lines } = describeFailure(error, {
      urls: [{ label: 'base URL', setting, flag: '--base-url', variable: 'AGENT_TTS_BASE_URL', field: 'base_url' }],
    });
    expect(lines[2]).toBe(`  The base URL ${url} is the default; set it with --base-url or AGENT_TTS_BASE_URL, or \`agent-tts config set base_url <url>\`.`);
  });
});
