import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiYamlPath } from '../conformance/package-files.js';
import { runConformanceCli, type CliRun } from '../conformance/testing/run-cli.js';
import { prismCliPath } from '../mock/prism-cli.js';
import { removeDir } from './helpers/server.js';
import { freePort } from '@agent-tts/bench/harness/server-process.js';
import { listen, type ListeningServer } from './helpers/in-process.js';

/**
 * A second opinion on the reference server's answers: Prism's own validator, as a proxy with
 * --errors, turns any request or response that breaks the document into an error answer. The suite
 * runs its rules that send only requests the document allows (Prism would answer the others itself)
 * through it; every answer must come back from the server untouched.
 *
 * Prism's CORS handling is off (--cors=false): it would otherwise add its own grant to every answer.
 * Audio is fetched from audio_url, which is absolute and points at the server itself, so it does not
 * pass through Prism — which would re-encode the MP3 bytes as UTF-8 text and corrupt them.
 */
const RULES = [
  'submit.inline-completed',
  'submit.defaults',
  'submit.options-used',
  'submit.processing-202',
  'submit.poll-until-completed',
  'job.*',
  'rate-limit.*',
  'idempotency.same-key-same-job',
  'idempotency.different-key-new-job',
  'idempotency.per-account',
  'idempotency.retry-after-transport-failure',
  'usage.*',
  'billing.*',
  'not-found.*',
  'auth.revoked-key',
  'auth.inactive-subscription',
  'auth.no-api-access',
  'auth.unknown-key',
  'legacy.*',
];

describe('conformance through `prism proxy --errors`: the reference server breaks no part of the document', () => {
  let server: ListeningServer;
  let prism: ChildProcess;
  let run: CliRun;
  let prismOutput = '';

  beforeAll(async () => {
    server = await listen();
    const port = await freePort();
    prism = spawn(process.execPath, [prismCliPath(), 'proxy', openApiYamlPath(), server.baseUrl, '--errors', '--cors=false', '--port', String(port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    prism.stdout!.on('data', (d) => (prismOutput += d));
    prism.stderr!.on('data', (d) => (prismOutput += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`prism proxy did not start:\n${prismOutput}`)), 60_000);
      prism.stdout!.on('data', () => {
        if (!prismOutput.includes('Prism is listening')) return;
        clearTimeout(timer);
        resolve();
      });
      prism.once('exit', (code) => reject(new Error(`prism proxy exited with ${code}:\n${prismOutput}`)));
    });
    run = await runConformanceCli([
      '--fixtures',
      server.fixturesPath,
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--only',
      RULES.join(','),
      '--skip',
      '*.failed-*',
      '--quiet',
    ]);
  }, 300_000);

  afterAll(async () => {
    if (prism && prism.exitCode === null) {
      const exited = new Promise((resolve) => prism.once('exit', resolve));
      prism.kill('SIGTERM');
      await exited;
    }
    await server?.close();
    if (server) await removeDir(server.dataDir);
    if (run) await removeDir(run.outputDir);
  });

  it('Prism reports no violation: no answer is Prism’s own error or carries sl-violations', () => {
    const flagged = run.results.exchanges.filter(
      (e: { response?: { headers: Record<string, string> } }) =>
        e.response && ('sl-violations' in e.response.headers || /problem\+json/.test(e.response.headers['content-type'] ?? '')),
    );
    expect(
      flagged.map(
        (e: { seq: number; request: { method: string; url: string }; response: { status: number; body: string } }) =>
          `#${e.seq} ${e.request.method} ${e.request.url} → ${e.response.status} ${e.response.body.slice(0, 300)}`,
      ),
    ).toEqual([]);
  });

  it('every selected rule passes through the proxy', () => {
    const notPassed = run.results.rules.filter((r: { outcome: string }) => r.outcome !== 'pass' && r.outcome !== 'disabled');
    expect(notPassed.map((r: { id: string; outcome: string; message: string }) => `${r.outcome} ${r.id}: ${r.message}`)).toEqual([]);
    expect(run.results.counts.pass).toBeGreaterThanOrEqual(25);
  });
});
