import type { SynthesisRequest } from '@agent-tts/server';
import type { ClosedLoopResult } from '../harness/load.js';
import { defined } from '../harness/defined.js';
import { profileMarkdown, type ProfileSummary } from '../harness/profile.js';
import { status, type BenchContext, type BenchmarkOutput, type TargetResult } from '../harness/report-types.js';
import { mean, round, type LatencySummary } from '../harness/stats.js';
import { INLINE_TEXT } from '../harness/texts.js';

/**
 * The inline benchmark's report: the latency the API adds over the direct pipeline call (its target),
 * completions per second at saturation, and the server's capacity for the open-loop benchmark.
 */

/** Inline path target: latency the API adds over the direct pipeline call, at p50. */
const TARGET_ADDED_P50_MS = 2;

/** The inline benchmark's settings, quick or full. */
export interface InlineParams {
  warmup: number;
  /** Pairs of one direct call and one HTTP request. */
  latency_pairs: number;
  saturation_rounds: number;
  saturation_s: number;
  concurrency: number;
}

/** The latency phase: each side one request at a time, and the server's own processing time. */
export interface InlineLatency {
  direct: LatencySummary;
  http: LatencySummary;
  processing: LatencySummary;
  /** HTTP answers other than 200, by status. */
  httpFailures: Record<string, number>;
}

/** The saturation rounds of each side. */
export interface InlineSaturation {
  direct: ClosedLoopResult[];
  http: ClosedLoopResult[];
  /** The pipeline with as many calls in flight as the server's JOB_CONCURRENCY (full runs only). */
  directAtJobConcurrency: ClosedLoopResult[];
}

/** What the inline benchmark measured, as its report reads it. */
interface InlineResults {
  params: InlineParams;
  keyCount: number;
  jobConcurrency: number;
  req: SynthesisRequest;
  latency: InlineLatency;
  saturation: InlineSaturation;
  profile?: ProfileSummary;
}

/** The benchmark's output; sets the context's capacity (HTTP completions per second) for the open-loop benchmark. */
export function inlineReport(ctx: BenchContext, r: InlineResults): BenchmarkOutput {
  const { params, keyCount, jobConcurrency, req, profile } = r;
  const { direct: directLatency, http: httpLatency, processing: processingLatency, httpFailures } = r.latency;
  const { direct: directSat, http: httpSat, directAtJobConcurrency } = r.saturation;
  const directPerS = round(mean(directSat.map((s) => s.ok_per_s)));
  const httpPerS = round(mean(httpSat.map((s) => s.ok_per_s)));
  const directAtJobsPerS = directAtJobConcurrency.length ? round(mean(directAtJobConcurrency.map((s) => s.ok_per_s))) : undefined;
  ctx.capacityPerS = httpPerS;

  const added = { p50_ms: round(httpLatency.p50_ms - directLatency.p50_ms), p99_ms: round(httpLatency.p99_ms - directLatency.p99_ms) };
  const targets: TargetResult[] = [
    {
      id: 'inline-added-p50',
      target: `inline path adds ≤ ${TARGET_ADDED_P50_MS} ms at p50 over the direct pipeline call`,
      measured: `${added.p50_ms} ms (HTTP ${httpLatency.p50_ms} ms vs direct ${directLatency.p50_ms} ms)`,
      status: ctx.quick ? 'not evaluated' : status(added.p50_ms <= TARGET_ADDED_P50_MS),
      note: ctx.quick ? `quick run: indicative only (${added.p50_ms <= TARGET_ADDED_P50_MS ? 'would pass' : 'would miss'})` : undefined,
    },
  ];
  const lat = (l: LatencySummary) => `${l.p50_ms} | ${l.p90_ms} | ${l.p99_ms} | ${l.count}`;
  const sat = (list: ClosedLoopResult[]) => list.map((s) => s.ok_per_s).join(', ');
  const firstLatency = (list: ClosedLoopResult[], what: string) => {
    const { latency } = defined(list[0], `the first saturation round of ${what}`);
    return `${latency.p50_ms} / ${latency.p99_ms}`;
  };
  const failures = Object.entries(httpFailures);
  const md = [
    `Text of ${INLINE_TEXT.length} characters, voice ${req.voice} (${req.language}), speed ${req.speed}. Server: SYNTH_THREADS=${ctx.synthThreads}, JOB_CONCURRENCY=${jobConcurrency} (its default), INLINE_WAIT_MS=10000 (default), ` +
      `rate limits raised and ${keyCount} keys used in turn, LOG_LEVEL=info. Direct: \`createSynthesizer({ threads: ${ctx.synthThreads} })\` + \`synthesizeToFile\` in the benchmark process. ` +
      `Latency: one request at a time, ${params.latency_pairs} per side alternated request by request after ${params.warmup} warm-up calls each. ` +
      `Saturation: ${params.concurrency} requests in flight (closed loop) for ${params.saturation_s} s, ${params.saturation_rounds} round(s) per side.`,
    '',
    '| Path | p50 ms | p90 ms | p99 ms | n |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| direct pipeline | ${lat(directLatency)} |`,
    `| HTTP POST → 200 | ${lat(httpLatency)} |`,
    `| server's own \`meta.processing_time_ms\` | ${lat(processingLatency)} |`,
    `| **added by the API** | **${added.p50_ms}** | | **${added.p99_ms}** | |`,
    '',
    '| Saturation | completed / s | per round | p50 / p99 ms |',
    '| --- | ---: | --- | ---: |',
    `| direct pipeline | ${directPerS} | ${sat(directSat)} | ${firstLatency(directSat, 'the direct pipeline')} |`,
    `| HTTP | ${httpPerS} | ${sat(httpSat)} | ${firstLatency(httpSat, 'HTTP')} |`,
    ...(directAtJobConcurrency.length
      ? [
          `| direct pipeline, ${jobConcurrency} in flight (= the server's JOB_CONCURRENCY) | ${directAtJobsPerS} | ${sat(directAtJobConcurrency)} | ${firstLatency(directAtJobConcurrency, `the direct pipeline at ${jobConcurrency} in flight`)} |`,
        ]
      : []),
    `| HTTP / direct | **${round((100 * httpPerS) / directPerS, 1)}%** | | |`,
    ...(directAtJobsPerS ? [`| HTTP / direct at ${jobConcurrency} in flight | ${round((100 * httpPerS) / directAtJobsPerS, 1)}% | | |`] : []),
    ...(failures.length ? ['', `HTTP answers other than 200 in the latency phase: ${failures.map(([s, n]) => `${s}×${n}`).join(', ')}.`] : []),
    ...httpSat.filter((s) => Object.keys(s.counts).some((k) => k !== '200')).map((s) => `\nSaturation answers: ${JSON.stringify(s.counts)}.`),
    ...(profile ? ['', '#### Profile', '', profileMarkdown(profile)] : []),
  ];
  return {
    name: 'inline',
    title: 'Inline path: POST through HTTP against the pipeline called directly',
    data: {
      params,
      text_chars: INLINE_TEXT.length,
      keys: keyCount,
      job_concurrency: jobConcurrency,
      request: req,
      latency: { direct: directLatency, http: httpLatency, server_processing_time: processingLatency, added, http_failures: httpFailures },
      saturation: {
        direct_per_s: directPerS,
        http_per_s: httpPerS,
        ratio: round(httpPerS / directPerS, 3),
        direct_at_job_concurrency_per_s: directAtJobsPerS,
        direct_rounds: directSat,
        http_rounds: httpSat,
        direct_at_job_concurrency_rounds: directAtJobConcurrency,
      },
      profile,
    },
    markdown: md.join('\n'),
    targets,
  };
}
