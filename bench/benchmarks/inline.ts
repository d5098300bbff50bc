import { mkdir, mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMITS } from '@agent-tts/contract/limits.js';
import { DEFAULT_VOICE, parseVoice, resolveLanguage } from '@agent-tts/contract/voices.js';
import type { SynthesisRequest, Synthesizer } from '@agent-tts/server/ports/index.js';
import { createSynthesizer } from '@agent-tts/server/synth/index.js';
import { AgentServer } from '../harness/agent-server.js';
import { completedJob, describeFailure, postTts } from '../harness/api.js';
import { closedLoop, type ClosedLoopResult, type Outcome } from '../harness/load.js';
import { monotonicUs, profileMarkdown, readProfile, type ProfileSummary } from '../harness/profile.js';
import { status, type BenchContext, type BenchmarkOutput, type TargetResult } from '../harness/report-types.js';
import { mean, round, summarizeLatency, type LatencySummary } from '../harness/stats.js';
import { INLINE_TEXT } from '../harness/texts.js';

/** Inline path target: latency the API adds over the direct pipeline call, at p50. */
const TARGET_ADDED_P50_MS = 2;
/** Keys the inline and open-loop servers are seeded with, used in turn (the rate limits are raised as well). */
export const seedKeys = (quick: boolean) => (quick ? 20 : 200);

interface Params {
  warmup: number;
  /** Pairs of one direct call and one HTTP request. */
  latency_pairs: number;
  saturation_rounds: number;
  saturation_s: number;
  concurrency: number;
}

/** The request the server builds from `{ text }` alone: default voice, its language, default speed. */
export function defaultSynthesisRequest(text: string): SynthesisRequest {
  const voice = parseVoice(DEFAULT_VOICE)!;
  return { text, voice: voice.id, language: resolveLanguage(voice, undefined), speed: LIMITS.speedDefault };
}

/** The pipeline called in this process, as the server's job runner calls it, one file per call. */
export class DirectPipeline {
  private n = 0;
  private constructor(
    private readonly synth: Synthesizer,
    private readonly dir: string,
  ) {}

  static async create(threads: number): Promise<DirectPipeline> {
    return new DirectPipeline(createSynthesizer({ threads }), await mkdtemp(join(tmpdir(), 'agent-tts-bench-direct-')));
  }

  async once(req: SynthesisRequest): Promise<number> {
    return (await this.run(req)).ms;
  }

  async run(req: SynthesisRequest): Promise<{ ms: number; audioSeconds: number; bytes: number }> {
    const out = join(this.dir, `${this.n++}.mp3`);
    const started = performance.now();
    const result = await this.synth.synthesizeToFile(req, out);
    const ms = performance.now() - started;
    await unlink(out);
    return { ms, audioSeconds: result.durationSeconds, bytes: result.bytes };
  }

  async close(): Promise<void> {
    await this.synth.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** POSTs through HTTP, one of many keys per request, so no key's rate limit is what gets measured. */
class HttpPath {
  private n = 0;
  readonly processingMs: number[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly keys: string[],
    private readonly timeoutMs: number,
  ) {}

  async once(text: string): Promise<Outcome & { ms: number }> {
    const key = this.keys[this.n++ % this.keys.length]!;
    const result = await postTts(this.baseUrl, key, text, this.timeoutMs);
    if (result.status === 200) {
      const meta = result.json?.meta as { processing_time_ms?: number } | undefined;
      if (typeof meta?.processing_time_ms === 'number') this.processingMs.push(meta.processing_time_ms);
    }
    return { status: result.status, ms: result.ms, ...(result.status === 200 ? {} : { error: describeFailure(result) }) };
  }
}

export async function runInline(ctx: BenchContext): Promise<BenchmarkOutput> {
  const params: Params = ctx.quick
    ? { warmup: 3, latency_pairs: 12, saturation_rounds: 1, saturation_s: 3, concurrency: 8 }
    : { warmup: 10, latency_pairs: 200, saturation_rounds: 2, saturation_s: 10, concurrency: 16 };
  const req = defaultSynthesisRequest(INLINE_TEXT);
  const keyCount = seedKeys(ctx.quick);
  ctx.log(`inline: ${INLINE_TEXT.length}-character text, ${keyCount} keys, SYNTH_THREADS=${ctx.synthThreads}`);
  const profileDir = ctx.profileDir ? join(ctx.profileDir, 'inline') : undefined;
  if (profileDir) await mkdir(profileDir, { recursive: true });
  const server = await AgentServer.start({
    label: 'inline',
    env: { RATE_POST_LIMIT: '100000000', RATE_GET_LIMIT: '100000000' },
    synthThreads: ctx.synthThreads,
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : undefined,
  });
  const direct = await DirectPipeline.create(ctx.synthThreads);
  try {
    const fixtures = await server.seed(keyCount);
    // Jobs the server synthesizes at once (its JOB_CONCURRENCY, default included); the rest queue.
    const jobConcurrency = server.config().jobConcurrency;
    const http = new HttpPath(server.baseUrl, fixtures.keys.active, 60_000);
    const first = await completedJob(server.baseUrl, fixtures.keys.active[0]!, INLINE_TEXT);
    const audio = first.audio as { voice?: string; language?: string; speed?: number } | undefined;
    if (audio?.voice !== req.voice || audio.language !== req.language || audio.speed !== req.speed) {
      throw new Error(`the server's job does not match the direct request ${JSON.stringify(req)}: ${JSON.stringify(first).slice(0, 300)}`);
    }

    // Warm every synthesis thread on both sides (each compiles its engine on first use), then the paths.
    await Promise.all(Array.from({ length: ctx.synthThreads * 2 }, () => direct.once(req)));
    await Promise.all(Array.from({ length: ctx.synthThreads * 2 }, () => http.once(INLINE_TEXT)));
    for (let i = 0; i < params.warmup; i++) {
      await direct.once(req);
      await http.once(INLINE_TEXT);
    }

    // Latency: one request at a time, alternating direct and HTTP request by request (in ABBA order), so
    // that a burst of noise from the shared machine falls on both sides alike.
    const window = { startUs: monotonicUs(), endUs: 0 };
    const directMs: number[] = [];
    const httpMs: number[] = [];
    const httpFailures: Record<string, number> = {};
    const directOnce = async () => directMs.push(await direct.once(req));
    const httpOnce = async () => {
      const outcome = await http.once(INLINE_TEXT);
      if (outcome.status === 200) httpMs.push(outcome.ms);
      else httpFailures[String(outcome.status)] = (httpFailures[String(outcome.status)] ?? 0) + 1;
    };
    for (let i = 0; i < params.latency_pairs; i++) {
      if (i % 2 === 0) {
        await directOnce();
        await httpOnce();
      } else {
        await httpOnce();
        await directOnce();
      }
    }
    const directLatency = summarizeLatency(directMs);
    const httpLatency = summarizeLatency(httpMs);
    const processingLatency = summarizeLatency(http.processingMs.slice(-httpMs.length));
    ctx.log(`  latency p50: direct ${directLatency.p50_ms} ms, HTTP ${httpLatency.p50_ms} ms`);

    // Saturation: many requests in flight, completions per second.
    const directSat: ClosedLoopResult[] = [];
    const httpSat: ClosedLoopResult[] = [];
    // The pipeline with as many calls in flight as the server runs jobs at once: separates the cost of
    // the queue's concurrency from the cost of HTTP and the job bookkeeping (full runs only).
    const directAtJobConcurrency: ClosedLoopResult[] = [];
    for (let r = 0; r < params.saturation_rounds; r++) {
      const runDirect = async () =>
        directSat.push(
          await closedLoop({
            concurrency: params.concurrency,
            durationMs: params.saturation_s * 1000,
            maxRequests: 100_000,
            send: async () => {
              await direct.once(req);
              return { status: 200 };
            },
            ok: (o) => o.status === 200,
          }),
        );
      const runHttp = async () =>
        httpSat.push(
          await closedLoop({
            concurrency: params.concurrency,
            durationMs: params.saturation_s * 1000,
            maxRequests: 100_000,
            send: () => http.once(INLINE_TEXT),
            ok: (o) => o.status === 200,
          }),
        );
      if (r % 2 === 0) {
        await runDirect();
        await runHttp();
      } else {
        await runHttp();
        await runDirect();
      }
      if (!ctx.quick) {
        directAtJobConcurrency.push(
          await closedLoop({
            concurrency: jobConcurrency,
            durationMs: params.saturation_s * 1000,
            maxRequests: 100_000,
            send: async () => {
              await direct.once(req);
              return { status: 200 };
            },
            ok: (o) => o.status === 200,
          }),
        );
      }
      ctx.log(`  saturation round ${r + 1}: direct ${directSat.at(-1)!.ok_per_s}/s, HTTP ${httpSat.at(-1)!.ok_per_s}/s`);
    }
    window.endUs = monotonicUs();
    let profile: ProfileSummary | undefined;
    if (profileDir) {
      await server.stop();
      profile = await readProfile(profileDir, window);
    }
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
      `| direct pipeline | ${directPerS} | ${sat(directSat)} | ${directSat[0]!.latency.p50_ms} / ${directSat[0]!.latency.p99_ms} |`,
      `| HTTP | ${httpPerS} | ${sat(httpSat)} | ${httpSat[0]!.latency.p50_ms} / ${httpSat[0]!.latency.p99_ms} |`,
      ...(directAtJobConcurrency.length
        ? [
            `| direct pipeline, ${jobConcurrency} in flight (= the server's JOB_CONCURRENCY) | ${directAtJobsPerS} | ${sat(directAtJobConcurrency)} | ${directAtJobConcurrency[0]!.latency.p50_ms} / ${directAtJobConcurrency[0]!.latency.p99_ms} |`,
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
  } finally {
    await direct.close();
    await server.stop();
  }
}
