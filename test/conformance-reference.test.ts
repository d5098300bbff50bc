import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretsOf } from '../conformance/redaction.js';
import { type CliRun, runConformanceCli } from '../conformance/testing/run-cli.js';
import { removeDir, startServer, type RunningServer } from './helpers/server.js';

/**
 * The whole catalog against the reference server as deployed by default: the eSpeak engine, the
 * fixtures of `agent-tts-admin seed` (which carry a failed job, an expired audio URL and the
 * acceptance keys), no failing voice and no fault switch, run with --strict as a certification run:
 * every rule must pass, none may be skipped. `vitest.redis.config.ts` runs the same in the distributed mode.
 */
/**
 * A deployment under certification is running, not starting: one job on an account of its own (not
 * one of the fixtures') loads the speech engine first, so the inline-wait rule does not measure a
 * cold start on a busy machine.
 */
async function warmUp(server: RunningServer): Promise<void> {
  const account = JSON.parse((await server.admin(['account', 'create', '--name', 'warm-up', '--plan', 'ultimate', '--json'])).stdout);
  const { key } = JSON.parse((await server.admin(['key', 'create', '--account', account.id, '--json'])).stdout);
  const post = await fetch(`${server.baseUrl}/v1/agent-tts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'Warming up.' }),
  });
  expect([200, 202]).toContain(post.status);
  const body = await post.json();
  for (let i = 0; body.status === 'processing' && i < 60; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const got = await (await fetch(`${server.baseUrl}/v1/agent-tts?id=${body.job_id}`, { headers: { authorization: `Bearer ${key}` } })).json();
    if (got.status !== 'processing') break;
  }
}

describe('conformance: the reference server passes every rule, with --strict at --level document (so at --level api too)', () => {
  let server: RunningServer;
  let run: CliRun;

  beforeAll(async () => {
    server = await startServer();
    await warmUp(server);
    // Every rule passing, the document's own binding, is a pass at both levels: --level api only makes them advisory.
    run = await runConformanceCli(['--fixtures', server.fixturesPath, '--strict', '--level', 'document']);
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
    if (run) await removeDir(run.outputDir);
  });

  it('passes every rule, skips none, and exits 0', () => {
    const notPassed = Object.entries(run.outcomes).filter(([, outcome]) => outcome !== 'pass');
    const messages = run.results?.rules
      .filter((r: { outcome: string }) => r.outcome !== 'pass')
      .map((r: { id: string; message: string }) => `${r.id}: ${r.message}`);
    expect(notPassed, messages?.join('\n') ?? run.stderr).toEqual([]);
    expect(run.results.counts).toMatchObject({ fail: 0, error: 0, skip: 0, disabled: 0 });
    expect(run.results.level).toBe('document');
    expect(run.results.rules.every((r: { binding: boolean }) => r.binding)).toBe(true);
    expect(run.results.rules.length).toBeGreaterThanOrEqual(66);
    expect(run.stdout).not.toContain('--strict:');
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  it('writes results.json, junit.xml and report.html, with every exchange behind the results', async () => {
    const files = (await readdir(run.outputDir)).sort();
    expect(files).toEqual(['junit.xml', 'report.html', 'results.json']);
    const junit = await readFile(join(run.outputDir, 'junit.xml'), 'utf8');
    expect(junit).toContain(`tests="${run.results.rules.length}" failures="0" errors="0"`);
    const seqs = new Set(run.results.exchanges.map((e: { seq: number }) => e.seq));
    for (const rule of run.results.rules) for (const seq of rule.exchanges) expect(seqs.has(seq)).toBe(true);
    const html = await readFile(join(run.outputDir, 'report.html'), 'utf8');
    expect(html).toContain('idempotency.same-key-same-job');
  });

  it('never writes a full API key, in any file or on the console: keys appear as tts_<public_id>', async () => {
    const secrets = secretsOf(server.fixtures);
    expect(secrets.length).toBeGreaterThanOrEqual(13);
    const outputs = [run.stdout, run.stderr];
    for (const file of await readdir(run.outputDir)) outputs.push(await readFile(join(run.outputDir, file), 'utf8'));
    for (const text of outputs) {
      for (const key of secrets) {
        const secret = key.slice(13);
        expect(text.includes(secret), `the secret of ${key.slice(0, 12)} leaked`).toBe(false);
        expect(text.includes(Buffer.from(key).toString('base64').slice(0, 40)), 'a key leaked base64-encoded').toBe(false);
      }
    }
    // The keys the suite used are still recognisable in the report, in their display form.
    const report = await readFile(join(run.outputDir, 'results.json'), 'utf8');
    expect(report).toContain(`Bearer ${server.fixtures.keys.active[0]!.slice(0, 12)}"`);
  });
});
