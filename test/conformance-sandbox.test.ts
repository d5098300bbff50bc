import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../conformance/catalog.js';
import { type CliRun, runConformanceCli } from '../conformance/testing/run-cli.js';
import { ROOT, removeDir } from './helpers/server.js';

/**
 * The whole catalog against the sandbox, both from their built package bins, as a client author runs
 * them: `agent-tts-sandbox --out <file>`, then `agent-tts-conformance --strict --fixtures <file>`.
 * The fixtures carry the sandbox's test clock (the suite moves it instead of waiting out rate-limit
 * windows, Retry-After and polls) and texts that provoke a 202, a provider error and an internal
 * error on demand, so every rule runs to a verdict: 0 skipped, 0 failed. The sandbox runs with
 * --validate-responses: each of its answers the suite provoked is also checked against the OpenAPI
 * document, and none may break it. The run's duration is printed (conformance/README.md quotes it), not asserted.
 */
const conformance = (args: string[]) => runConformanceCli(args, {}, 'bin/agent-tts-conformance.js');

describe('conformance: the sandbox passes every rule, with --strict, on its test clock', () => {
  let dir: string;
  let fixturesPath: string;
  let sandbox: ChildProcess;
  let output = '';
  let run: CliRun;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conformance-sandbox-'));
    fixturesPath = join(dir, 'fixtures.json');
    sandbox = spawn(process.execPath, [join(ROOT, 'src/sandbox/bin/agent-tts-sandbox.js'), '--out', fixturesPath, '--validate-responses'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      const seen = (chunk: Buffer) => {
        output += chunk;
        if (output.includes(`Conformance fixtures written to ${fixturesPath}`)) resolve();
      };
      sandbox.stdout!.on('data', seen);
      sandbox.stderr!.on('data', (chunk) => (output += chunk));
      sandbox.once('exit', (code) => reject(new Error(`agent-tts-sandbox exited with ${code} before writing the fixtures:\n${output}`)));
    });
    run = await conformance(['--strict', '--fixtures', fixturesPath, '--quiet']);
    console.log(
      `conformance against the sandbox: ${run.results?.counts.pass} rules passed in ${(run.ms / 1000).toFixed(1)} s (the suite's own count: ${((run.results?.duration_ms ?? 0) / 1000).toFixed(1)} s); clock moved ${run.results?.clock?.advanced_seconds} s`,
    );
  }, 120_000);

  afterAll(async () => {
    if (sandbox && sandbox.exitCode === null) {
      const exited = new Promise((resolve) => sandbox.once('exit', resolve));
      sandbox.kill('SIGTERM');
      await exited;
    }
    if (run) await removeDir(run.outputDir);
    if (dir) await removeDir(dir);
  });

  it('exits 0 with every rule of the catalog passed: none skipped, failed or errored', () => {
    const notPassed = run.results?.rules
      .filter((r: { outcome: string }) => r.outcome !== 'pass')
      .map((r: { id: string; outcome: string; message: string }) => `${r.id} ${r.outcome}: ${r.message}`);
    expect(notPassed ?? run.stderr, run.stdout + run.stderr).toEqual([]);
    expect(run.results.counts).toMatchObject({ fail: 0, error: 0, skip: 0, disabled: 0 });
    expect(Object.keys(run.outcomes).sort()).toEqual(CATALOG.map((rule) => rule.id).sort());
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  it('sends no answer that breaks the OpenAPI document (--validate-responses): none flagged in the journal, none logged', async () => {
    expect(output).toContain('Answers are checked against the OpenAPI document (--validate-responses)');
    const { base_url } = JSON.parse(await readFile(fixturesPath, 'utf8'));
    const journal = (await (await fetch(`${base_url}/sandbox/requests/flags`)).json()) as { flags: { code: string; message: string }[] };
    expect(journal.flags.filter((f) => f.code === 'RESPONSE_VIOLATES_DOCUMENT')).toEqual([]);
    // The journal keeps the last 1,000 requests; the log (the sandbox's stdout) has every violation of the run.
    expect(output).not.toContain('answer violates the OpenAPI document');
  });

  it('lets time pass on the test clock, and provokes the outcomes the fixtures name', () => {
    expect(run.results.clock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sandbox\/clock$/);
    // Two windows at least: a retry after Retry-After, and a second job on one account.
    expect(run.results.clock.advanced_seconds).toBeGreaterThanOrEqual(60);
    expect(run.stdout).toContain(`time passed on the test clock ${run.results.clock.url}`);
    const byLabel = (label: string) => run.results.exchanges.filter((e: { label?: string }) => e.label === label);
    expect(byLabel('submit the text of outcomes.inline_text').map((e: { response: { status: number } }) => e.response.status)).toEqual([200]);
    expect(byLabel('submit the text of outcomes.async_text').map((e: { response: { status: number } }) => e.response.status)).toEqual([202]);
    expect(byLabel('submit the text of outcomes.provider_error_text').map((e: { response: { status: number } }) => e.response.status)).toEqual([502]);
    expect(byLabel('the text of outcomes.internal_error_text').map((e: { response: { status: number } }) => e.response.status)).toEqual([500]);
  });

  it('exits 2 naming the clock URL when the fixtures name a clock that does not answer 200', async () => {
    const fixtures = JSON.parse(await readFile(fixturesPath, 'utf8'));
    const badClock = `${fixtures.base_url}/sandbox/no-clock-here`;
    const badPath = join(dir, 'bad-clock.json');
    await writeFile(badPath, JSON.stringify({ ...fixtures, clock: { url: badClock } }));
    const bad = await conformance(['--strict', '--fixtures', badPath]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`the test clock ${badClock} (fixtures clock.url) answered HTTP 404`);
    expect(bad.results).toBeUndefined();
  });
});
