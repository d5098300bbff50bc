import { access, constants, mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { FixturesError, isHttpUrl, loadFixturesFile } from '../../conformance/fixtures-file.js';
import { API_PATH, redactKeys } from '../contract/limits.js';
import { UsageError } from './errors.js';
import { Progress } from './progress.js';
import { flatMetrics } from './recorder.js';
import { describeMachine, writeReports, type LoadResults } from './report.js';
import { USER_AGENT, runLoad } from './runner.js';
import { Schedule, allowedRate } from './schedule.js';
import { helpText, readSettings, type LoadSettings } from './settings.js';
import { describeResult, evaluateThresholds } from './thresholds.js';

const EXIT = { OK: 0, THRESHOLD_FAILED: 1, USAGE: 2, TOOL_FAULT: 3, INTERRUPTED: 130 } as const;

const NAME = 'agent-tts-load';
const VERSION = '0.1.0';

/** `tts_<public_id>`: never the secret. */
function displayKey(key: string): string {
  const m = /^(tts_[0-9a-f]{8})_/.exec(key);
  return m ? m[1]! : `${key.slice(0, 8)}…`;
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

function parametersOf(settings: LoadSettings, schedule: Schedule, keys: number): Record<string, unknown> {
  return {
    stages: settings.stages.map((s) => ({ duration_s: s.durationMs / 1000, target_per_s: s.target })),
    start_rate_per_s: settings.startRate,
    duration_s: schedule.totalMs / 1000,
    expected_submissions: Math.round(schedule.expectedCount * 100) / 100,
    peak_rate_per_s: schedule.peakRate,
    max_requests: settings.maxRequests ?? null,
    mix: settings.mix,
    voices: settings.voices,
    speeds: settings.speeds,
    language: settings.language ?? null,
    seed: settings.seed,
    post_limit: settings.postLimit,
    rate_window_s: settings.rateWindowSeconds,
    allowed_rate_per_s: Math.round(allowedRate(keys, settings.postLimit, settings.rateWindowSeconds) * 1e4) / 1e4,
    allow_429: settings.allow429,
    request_timeout_s: settings.requestTimeoutMs / 1000,
    job_timeout_s: settings.jobTimeoutMs / 1000,
    thresholds: settings.thresholds.map((t) => t.expression),
  };
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

  let baseUrl: string;
  let keys: string[];
  try {
    const fixtures = loadFixturesFile(settings.fixturesPath!);
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
  const machine = describeMachine();
  if (!settings.quiet) {
    process.stderr.write(`${NAME}: ${baseUrl}, ${keys.length} keys (they allow ${fmtRate(allowed)}), ${describeSchedule(settings, schedule)}\n`);
  }
  let run;
  try {
    run = await runLoad({
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

  const figures = run.recorder.figures({
    elapsedMs: run.elapsedMs,
    scheduleElapsedMs: run.scheduleElapsedMs,
    peakScheduledRate: schedule.peakRate,
    eventLoopDelayP99Ms: run.eventLoopDelayP99Ms,
    clientCpuPercent: run.clientCpuPercent,
  });
  const metrics = flatMetrics(figures);
  const thresholds = evaluateThresholds(settings.thresholds, metrics);
  const failed = thresholds.filter((t) => !t.pass);
  const verdict: LoadResults['run']['verdict'] = run.interrupted ? 'interrupted' : thresholds.length === 0 ? 'none' : failed.length > 0 ? 'fail' : 'pass';
  const exitCode = run.interrupted ? EXIT.INTERRUPTED : failed.length > 0 ? EXIT.THRESHOLD_FAILED : EXIT.OK;
  const notes: string[] = [];
  if ((figures.generator.lag.p99_ms ?? 0) > 100) {
    notes.push(
      `The generator sent some submissions late (lag p99 ${figures.generator.lag.p99_ms} ms): this client (or its machine) was busy, so the load it offered fell behind the schedule for a while.`,
    );
  }
  if (figures.submissions.sent_over_key_limit > 0)
    notes.push(`${figures.submissions.sent_over_key_limit} submissions were sent on keys whose POST window was already full (--allow-429).`);
  const poll429 = figures.http_status.poll['429'] ?? 0;
  if (poll429 > 0)
    notes.push(
      `${poll429} status polls were refused with 429 (the per-key GET limit): each waited its Retry-After, which adds to the job path's time to audio.`,
    );
  if (figures.audio.missing_duration > 0)
    notes.push(`${figures.audio.missing_duration} completed jobs gave no audio.duration_seconds; their audio is not in the audio seconds.`);
  if (run.stoppedBy === 'max-requests') notes.push(`Sending stopped at --max-requests ${settings.maxRequests}.`);
  if (run.interrupted)
    notes.push('The run was interrupted (Ctrl-C): the figures cover what happened until then; thresholds were not judged for the exit code.');

  const results: LoadResults = {
    tool: { name: NAME, version: VERSION },
    run: {
      id: run.runId,
      started_at: run.startedAt.toISOString(),
      ended_at: run.endedAt.toISOString(),
      elapsed_s: Math.round(run.elapsedMs) / 1000,
      interrupted: run.interrupted,
      stopped_by: run.stoppedBy,
      verdict,
      exit_code: exitCode,
    },
    parameters: parametersOf(settings, schedule, keys.length),
    target: { base_url: baseUrl, keys: keys.length },
    machine,
    client: { http: `global fetch (undici, Node ${process.version}): keep-alive connections, no cap on connections per origin`, user_agent: USER_AGENT },
    figures,
    metrics,
    thresholds,
    notes,
    error_samples: [...run.recorder.errorSamples].map(([message, count]) => ({ message, count })),
    timeline: run.recorder.chartTimeline(run.elapsedMs, run.scheduleElapsedMs),
    histograms: {
      time_to_audio: run.recorder.tta.encode(),
      time_to_audio_inline: run.recorder.ttaInline.encode(),
      time_to_audio_job: run.recorder.ttaJob.encode(),
      submit_latency: run.recorder.submitLatency.encode(),
      download_time: run.recorder.download.encode(),
      generator_lag: run.recorder.lag.encode(),
    },
  };

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
  return exitCode;
}

function fmtRate(r: number): string {
  return `${Number(r.toPrecision(4))}/s`;
}

function describeSchedule(settings: LoadSettings, schedule: Schedule): string {
  const flat = settings.stages.length === 1 && settings.startRate === settings.stages[0]!.target;
  const shape = flat
    ? `${settings.stages[0]!.target}/s for ${schedule.totalMs / 1000} s`
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
