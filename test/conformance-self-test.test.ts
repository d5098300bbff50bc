import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../conformance/fixtures-file.js';
import { OpenApiDocument } from '../conformance/openapi-document.js';
import type { RunResult } from '../conformance/results.js';
import { runSuite } from '../conformance/runner.js';
import { readSettings } from '../conformance/settings.js';
import type { FaultSpec } from '../conformance/testing/faults/common.js';
import { FAULTS, type Fault, FaultyProxy } from '../conformance/testing/faulty-proxy.js';
import { removeDir } from './helpers/server.js';
import { listen, type ListeningServer } from './helpers/in-process.js';

/**
 * The suite tests itself: every fault of the faulty proxy, in front of the reference server, must
 * make at least one of the rules it names fail (caught), and the same rules must all pass through
 * the proxy when it injects nothing (the control), so a catch is the fault's doing. The catch rate is
 * printed (and written to $TTS_SELF_TEST_REPORT when set); every fault must be caught.
 *
 * To fit CI's budget the reference runs with an 8-second rate-limit window (RATE_WINDOW_SECONDS=8,
 * 8 GETs per window) and the suite is told so; each fault runs only its own rules (--only) on fixtures
 * seeded for it, so no rate-limit state leaks from one run into the next.
 */
const WINDOW = '8';
const GET_LIMIT = '8';
const PARALLEL = 4;

// The faults only the generated rules find have a self-test of their own (conformance-generated-self-test).
const faults = (Object.keys(FAULTS) as (keyof typeof FAULTS)[]).filter((f) => f !== 'none' && !('generatedOnly' in FAULTS[f]));
const groupOf = (rule: string) => rule.split('.')[0]!;

describe('conformance self-test: the faulty proxy against the reference server', () => {
  let server: ListeningServer;
  let doc: OpenApiDocument;
  let seeding: Promise<unknown> = Promise.resolve();
  const results = new Map<Fault, { run: RunResult; injected: number; caughtBy: string[] }>();

  beforeAll(async () => {
    server = await listen({ RATE_WINDOW_SECONDS: WINDOW, RATE_GET_LIMIT: GET_LIMIT });
    doc = OpenApiDocument.load();
  });

  afterAll(async () => {
    await server?.close();
    if (server) await removeDir(server.dataDir);
  });

  /** Fresh fixtures (new accounts, empty buckets), one seed at a time. */
  async function seedFor(label: string, acceptance: boolean): Promise<string> {
    const path = join(server.dataDir, `fixtures-${label}.json`);
    const done = seeding.then(() => server.admin(['seed', '--out', path, '--acceptance', acceptance ? '64' : '0']));
    seeding = done.catch(() => undefined);
    const result = await done;
    if (result.code !== 0) throw new Error(`seed failed: ${result.stderr}`);
    return path;
  }

  async function runThrough(fault: Fault, rules: string[], args: string[] = []): Promise<{ run: RunResult; injected: number }> {
    const fixturesPath = await seedFor(
      fault,
      rules.some((r) => r.startsWith('accept.')),
    );
    const fixtures = JSON.parse(await readFile(fixturesPath, 'utf8'));
    const proxy = new FaultyProxy(server.baseUrl, fault, { revokedKey: fixtures.keys.revoked });
    const url = await proxy.listen();
    try {
      // Every URL of the fixtures (the expired audio URL among them) goes through the proxy.
      await writeFile(fixturesPath, JSON.stringify(fixtures).split(server.baseUrl).join(url));
      const settings = readSettings(
        ['--fixtures', fixturesPath, '--only', rules.join(','), '--rate-window-seconds', WINDOW, '--get-limit', GET_LIMIT, '--quiet', ...args],
        {},
      );
      const run = await runSuite(settings, resolveTarget(settings), doc);
      return { run, injected: proxy.injected };
    } finally {
      await proxy.close();
    }
  }

  it(`catches every one of the ${faults.length} faults, and the control passes every rule they use`, async () => {
    expect(faults.length).toBeGreaterThanOrEqual(30);
    const queue = [...faults];
    const worker = async () => {
      for (let fault = queue.shift(); fault; fault = queue.shift()) {
        const spec: FaultSpec = FAULTS[fault];
        const { run, injected } = await runThrough(fault, spec.rules, spec.args);
        const caughtBy = run.rules.filter((r) => r.outcome === 'fail').map((r) => r.id);
        results.set(fault, { run, injected, caughtBy });
      }
    };
    const allRules = [...new Set(faults.flatMap((f) => FAULTS[f].rules))];
    const [control] = await Promise.all([runThrough('none', allRules), ...Array.from({ length: PARALLEL - 1 }, worker)]);
    await worker();

    const lines = faults.map((fault) => {
      const r = results.get(fault)!;
      const verdict = r.caughtBy.length > 0 && r.injected > 0 ? 'caught' : r.injected === 0 ? 'NEVER FIRED' : 'MISSED';
      const others = r.run.rules.filter((x) => x.outcome === 'error' || x.outcome === 'skip').map((x) => `${x.outcome} ${x.id}: ${x.message}`);
      return {
        fault,
        verdict,
        line: `${verdict.padEnd(11)} ${fault.padEnd(28)} by ${r.caughtBy.join(', ') || '—'}${others.length ? ` [${others.join('; ')}]` : ''}`,
      };
    });
    const caught = lines.filter((l) => l.verdict === 'caught').length;
    const groups = [...new Set(faults.flatMap((f) => FAULTS[f].rules.map(groupOf)))].sort();
    const summary = `conformance self-test: ${caught} of ${faults.length} faults caught (${((100 * caught) / faults.length).toFixed(1)} %), rule groups covered: ${groups.join(', ')}`;
    console.log([summary, ...lines.map((l) => `  ${l.line}`)].join('\n'));
    if (process.env.TTS_SELF_TEST_REPORT) {
      await writeFile(process.env.TTS_SELF_TEST_REPORT, JSON.stringify({ caught, total: faults.length, faults: lines }, null, 2));
    }

    const controlProblems = control.run.rules.filter((r) => r.outcome !== 'pass' && r.outcome !== 'disabled').map((r) => `${r.outcome} ${r.id}: ${r.message}`);
    expect(controlProblems, 'the control (no fault) must pass every rule the faults use').toEqual([]);
    expect(control.injected).toBe(0);
    expect(lines.filter((l) => l.verdict !== 'caught').map((l) => l.line)).toEqual([]);
    // Every rule group of the catalog that a fault can reach has one.
    for (const group of [
      'accept',
      'submit',
      'rate-limit',
      'idempotency',
      'job',
      'audio',
      'auth',
      'usage',
      'not-found',
      'get',
      'routes',
      'legacy',
      'cors',
      'errors',
      'versioning',
      'meta',
      'openapi',
      'timings',
    ]) {
      expect(groups, `no fault for the rule group ${group}`).toContain(group);
    }
  }, 420_000);
});
