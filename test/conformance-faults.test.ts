import { afterEach, describe, expect, it } from 'vitest';
import { type Fault, FaultyProxy } from '../conformance/testing/faulty-proxy.js';
import { runConformanceCli } from '../conformance/testing/run-cli.js';
import { removeDir, startServer, type RunningServer } from './helpers/server.js';

/**
 * The suite catches faults: a proxy in front of the reference server breaks one behaviour, and the
 * rules about it must fail while unrelated rules in the same run still pass. Each run is a focused
 * subset (--only), on a fresh server, so rate-limit state never leaks from one run into the next.
 */
interface FaultCase {
  fault: Fault;
  mustFail: string[];
  mustPass: string[];
}

const CASES: FaultCase[] = [
  {
    fault: 'drop-retry-after',
    mustFail: ['rate-limit.post', 'rate-limit.get'],
    mustPass: ['rate-limit.separate-buckets', 'auth.missing-header', 'not-found.unknown-id', 'submit.invalid-request'],
  },
  {
    fault: 'rate-limit-as-400',
    mustFail: ['rate-limit.post', 'rate-limit.get', 'errors.body-shape'],
    mustPass: ['auth.missing-header', 'not-found.unknown-id', 'submit.text-too-long'],
  },
  {
    fault: 'leak-other-account-job',
    mustFail: ['not-found.unknown-id', 'not-found.other-account'],
    mustPass: ['submit.inline-completed', 'job.get-completed', 'auth.revoked-key', 'legacy.file-expired'],
  },
  {
    fault: 'omit-api-version',
    mustFail: ['versioning.api-version-everywhere', 'errors.body-shape', 'openapi.submit-tts', 'openapi.get-tts-job'],
    mustPass: ['auth.missing-header', 'not-found.unknown-id', 'legacy.file-expired', 'submit.inline-completed', 'job.completed-fields', 'meta.request-id', 'meta.request-id-fresh'],
  },
  {
    fault: 'double-charge-replay',
    mustFail: ['idempotency.same-key-same-job'],
    mustPass: ['submit.inline-completed', 'job.billing-consistent', 'idempotency.per-account', 'not-found.unknown-id'],
  },
];

describe('conformance: faults injected by a proxy fail the rules about them, and only those', () => {
  let server: RunningServer | undefined;
  let proxy: FaultyProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    await server?.stop();
    if (server) await removeDir(server.dataDir);
    server = undefined;
    proxy = undefined;
  });

  async function runThrough(fault: Fault, rules: string[]) {
    server = await startServer();
    proxy = new FaultyProxy(server.baseUrl, fault);
    const url = await proxy.listen();
    const run = await runConformanceCli(['--fixtures', server.fixturesPath, '--base-url', url, '--only', rules.join(','), '--quiet']);
    await removeDir(run.outputDir);
    return run;
  }

  it.each(CASES)('$fault', async ({ fault, mustFail, mustPass }) => {
    const run = await runThrough(fault, [...mustFail, ...mustPass]);
    const report = run.results?.rules
      .filter((r: { outcome: string }) => r.outcome !== 'disabled')
      .map((r: { id: string; outcome: string; message?: string }) => `${r.outcome} ${r.id}: ${r.message ?? ''}`)
      .join('\n');
    expect(proxy!.injected, 'the fault never fired').toBeGreaterThan(0);
    for (const id of mustFail) expect(run.outcomes[id], `${id} should fail\n${report}`).toBe('fail');
    for (const id of mustPass) expect(run.outcomes[id], `${id} should pass\n${report}`).toBe('pass');
    expect(run.code).toBe(1);
  }, 150_000);

  it('passes all of those rules through the proxy when it injects nothing (the control)', async () => {
    const rules = [...new Set(CASES.flatMap((c) => [...c.mustFail, ...c.mustPass]))];
    const run = await runThrough('none', rules);
    const failed = Object.entries(run.outcomes).filter(([, o]) => o !== 'pass' && o !== 'disabled');
    expect(failed, run.stdout).toEqual([]);
    expect(Object.values(run.outcomes).filter((o) => o === 'pass')).toHaveLength(rules.length);
    expect(run.code).toBe(0);
  }, 150_000);
});
