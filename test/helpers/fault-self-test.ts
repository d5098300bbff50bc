import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../../conformance/fixtures-file.js';
import { OpenApiDocument } from '../../conformance/openapi-document.js';
import type { RunResult } from '../../conformance/results.js';
import { runSuite } from '../../conformance/runner.js';
import { readSettings } from '../../conformance/settings.js';
import type { FaultSpec } from '../../conformance/testing/faults/common.js';
import { FAULTS, type Fault, FaultyProxy } from '../../conformance/testing/faulty-proxy.js';
import { seed, writeFixtures } from '../../src/server/seed.js';
import { listen, type ListeningServer } from './in-process.js';
import { removeDir } from './server.js';

/**
 * The suite tests itself: every fault of the faulty proxy, in front of the reference server, must
 * make at least one of the rules it names fail (caught), and the same rules must all pass through
 * the proxy when it injects nothing (the control), so a catch is the fault's doing. The catch rate is
 * printed (and written to $TTS_SELF_TEST_REPORT, one file per part with `-<part>-of-<parts>` before
 * its extension, when set); every fault must be caught.
 *
 * The faults are dealt round-robin into parts (test/conformance-self-test-*.test.ts), each a file
 * with a reference server of its own, so the parts run side by side; each part's control passes
 * every rule its faults use, so together the controls cover every rule of every fault.
 *
 * To fit CI's budget the reference runs with an 8-second rate-limit window (RATE_WINDOW_SECONDS=8,
 * 8 GETs per window) and the suite is told so; each fault runs only its own rules (--only) on fixtures
 * seeded for it (as `agent-tts-admin seed` does, in this process), so no rate-limit state leaks from
 * one run into the next.
 */
const WINDOW = '8';
const GET_LIMIT = '8';
const PARALLEL = 4;

// The faults only the generated rules find have a self-test of their own (conformance-generated-self-test).
const ALL_FAULTS = (Object.keys(FAULTS) as (keyof typeof FAULTS)[]).filter((f) => f !== 'none' && !('generatedOnly' in FAULTS[f]));
const groupOf = (rule: string) => rule.split('.', 1)[0] ?? rule;

/** Every rule group of the catalog that a fault can reach. */
const REACHABLE_GROUPS = [
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
  'stream',
];

/** The faults of part `part` (1-based) of `parts`, dealt round-robin in the catalog's order. */
function faultsOfPart(part: number, parts: number): (keyof typeof FAULTS)[] {
  return ALL_FAULTS.filter((_, i) => i % parts === part - 1);
}

function reportPath(path: string, part: number, parts: number): string {
  const dot = path.lastIndexOf('.');
  const suffix = `-${part}-of-${parts}`;
  return dot > path.lastIndexOf('/') ? `${path.slice(0, dot)}${suffix}${path.slice(dot)}` : `${path}${suffix}`;
}

type Outcome = { run: RunResult; injected: number };

/** The reference server a part runs its faults against, and fixtures seeded for each run, one seed at a time. */
class Bench {
  private seeding: Promise<unknown> = Promise.resolve();

  constructor(
    readonly server: ListeningServer,
    private readonly doc: OpenApiDocument,
  ) {}

  /** Fresh fixtures (new accounts, empty buckets), as `agent-tts-admin seed --out <path>` writes them. */
  private async seedFor(label: string, acceptance: boolean): Promise<string> {
    const path = join(this.server.dataDir, `fixtures-${label}.json`);
    const { services, config } = this.server.inProcess;
    const done = this.seeding.then(async () =>
      writeFixtures(path, await seed(services.store, services.audio, config, { active: 8, acceptance: acceptance ? 64 : 0 })),
    );
    this.seeding = done.catch(() => undefined);
    await done;
    return path;
  }

  /** Runs `rules` (--only) through a proxy with `fault`, on fixtures seeded for it. */
  async runThrough(fault: Fault, rules: string[], args: string[] = []): Promise<Outcome> {
    const fixturesPath = await this.seedFor(
      fault,
      rules.some((r) => r.startsWith('accept.')),
    );
    const fixtures = JSON.parse(await readFile(fixturesPath, 'utf8'));
    const proxy = new FaultyProxy(this.server.baseUrl, fault, { revokedKey: fixtures.keys.revoked });
    const url = await proxy.listen();
    try {
      // Every URL of the fixtures (the expired audio URL among them) goes through the proxy.
      await writeFile(fixturesPath, JSON.stringify(fixtures).split(this.server.baseUrl).join(url));
      const settings = readSettings(
        ['--fixtures', fixturesPath, '--only', rules.join(','), '--rate-window-seconds', WINDOW, '--get-limit', GET_LIMIT, '--quiet', ...args],
        {},
      );
      const run = await runSuite(settings, resolveTarget(settings), this.doc);
      return { run, injected: proxy.injected };
    } finally {
      await proxy.close();
    }
  }

  /** Every fault (PARALLEL runs at a time) and, beside them, the control over every rule they use. */
  async runAll(faults: (keyof typeof FAULTS)[]): Promise<{ control: Outcome; results: Map<Fault, Outcome> }> {
    const results = new Map<Fault, Outcome>();
    const queue = [...faults];
    const worker = async () => {
      for (let fault = queue.shift(); fault; fault = queue.shift()) {
        const spec: FaultSpec = FAULTS[fault];
        results.set(fault, await this.runThrough(fault, spec.rules, spec.args));
      }
    };
    const rules = [...new Set(faults.flatMap((f) => FAULTS[f].rules))];
    const [control] = await Promise.all([this.runThrough('none', rules), ...Array.from({ length: PARALLEL - 1 }, worker)]);
    await worker();
    return { control, results };
  }
}

/** One line per fault: caught (a rule failed and the fault fired), MISSED or NEVER FIRED. */
function verdicts(faults: (keyof typeof FAULTS)[], results: Map<Fault, Outcome>) {
  return faults.map((fault) => {
    const r = results.get(fault)!;
    const caughtBy = r.run.rules.filter((x) => x.outcome === 'fail').map((x) => x.id);
    const verdict = caughtBy.length > 0 && r.injected > 0 ? 'caught' : r.injected === 0 ? 'NEVER FIRED' : 'MISSED';
    const others = r.run.rules.filter((x) => x.outcome === 'error' || x.outcome === 'skip').map((x) => `${x.outcome} ${x.id}: ${x.message}`);
    return {
      fault,
      verdict,
      line: `${verdict.padEnd(11)} ${fault.padEnd(28)} by ${caughtBy.join(', ') || '—'}${others.length ? ` [${others.join('; ')}]` : ''}`,
    };
  });
}

/** Prints the catch rate of a part, and writes it to $TTS_SELF_TEST_REPORT (the part's own file) when set. */
async function report(faults: (keyof typeof FAULTS)[], lines: ReturnType<typeof verdicts>, part: number, parts: number): Promise<void> {
  const caught = lines.filter((l) => l.verdict === 'caught').length;
  const groups = [...new Set(faults.flatMap((f) => FAULTS[f].rules.map(groupOf)))].sort();
  const summary = `conformance self-test, part ${part} of ${parts}: ${caught} of ${faults.length} faults caught (${((100 * caught) / faults.length).toFixed(1)} %), rule groups covered: ${groups.join(', ')}`;
  console.log([summary, ...lines.map((l) => `  ${l.line}`)].join('\n'));
  if (process.env.TTS_SELF_TEST_REPORT) {
    const body = { part, parts, caught, total: faults.length, faults: lines };
    await writeFile(reportPath(process.env.TTS_SELF_TEST_REPORT, part, parts), JSON.stringify(body, null, 2));
  }
}

/** The self-test of part `part` of `parts`: its faults against a reference server of its own. */
export function faultSelfTest(part: number, parts: number): void {
  const faults = faultsOfPart(part, parts);

  describe(`conformance self-test, part ${part} of ${parts}: the faulty proxy against the reference server`, () => {
    let bench: Bench | undefined;

    beforeAll(async () => {
      bench = new Bench(await listen({ RATE_WINDOW_SECONDS: WINDOW, RATE_GET_LIMIT: GET_LIMIT }), OpenApiDocument.load());
    });

    afterAll(async () => {
      await bench?.server.close();
      if (bench) await removeDir(bench.server.dataDir);
    });

    if (part === 1) {
      it(`has at least 30 faults, ${ALL_FAULTS.length} in all, dealt into ${parts} parts, and one for every rule group a fault can reach`, () => {
        expect(ALL_FAULTS.length).toBeGreaterThanOrEqual(30);
        const dealt = Array.from({ length: parts }, (_, i) => faultsOfPart(i + 1, parts)).flat();
        expect(dealt.sort()).toEqual([...ALL_FAULTS].sort());
        const groups = [...new Set(ALL_FAULTS.flatMap((f) => FAULTS[f].rules.map(groupOf)))];
        for (const group of REACHABLE_GROUPS) expect(groups, `no fault for the rule group ${group}`).toContain(group);
      });
    }

    it(`catches every one of its ${faults.length} faults, and the control passes every rule they use`, async () => {
      expect(faults.length).toBeGreaterThan(0);
      const { control, results } = await bench!.runAll(faults);
      const lines = verdicts(faults, results);
      await report(faults, lines, part, parts);

      const controlProblems = control.run.rules
        .filter((r) => r.outcome !== 'pass' && r.outcome !== 'disabled')
        .map((r) => `${r.outcome} ${r.id}: ${r.message}`);
      expect(controlProblems, 'the control (no fault) must pass every rule the faults use').toEqual([]);
      expect(control.injected).toBe(0);
      expect(lines.filter((l) => l.verdict !== 'caught').map((l) => l.line)).toEqual([]);
    }, 900_000);
  });
}
