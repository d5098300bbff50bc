import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type ListeningServer } from './helpers/in-process.js';
import { runCli } from './helpers/cli.js';

const secretOf = (key: string) => key.split('_')[2]!;
const displayOf = (key: string) => key.split('_').slice(0, 2).join('_');

/**
 * Spec §5.9: the tool shows keys only as tts_<public_id>. Every output of every command below, on
 * stdout, stderr and in --json, is searched for the secret part of the key.
 */
describe('key redaction in every output', () => {
  let server: ListeningServer;
  let echo: Server;
  let echoUrl: string;
  let dir: string;
  const outputs: Array<{ what: string; text: string; secret: string }> = [];

  const record = <R extends { stdout: string; stderr: string }>(what: string, result: R, key: string): R => {
    outputs.push({ what, text: result.stdout + result.stderr, secret: secretOf(key) });
    return result;
  };

  beforeAll(async () => {
    server = await listen({ RATE_POST_LIMIT: '100' }, { synth: 'instant' });
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-redact-'));
    // A hostile service that puts the caller's Authorization header into its error messages and details.
    echo = createServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          success: false,
          error: { code: 'INVALID_REQUEST', message: `Rejected header ${auth}`, details: { authorization: auth } },
          meta: { request_id: '11111111-2222-4333-8444-555555555555', api_version: '2026-04' },
        }),
      );
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await server?.close();
    echo?.closeAllConnections();
    await new Promise((resolve) => echo?.close(resolve));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('speak, status, voices and config never print the secret', async () => {
    const key = server.fixtures.keys.active[0]!;
    const env = { AGENT_TTS_BASE_URL: server.baseUrl, AGENT_TTS_VOICES_URL: server.voicesUrl, AGENT_TTS_API_KEY: key, XDG_CONFIG_HOME: join(dir, 'c1') };
    const speak = record('speak', await runCli(['speak', 'Redaction check.', '-o', join(dir, 'a.mp3')], env), key);
    expect(speak.stdout).toContain('Saved');
    const json = record('speak --json', await runCli(['speak', 'Redaction check.', '--json', '-o', join(dir, 'b.mp3')], env), key);
    const jobId = (JSON.parse(json.stdout) as { job: { job_id: string } }).job.job_id;
    record('status', await runCli(['status', jobId], env), key);
    record('status --json', await runCli(['status', jobId, '--json'], env), key);
    record('status not found', await runCli(['status', '00000000-0000-4000-8000-000000000000'], env), key);
    record('voices', await runCli(['voices', '--curated'], env), key);
    record('config set-key', await runCli(['config', 'set-key'], env, key), key);
    const show = record('config show', await runCli(['config', 'show'], env), key);
    expect(show.stdout).toContain(displayOf(key));
    record('config show --json', await runCli(['config', 'show', '--json'], env), key);
  });

  it('the --api-key flag works, warns, and its value is never printed', async () => {
    const key = server.fixtures.keys.active[1]!;
    const env = { AGENT_TTS_BASE_URL: server.baseUrl, XDG_CONFIG_HOME: join(dir, 'c2') };
    const result = record('--api-key', await runCli(['speak', 'Flag key.', '--no-download', '--api-key', key], env), key);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('--api-key shows the key in shell history');
    record('--api-key --json', await runCli(['--json', 'speak', 'Flag key.', '--no-download', '--api-key', key], env), key);
    const shown = record('config show with flag', await runCli(['config', 'show', '--api-key', key], env), key);
    expect(shown.stdout).toMatch(new RegExp(`${displayOf(key)}\\s+\\(flag --api-key\\)`));
  });

  it('errors of a revoked key, text and JSON, never print it', async () => {
    const key = server.fixtures.keys.revoked!;
    const env = { AGENT_TTS_BASE_URL: server.baseUrl, AGENT_TTS_API_KEY: key, XDG_CONFIG_HOME: join(dir, 'c3') };
    expect(record('revoked', await runCli(['speak', 'x'], env), key).code).toBe(3);
    expect(record('revoked --json', await runCli(['speak', 'x', '--json'], env), key).code).toBe(3);
  });

  it('a service that echoes the Authorization header is redacted, in text and JSON', async () => {
    const key = server.fixtures.keys.active[2]!;
    const env = { AGENT_TTS_BASE_URL: echoUrl, AGENT_TTS_API_KEY: key, XDG_CONFIG_HOME: join(dir, 'c4') };
    const text = record('echo', await runCli(['speak', 'x'], env), key);
    expect(text.code).toBe(6);
    expect(text.stderr).toContain(`Rejected header Bearer ${displayOf(key)}`);
    const json = record('echo --json', await runCli(['speak', 'x', '--json'], env), key);
    expect((JSON.parse(json.stdout) as { error: { details: { authorization: string } } }).error.details.authorization).toBe(`Bearer ${displayOf(key)}`);
  });

  it('a malformed key (not matching the key pattern) is still hidden', async () => {
    const key = 'mykey_deadbeef_s3cr3tvalue-that-is-not-hex';
    const env = { AGENT_TTS_BASE_URL: echoUrl, XDG_CONFIG_HOME: join(dir, 'c5') };
    const result = await runCli(['speak', 'x', '--api-key', key], env);
    outputs.push({ what: 'malformed', text: result.stdout + result.stderr, secret: 's3cr3tvalue' });
    expect(result.stderr).toContain('[redacted key]');
  });

  it('none of the outputs above contains a secret', () => {
    expect(outputs.length).toBeGreaterThanOrEqual(16);
    for (const { what, text, secret } of outputs) {
      expect(text.length, what).toBeGreaterThan(0);
      expect(text.includes(secret), `${what} printed the secret`).toBe(false);
    }
  });
});
