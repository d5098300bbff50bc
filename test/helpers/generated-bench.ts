import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../../conformance/fixtures-file.js';
import { OpenApiDocument } from '../../conformance/openapi-document.js';
import type { RunResult } from '../../conformance/results.js';
import { runSuite } from '../../conformance/runner.js';
import { readSettings } from '../../conformance/settings.js';
import { type Fault, FaultyProxy } from '../../conformance/testing/faulty-proxy.js';
import { ROOT, removeDir } from './server.js';

/** What the generated self-tests run the suite with: the sandbox behind a faulty proxy. */
export interface GeneratedBench {
  /** The sandbox's fixtures, every URL pointed at a proxy with this fault. */
  throughProxy<T>(fault: Fault, use: (path: string, proxy: FaultyProxy) => Promise<T>): Promise<T>;
  /** The suite in this process on the fixtures at `path`, quiet, with `args`. */
  run(path: string, args: string[]): Promise<RunResult>;
}

/** Starts `agent-tts-sandbox` (writing its fixtures) before the file's tests, and stops it after them. */
export function generatedBench(): GeneratedBench {
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

  return {
    async throughProxy(fault, use) {
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
    },
    run(path, args) {
      const settings = readSettings(['--fixtures', path, '--quiet', ...args], {});
      return runSuite(settings, resolveTarget(settings), doc);
    },
  };
}

/** With no fault, the generated group passes on every one of `seeds`, in a sandbox of the file's own. */
export function generatedPassesOverSeeds(seeds: number[]): void {
  describe(`conformance self-test: with no fault the generated group passes over seeds ${seeds.join(', ')}`, () => {
    const { throughProxy, run } = generatedBench();

    it(`passes on each of the ${seeds.length} seeds`, async () => {
      const problems: string[] = [];
      await throughProxy('none', async (path, proxy) => {
        for (const seed of seeds) {
          const result = await run(path, ['--only', 'generated.*', '--seed', String(seed)]);
          for (const r of result.rules)
            if (r.outcome !== 'pass' && r.outcome !== 'disabled') problems.push(`seed ${seed}: ${r.outcome} ${r.id}: ${r.message}\n${r.reproduction ?? ''}`);
        }
        expect(proxy.injected).toBe(0);
      });
      expect(problems).toEqual([]);
    }, 480_000);
  });
}
