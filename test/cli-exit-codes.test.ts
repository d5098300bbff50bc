import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../src/contract/errors.js';
import { freePort } from '@agent-tts/bench/harness/server-process.js';
import { listen, type ListeningServer } from './helpers/in-process.js';
import { runCli } from './helpers/cli.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** Each error is printed with its code, the §7 suggested action and the request id. */
function expectReported(stderr: string, code: keyof typeof ERROR_TABLE): void {
  expect(stderr).toContain(`Error ${code} (HTTP ${ERROR_TABLE[code].status})`);
  expect(stderr).toContain(`Suggested action: ${ERROR_TABLE[code].action}`);
  expect(stderr).toMatch(new RegExp(`Request id: ${UUID.source}`));
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('agent-tts exit codes against the reference server', () => {
  let server: ListeningServer;
  let dir: string;
  const env = (key: string | undefined, extra: Record<string, string> = {}) => ({
    AGENT_TTS_BASE_URL: server.baseUrl,
    ...(key ? { AGENT_TTS_API_KEY: key } : {}),
    XDG_CONFIG_HOME: join(dir, 'config'),
    ...extra,
  });
  beforeAll(async () => {
    server = await listen({}, { synth: 'instant' });
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-exit-'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('INVALID_KEY (revoked key) exits 3', async () => {
    const result = await runCli(['speak', 'Hello', '--no-download'], env(server.fixtures.keys.revoked));
    expect(result.code).toBe(3);
    expectReported(result.stderr, 'INVALID_KEY');
  });

  it('INACTIVE_SUBSCRIPTION and NO_API_ACCESS exit 3', async () => {
    const inactive = await runCli(['speak', 'Hello', '--no-download'], env(server.fixtures.keys.inactive_subscription));
    expect(inactive.code).toBe(3);
    expectReported(inactive.stderr, 'INACTIVE_SUBSCRIPTION');
    const noAccess = await runCli(['speak', 'Hello', '--no-download'], env(server.fixtures.keys.no_api_access));
    expect(noAccess.code).toBe(3);
    expectReported(noAccess.stderr, 'NO_API_ACCESS');
  });

  it('no key at all exits 3 with where to set one', async () => {
    const result = await runCli(['speak', 'Hello'], env(undefined));
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('No API key configured');
    expect(result.stderr).toContain('AGENT_TTS_API_KEY');
  });

  it('NOT_FOUND exits 7, as text and as JSON', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const result = await runCli(['status', id], env(server.fixtures.keys.active[0]));
    expect(result.code).toBe(7);
    expectReported(result.stderr, 'NOT_FOUND');
    const json = await runCli(['status', id, '--json'], env(server.fixtures.keys.active[0]));
    expect(json.code).toBe(7);
    const parsed = JSON.parse(json.stdout) as { ok: boolean; exit_code: number; error: Record<string, unknown> };
    expect(parsed).toMatchObject({
      ok: false,
      exit_code: 7,
      error: { code: 'NOT_FOUND', status: 404, suggested_action: ERROR_TABLE.NOT_FOUND.action },
    });
    expect(parsed.error.request_id).toMatch(UUID);
  });

  it('a job id that is not a UUID is a usage error (2), checked before any request', async () => {
    const result = await runCli(['status', 'not-a-job'], env(server.fixtures.keys.active[0]));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a job id');
  });

  it('INVALID_REQUEST (speed out of range, judged by the service) exits 6', async () => {
    const result = await runCli(['speak', 'Hello', '--speed', '3'], env(server.fixtures.keys.active[1]));
    expect(result.code).toBe(6);
    expectReported(result.stderr, 'INVALID_REQUEST');
  });

  it('TEXT_TOO_LONG exits 6', async () => {
    const result = await runCli(['speak', '--no-download'], env(server.fixtures.keys.active[2]), 'a'.repeat(500_001));
    expect(result.code).toBe(6);
    expectReported(result.stderr, 'TEXT_TOO_LONG');
  });

  it('USAGE_LIMIT_EXCEEDED exits 5 and shows the usage details', async () => {
    const result = await runCli(['speak', 'Hello', '--no-download'], env(server.fixtures.keys.usage_exhausted));
    expect(result.code).toBe(5);
    expectReported(result.stderr, 'USAGE_LIMIT_EXCEEDED');
    expect(result.stderr).toMatch(/Usage: [\d.]+ of [\d.]+ minutes \(\w+ plan\)/);
    expect(result.stderr).toMatch(/Upgrade: https?:\/\//);
  });

  it('RATE_LIMITED exits 4 with the Retry-After, when told not to wait', async () => {
    const key = server.fixtures.keys.active[3];
    expect((await runCli(['speak', 'First request of the minute.', '--no-download'], env(key))).code).toBe(0);
    const result = await runCli(['speak', 'Second request of the minute.', '--no-download', '--max-attempts', '1'], env(key));
    expect(result.code).toBe(4);
    expectReported(result.stderr, 'RATE_LIMITED');
    expect(result.stderr).toMatch(/Retry after: \d+ s/);
    // The hint to retry the same request names the key it was sent with.
    expect(result.stderr).toMatch(new RegExp(`--idempotency-key ${UUID.source} \\(the same key`));
  });

  it('an unreachable service exits 9', async () => {
    const port = await freePort();
    const result = await runCli(
      ['speak', 'Hello', '--max-attempts', '1'],
      env(server.fixtures.keys.active[4], { AGENT_TTS_BASE_URL: `http://127.0.0.1:${port}` }),
    );
    expect(result.code).toBe(9);
    expect(result.stderr).toContain('Error NETWORK_ERROR');
    expect(result.stderr).toContain('Request id: none');
  });

  it('a base URL that does not serve this API (404 on submit) exits 8 and names the setting, not the job id', async () => {
    const key = server.fixtures.keys.active[6];
    // The voice catalog's port answers 404 NOT_FOUND to POST /v1/agent-tts.
    const flag = await runCli(['speak', 'hi', '--base-url', server.voicesUrl], env(key));
    expect(flag.code).toBe(8);
    expect(flag.stderr).toContain(
      `Error INVALID_RESPONSE (HTTP 404): ${server.voicesUrl} does not serve the agent-tts API (404 on POST /v1/agent-tts); check --base-url`,
    );
    expect(flag.stderr).not.toContain('job id');
    expect(flag.stderr).toMatch(new RegExp(`Request id: ${UUID.source}`));
    const fromEnv = await runCli(['speak', 'hi', '--json'], env(key, { AGENT_TTS_BASE_URL: `${server.voicesUrl}/` }));
    expect(fromEnv.code).toBe(8);
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({
      exit_code: 8,
      error: { code: 'INVALID_RESPONSE', status: 404, message: expect.stringMatching(/; check AGENT_TTS_BASE_URL$/) },
    });
  });

  it('a voices URL that is not the catalog (404) exits 8 and names --voices-url', async () => {
    const result = await runCli(['voices', '--voices-url', server.baseUrl], env(undefined));
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(
      `Error INVALID_RESPONSE (HTTP 404): ${server.baseUrl} does not serve the agent-tts voice catalog (404 on GET /api/v1/voices); check --voices-url`,
    );
    expect(result.stderr).not.toContain('job id');
  });

  it('usage errors exit 2: unknown flag, bad number, bad URL', async () => {
    const key = server.fixtures.keys.active[5];
    for (const args of [
      ['speak', 'x', '--frob'],
      ['speak', 'x', '--speed', 'fast'],
      ['voices', '--gender', 'robot'],
      ['speak', 'x', '--base-url', 'ftp://x'],
    ]) {
      const result = await runCli(args, env(key));
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('Suggested action');
    }
  });

  it('--help lists the exit codes', async () => {
    const result = await runCli(['--help'], {});
    expect(result.code).toBe(0);
    for (const line of ['3    authentication', '7    NOT_FOUND', '9    network']) expect(result.stdout).toContain(line);
  });
});
