import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../conformance/catalog.js';
import { resolveTarget } from '../conformance/fixtures-file.js';
import { OpenApiDocument } from '../conformance/openapi-document.js';
import type { RunResult } from '../conformance/results.js';
import { runSuite } from '../conformance/runner.js';
import { readSettings } from '../conformance/settings.js';
import { FAULTS, type Fault, FaultyProxy, GENERATED_ONLY_FAULTS } from '../conformance/testing/faulty-proxy.js';
import { runConformanceCli } from '../conformance/testing/run-cli.js';
import { ROOT, removeDir } from './helpers/server.js';

/**
 * The generated rules test themselves as the hand-written ones do (conformance-self-test), through
 * the faulty proxy in front of the sandbox: each fault that only generated inputs set off (a 500 on
 * a rare field combination, a header missing on one status, a schema drift on one path) is caught by
 * the generated group from a fixed seed, and not by any hand-written rule; a failure prints its seed
 * and curl command and comes back from that seed; and with no fault the group passes over 20 seeds.
 */
describe('conformance self-test: faults only the generated rules find', () => {
  let dir: string;
  let fixturesPath: string;
  let sandbox: ChildProcess;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    doc = OpenApiDocument.load();
    dir = await mkdtemp(join(tmpdir(), 'conformance-generated-'));
    fixturesPath = join(dir, 'fixtures.json');
    sandbox = spawn(process.execPath, [join(ROOT, 'src/sandbox/bin/agent-tts-sandbox.js'), '--out', fixturesPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      sandbox.stdout!.on('data', (chunk) => {
        output += chunk;
        if (output.includes(`Conformance fixtures written to ${fixturesPath}`)) resolve();
      });
      sandbox.stderr!.on('data', (chunk) => (output += chunk));
      sandbox.once('exit', (code) => reject(new Error(`agent-tts-sandbox exited with ${code}:\n${output}`)));
    });
  }, 60_000);

  afterAll(async () => {
    if (sandbox && sandbox.exitCode === null) {
      const exited = new Promise((resolve) => sandbox.once('exit', resolve));
      sandbox.kill('SIGTERM');
      await exited;
    }
    if (dir) await removeDir(dir);
  });

  /** The sandbox's fixtures, every URL pointed at a proxy with this fault. */
  async function throughProxy<T>(fault: Fault, use: (path: string, proxy: FaultyProxy) => Promise<T>): Promise<T> {
    const fixtures = await readFile(fixturesPath, 'utf8');
    const base = JSON.parse(fixtures).base_url as string;
    const proxy = new FaultyProxy(base, fault);
    const url = await proxy.listen();
    const path = join(dir, `fixtures-${fault}-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(path, fixtures.split(base).join(url));
    try {
      return await use(path, proxy);
    } finally {
      await proxy.close();
    }
  }

  const run = (path: string, args: string[]): Promise<RunResult> => {
    const settings = readSettings(['--fixtures', path, '--quiet', ...args], {});
    return runSuite(settings, resolveTarget(settings), doc);
  };

  for (const fault of GENERATED_ONLY_FAULTS) {
    const spec = FAULTS[fault] as { rules: string[]; generatedOnly: { args: string[] }; description: string };
    it(`${fault}: caught by ${spec.rules.join(', ')} from its seed, with the shrunk request as curl`, async () => {
      const { result, injected } = await throughProxy(fault, async (path, proxy) => ({
        result: await run(path, ['--only', spec.rules.join(','), ...spec.generatedOnly.args]),
        injected: proxy.injected,
      }));
      expect(injected, 'the fault never fired').toBeGreaterThan(0);
      const failed = result.rules.filter((r) => r.outcome === 'fail');
      expect(
        failed.map((r) => r.id),
        JSON.stringify(result.rules.map((r) => [r.id, r.outcome, r.message])),
      ).toEqual(spec.rules);
      const seed = spec.generatedOnly.args[spec.generatedOnly.args.indexOf('--seed') + 1];
      expect(failed[0]!.message).toContain(`(seed ${seed})`);
      expect(failed[0]!.reproduction).toContain(`--seed ${seed}`);
      expect(failed[0]!.reproduction).toMatch(/^curl -i -X POST '/m);
      console.log(`${fault}: ${failed[0]!.message}\n${failed[0]!.reproduction}`);
    }, 120_000);
  }

  it('no hand-written rule fails with all of those faults at once: the whole catalog but the generated group passes through them', async () => {
    const result = await throughProxy('generated-only', (path) => run(path, ['--skip', 'generated.*']));
    const notPassed = result.rules.filter((r) => r.outcome !== 'pass' && r.outcome !== 'disabled').map((r) => `${r.outcome} ${r.id}: ${r.message}`);
    expect(notPassed).toEqual([]);
    expect(result.rules.filter((r) => r.outcome === 'pass').length).toBe(CATALOG.filter((r) => !r.id.startsWith('generated.')).length);
  }, 120_000);

  it('a failure printed by the command line comes back from its printed seed: the same smallest request', async () => {
    await throughProxy('header-missing-on-one-status', async (path) => {
      const args = ['--fixtures', path, '--only', 'generated.requests', '--generate', '100'];
      const first = await runConformanceCli(args);
      expect(first.code, first.stdout + first.stderr).toBe(1);
      const seed = /\(seed (\d+)\)/.exec(first.stdout)?.[1];
      expect(seed, first.stdout).toBeDefined();
      const curl = (out: string) => /^\s*(curl .*)$/m.exec(out)?.[1]?.replace(/tts_[0-9a-f]{8}_<secret>/, 'tts_<public_id>_<secret>');
      expect(curl(first.stdout)).toMatch(/Idempotency-Key: [^']*\P{ASCII}/u);
      // The key's secret never appears, only its display form and a placeholder.
      expect(first.stdout).toMatch(/Authorization: Bearer tts_[0-9a-f]{8}_<secret>/);
      const again = await runConformanceCli([...args, '--seed', seed!]);
      expect(again.code).toBe(1);
      expect(curl(again.stdout)).toBe(curl(first.stdout));
      const junit = await readFile(join(again.outputDir, 'junit.xml'), 'utf8');
      const html = await readFile(join(again.outputDir, 'report.html'), 'utf8');
      expect(junit).toContain(`--seed ${seed}`);
      expect(junit).toContain('curl -i -X POST');
      expect(html).toContain('curl -i -X POST');
      await removeDir(first.outputDir);
      await removeDir(again.outputDir);
    });
  }, 120_000);

  it('with no fault the generated group passes over 20 seeds', async () => {
    const problems: string[] = [];
    await throughProxy('none', async (path, proxy) => {
      for (let seed = 1; seed <= 20; seed++) {
        const result = await run(path, ['--only', 'generated.*', '--seed', String(seed)]);
        for (const r of result.rules)
          if (r.outcome !== 'pass' && r.outcome !== 'disabled') problems.push(`seed ${seed}: ${r.outcome} ${r.id}: ${r.message}\n${r.reproduction ?? ''}`);
      }
      expect(proxy.injected).toBe(0);
    });
    expect(problems).toEqual([]);
  }, 240_000);
});
