import { access, constants, mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { FixturesError, isHttpUrl, loadFixturesFile } from '../../conformance/fixtures-file.js';
import { API_PATH, redactKeys } from '../contract/limits.js';
import { UsageError } from './errors.js';
import { Progress } from './progress.js';
import { describeMachine, describeStream, describeTimings, writeReports } from './report.js';
import { EXIT, type LoadResults, NAME, resultsOf } from './results.js';
import { type RunResult, runLoad } from './runner.js';
import { USER_AGENT } from './exchange.js';
import { Schedule, allowedRate } from './schedule.js';
import { helpText, readSettings, type LoadSettings } from './settings.js';
import { describeResult } from './thresholds.js';

/** `tts_<public_id>`: never the secret. */
function displayKey(key: string): string {
  const m = /^(tts_[0-9a-f]{8})_/.exec(key);
  return m?.[1] ?? `${key.slice(0, 8)}…`;
}

function checkUrl(value: string, where: string): string {
  if (!isHttpUrl(value)) throw new UsageError(`${where} must be an absolute http:// or https:// URL, got ${JSON.stringify(value)}`);
  return value.replace(/\/+$/, '');
}

/**
 * Before any load: every key is asked for a job that does not exist. A 404 (or a 429) says the
 * deployment answers and knows the key; no answer, a 401 or a 403 makes the settings unusable.
 */
async function preflight(baseUrl: string, keys: readonly string[], timeoutMs: number): Promise<string[]> {
  const problems = await Promise.all(
    keys.map(async (key) => {
      try {
        const res = await fetch(`${baseUrl}${API_PATH}?id=00000000-0000-4000-8000-000000000000`, {
          headers: { authorization: `Bearer ${key}`, 'user-agent': USER_AGENT },
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = (await res.json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
        if (res.status === 401 || res.status === 403)
          return `the deployment refuses key ${displayKey(key)}: ${body?.error?.code ?? 'no error code'} (HTTP ${res.status})`;
        return undefined;
      } catch (error) {
        const e = error as Error & { cause?: { code?: string; message?: string } };
        return `cannot reach ${baseUrl}: ${e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message)}`;
      }
    }),
  );
  return [...new Set(problems.filter((p): p is string => p !== undefined))];
}

/**
 * Checks what the run needs before any load: the fixtures' URL and keys, a rate the keys allow, a
 * writable --out-dir, and a deployment that answers and knows every key. An exit code when one is missing.
 */
async function prepare(
  settings: LoadSettings,
  err: (line: string) => void,
): Promise<{ baseUrl: string; keys: string[]; schedule: Schedule; allowed: number } | number> {
  let baseUrl: string;
  let keys: string[];
  try {
    // readSettings refuses a run without --fixtures; only --help goes without one.
    if (settings.fixturesPath === undefined) throw new UsageError('--fixtures <file> is required: the fixtures file of the deployment');
    const fixtures = loadFixturesFile(settings.fixturesPath);
    baseUrl = settings.baseUrl !== undefined ? checkUrl(settings.baseUrl, '--base-url') : checkUrl(fixtures.base_url, 'base_url of the fixtures file');
    keys = [...new Set(fixtures.keys.active)];
  } catch (error) {
    if (error instanceof FixturesError || error instanceof UsageError) {
      // The schema message may quote a malformed key: redacted like everything else.
      err(error.message.split('\n').join(' '));
      return EXIT.USAGE;
    }
    throw error;
  }

  const schedule = new Schedule(settings.stages, settings.startRate);
  const allowed = allowedRate(keys.length, settings.postLimit, settings.rateWindowSeconds);
  if (schedule.peakRate > allowed + 1e-9 && !settings.allow429) {
    err(
      `a rate of ${schedule.peakRate}/s is more than the ${keys.length} keys of the fixtures allow: ${fmtRate(allowed)} ` +
        `(${keys.length} keys × ${settings.postLimit} POST per ${settings.rateWindowSeconds} s). Add keys, lower the rate, ` +
        `pass --post-limit if the deployment allows more POSTs per window, or --allow-429 to measure the refusals.`,
    );
    return EXIT.USAGE;
  }
  if (settings.outDir !== undefined) {
    try {
      await mkdir(settings.outDir, { recursive: true });
      await access(settings.outDir, constants.W_OK);
    } catch (error) {
      err(`--out-dir ${settings.outDir}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      return EXIT.USAGE;
    }
  }
  const problems = await preflight(baseUrl, keys, Math.min(settings.requestTimeoutMs, 15_000));
  if (problems.length > 0) {
    for (const p of problems) err(p);
    return EXIT.USAGE;
  }

  return { baseUrl, keys, schedule, allowed };
}

/** Runs the load with a progress line; Ctrl-C stops it and writes the partial report, a second one quits at once. */
async function runWithProgress(
  settings: LoadSettings,
  { baseUrl, keys, schedule, allowed }: { baseUrl: string; keys: string[]; schedule: Schedule; allowed: number },
  env: NodeJS.ProcessEnv,
): Promise<RunResult> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write(`\n${NAME}: interrupted: stopping, writing the partial report (Ctrl-C again to quit at once)\n`);
      controller.abort();
    } else process.exit(EXIT.INTERRUPTED);
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);

  const progress = new Progress(process.stderr, !settings.quiet, env.CI === 'true' ? false : undefined);
  const keyDisplays = keys.map(displayKey);
  if (!settings.quiet) {
    process.stderr.write(`${NAME}: ${baseUrl}, ${keys.length} keys (they allow ${fmtRate(allowed)}), ${describeSchedule(settings, schedule)}\n`);
  }
  try {
    return await runLoad({
      settings,
      baseUrl,
      keys,
      keyDisplays,
      signal: controller.signal,
      onStart: (recorder, sched, t0) => progress.start(recorder, sched, t0),
    });
  } finally {
    progress.stop();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
}

async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const err = (line: string) => process.stderr.write(`${NAME}: ${redactKeys(line)}\n`);
  let settings: LoadSettings;
  try {
    settings = readSettings(argv, err);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`${error.message} (agent-tts-load --help lists the flags)`);
    return EXIT.USAGE;
  }
  if (settings.help) {
    process.stdout.write(`${helpText()}\n`);
    return EXIT.OK;
  }

  const prepared = await prepare(settings, err);
  if (typeof prepared === 'number') return prepared;
  const { baseUrl, keys, schedule } = prepared;
  const machine = describeMachine();
  const run = await runWithProgress(settings, prepared, env);
  const results = resultsOf(run, settings, schedule, { baseUrl, keys: keys.length, machine });
  const failed = results.thresholds.filter((t) => !t.pass);
  if (!settings.quiet) process.stdout.write(`${redactKeys(consoleSummary(results))}\n`);
  else for (const t of failed) process.stdout.write(`${redactKeys(describeResult(t))}\n`);
  if (settings.outDir !== undefined) {
    try {
      const files = await writeReports(resolve(settings.outDir), results);
      if (!settings.quiet) process.stdout.write(`reports: ${files.join(', ')}\n`);
    } catch (error) {
      err(`could not write the reports to ${settings.outDir}: ${(error as Error).message}`);
      return EXIT.TOOL_FAULT;
    }
  }
  return results.run.exit_code;
}

function fmtRate(r: number): string {
  return `${Number(r.toPrecision(4))}/s`;
}

function describeSchedule(settings: LoadSettings, schedule: Schedule): string {
  const [only] = settings.stages;
  const flat = only !== undefined && settings.stages.length === 1 && settings.startRate === only.target;
  const shape = flat
    ? `${only.target}/s for ${schedule.totalMs / 1000} s`
    : `stages ${settings.stages.map((s) => `${s.durationMs / 1000}s:${s.target}`).join(',')}`;
  return `${shape}, about ${Math.round(schedule.expectedCount)} submissions`;
}

function consoleSummary(r: LoadResults): string {
  const f = r.figures;
  const ms = (v: number | null) => (v === null ? '–' : `${Math.round(v)} ms`);
  const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
  const lines = [
    `${r.run.interrupted ? 'interrupted after' : 'done in'} ${r.run.elapsed_s} s: ${f.submissions.sent} sent, ${f.submissions.completed} with audio, ${f.submissions.rate_limited} refused (429), ${f.submissions.errors} errors${f.submissions.interrupted ? `, ${f.submissions.interrupted} cut short` : ''}`,
    `  inline ${f.paths.inline}, job ${f.paths.job} (inline share ${pct(f.inline_share)}); polls per job mean ${f.polls_per_job.mean ?? '–'}, max ${f.polls_per_job.max ?? '–'}`,
    `  time to audio p50 ${ms(f.time_to_audio.p50_ms)}, p95 ${ms(f.time_to_audio.p95_ms)}, p99 ${ms(f.time_to_audio.p99_ms)} | inline p95 ${ms(f.time_to_audio_inline.p95_ms)} | job p95 ${ms(f.time_to_audio_job.p95_ms)}`,
    `  POST latency p50 ${ms(f.submit_latency.p50_ms)}, p95 ${ms(f.submit_latency.p95_ms)}, p99 ${ms(f.submit_latency.p99_ms)}`,
    `  rate scheduled ${f.rate.scheduled_per_s ?? '–'}/s, achieved ${f.rate.achieved_per_s ?? '–'}/s; generator lag p99 ${ms(f.generator.lag.p99_ms)}; ${f.audio.seconds} audio s (${f.audio.seconds_per_second ?? '–'} per s)`,
    `  POST statuses: ${
      Object.entries(f.http_status.post)
        .map(([k, v]) => `${k}×${v}`)
        .join(' ') || '–'
    }${
      Object.keys(f.error_codes).length
        ? `; codes: ${Object.entries(f.error_codes)
            .map(([k, v]) => `${k}×${v}`)
            .join(' ')}`
        : ''
    }`,
  ];
  const timings = describeTimings(f.timings);
  if (timings) lines.push(`  word timings: ${timings}`);
  const stream = describeStream(f);
  if (stream) lines.push(`  time to first audio byte (stream_url): ${stream}`);
  for (const n of r.notes) lines.push(`  note: ${n}`);
  for (const t of r.thresholds) lines.push(`  ${describeResult(t)}`);
  return lines.join('\n');
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${NAME}: the tool failed: ${redactKeys((error as Error).stack ?? String(error))}\n`);
    process.exitCode = EXIT.TOOL_FAULT;
  },
);
