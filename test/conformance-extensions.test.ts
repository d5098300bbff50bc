import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../conformance/catalog.js';
import { resolveTarget } from '../conformance/fixtures-file.js';
import { OpenApiDocument } from '../conformance/openapi-document.js';
import { failsStrict, isFailing } from '../conformance/results.js';
import { runSuite } from '../conformance/runner.js';
import { readSettings } from '../conformance/settings.js';
import { FaultyProxy } from '../conformance/testing/faulty-proxy.js';
import { runConformanceCli } from '../conformance/testing/run-cli.js';
import { listen, type ListeningServer } from './helpers/in-process.js';
import { removeDir } from './helpers/server.js';

/**
 * Word timings are an extension beyond the base API (conformance/extensions.ts, docs/conformance.md):
 * a deployment that ignores `timestamps: "word"` — here the reference behind a proxy that takes
 * `timings` off every answer — has the extension's rules skipped as "extension not supported", which a
 * plain run passes and `--strict` fails; `--extensions required` fails them and `--extensions none`
 * leaves them out, so `--strict` certifies the base API alone. The rule that holds for every deployment
 * (no timings unless asked) runs and passes whatever the mode.
 */
const WINDOW = '4';
const TIMINGS_RULES = CATALOG.filter((r) => r.extension === 'word-timings').map((r) => r.id);

describe('conformance: a deployment that does not offer word timings', () => {
  let server: ListeningServer;
  let proxy: FaultyProxy;
  let proxyUrl: string;
  let doc: OpenApiDocument;
  let seeds = 0;

  beforeAll(async () => {
    // The instant synthesizer: what is judged is how the runner treats the missing extension, not the audio.
    server = await listen({ RATE_WINDOW_SECONDS: WINDOW }, { synth: 'instant' });
    proxy = new FaultyProxy(server.baseUrl, 'timings-ignored');
    proxyUrl = await proxy.listen();
    doc = OpenApiDocument.load();
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    if (server) await removeDir(server.dataDir);
  });

  /** Fresh fixtures (new accounts, empty buckets) whose URLs go through the proxy. */
  async function fixtures(): Promise<string> {
    const path = join(server.dataDir, `fixtures-${++seeds}.json`);
    const seeded = await server.admin(['seed', '--out', path, '--acceptance', '0']);
    expect(seeded.code, seeded.stderr).toBe(0);
    await writeFile(path, (await readFile(path, 'utf8')).split(server.baseUrl).join(proxyUrl));
    return path;
  }

  const run = async (...args: string[]) => {
    const settings = readSettings(['--fixtures', await fixtures(), '--rate-window-seconds', WINDOW, '--quiet', ...args], {});
    return runSuite(settings, resolveTarget(settings), doc);
  };
  /** The outcomes of the rules the run selected (--only disables the others). */
  const outcomes = (result: Awaited<ReturnType<typeof run>>) =>
    Object.fromEntries(result.rules.filter((r) => r.outcome !== 'disabled').map((r) => [r.id, r.outcome]));

  it('by default: skipped as "extension not supported" (a feature skip), no failure; --strict would fail the run', async () => {
    const result = await run('--only', 'timings.*');
    expect(TIMINGS_RULES.length).toBeGreaterThanOrEqual(7);
    expect(outcomes(result)).toEqual(Object.fromEntries(TIMINGS_RULES.map((id) => [id, id === 'timings.absent-unless-asked' ? 'pass' : 'skip'])));
    for (const rule of result.rules.filter((r) => r.outcome === 'skip')) {
      expect(rule.skipKind).toBe('feature');
      expect(rule.message).toMatch(
        /^extension not supported: word timings and captions \(docs\/api-rules\.md#word-timings-and-captions\); a job submitted with timestamps "word" completed without timings/,
      );
    }
    expect(result.extensions).toBe('optional');
    expect(isFailing(result)).toBe(false);
    // A skip is what --strict fails (besides the rules --only disabled here).
    expect(result.counts.skip).toBe(TIMINGS_RULES.length - 1);
    expect(failsStrict(result)).toBe(true);
    expect(proxy.injected).toBeGreaterThan(0);
  }, 120_000);

  it('--extensions required: the same rules fail, saying why', async () => {
    const result = await run('--only', 'timings.*', '--extensions', 'required');
    const failed = result.rules.filter((r) => r.outcome === 'fail');
    expect(failed.map((r) => r.id).sort()).toEqual(TIMINGS_RULES.filter((id) => id !== 'timings.absent-unless-asked').sort());
    for (const rule of failed) expect(rule.message).toMatch(/^extension not supported: .*; --extensions required asks for it$/);
    expect(outcomes(result)['timings.absent-unless-asked']).toBe('pass');
  }, 120_000);

  it('--extensions none: the rules are left out (neither run nor listed), so --strict certifies the base API alone', async () => {
    const result = await run('--only', 'timings.*,job.completed-fields', '--extensions', 'none');
    expect(outcomes(result)).toEqual({ 'job.completed-fields': 'pass' });
    expect(result.rules.filter((r) => r.id.startsWith('timings.'))).toEqual([]);
    expect(result.counts.skip).toBe(0);
    expect(isFailing(result)).toBe(false);
  }, 120_000);

  it('the command line: exit 0 by default, 1 with --strict, naming the skipped extension and the ways out', async () => {
    const plain = await runConformanceCli(['--fixtures', await fixtures(), '--rate-window-seconds', WINDOW, '--only', 'timings.present-when-asked']);
    expect(plain.code, plain.stdout + plain.stderr).toBe(0);
    expect(plain.stdout).toContain('SKIP  timings.present-when-asked');
    expect(plain.stdout).toContain('--extensions none leaves them out, --extensions required fails them');
    expect(plain.results.extensions).toBe('optional');
    const strict = await runConformanceCli([
      '--fixtures',
      await fixtures(),
      '--rate-window-seconds',
      WINDOW,
      '--only',
      'timings.present-when-asked',
      '--strict',
    ]);
    expect(strict.code, strict.stdout + strict.stderr).toBe(1);
    expect(strict.stdout).toMatch(/--strict: \d+ binding rule\(s\) did not run to a verdict.*timings\.present-when-asked \(skip: extension not supported/);
    for (const r of [plain, strict]) await removeDir(r.outputDir);
  }, 120_000);
});

/**
 * Streaming audio is an extension too: a deployment whose processing answers carry no `stream_url` —
 * the reference behind a proxy that takes it off — has the `stream.*` rules skipped as "extension not
 * supported" by default, failed under `--extensions required`, and left out under `--extensions none`.
 */
const STREAM_RULES = CATALOG.filter((r) => r.extension === 'streaming').map((r) => r.id);

describe('conformance: a deployment that does not stream audio', () => {
  let server: ListeningServer;
  let proxy: FaultyProxy;
  let proxyUrl: string;
  let doc: OpenApiDocument;
  let seeds = 0;

  beforeAll(async () => {
    // Real synthesis: the stream rules need a job still being made when its POST is answered.
    server = await listen({ RATE_WINDOW_SECONDS: WINDOW });
    proxy = new FaultyProxy(server.baseUrl, 'stream-not-offered');
    proxyUrl = await proxy.listen();
    doc = OpenApiDocument.load();
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    if (server) await removeDir(server.dataDir);
  });

  const run = async (...args: string[]) => {
    const path = join(server.dataDir, `fixtures-${++seeds}.json`);
    const seeded = await server.admin(['seed', '--out', path, '--acceptance', '0']);
    expect(seeded.code, seeded.stderr).toBe(0);
    await writeFile(path, (await readFile(path, 'utf8')).split(server.baseUrl).join(proxyUrl));
    const settings = readSettings(['--fixtures', path, '--rate-window-seconds', WINDOW, '--quiet', ...args], {});
    return runSuite(settings, resolveTarget(settings), doc);
  };

  it('by default the stream rules are skipped as "extension not supported", and the run does not fail; --extensions required fails them', async () => {
    const result = await run('--only', 'stream.*');
    expect(STREAM_RULES.length).toBe(5);
    const judged = result.rules.filter((r) => STREAM_RULES.includes(r.id));
    expect(judged.map((r) => [r.id, r.outcome])).toEqual(STREAM_RULES.map((id) => [id, 'skip']));
    for (const rule of judged) {
      expect(rule.skipKind).toBe('feature');
      expect(rule.message).toMatch(/^extension not supported: streaming audio \(docs\/api-rules\.md#streaming-audio\); the 202 of .* carries no stream_url/);
    }
    expect(isFailing(result)).toBe(false);
    expect(proxy.injected).toBeGreaterThan(0);

    const required = await run('--only', 'stream.*', '--extensions', 'required');
    const failed = required.rules.filter((r) => r.outcome === 'fail').map((r) => r.id);
    expect(failed.sort()).toEqual([...STREAM_RULES].sort());
  }, 240_000);
});
