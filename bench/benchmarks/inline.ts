import { defined } from '../harness/defined.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SynthesisRequest } from '@agent-tts/server';
import { AgentServer } from '../harness/agent-server.js';
import { completedJob, describeFailure, postTts } from '../harness/api.js';
import { DirectPipeline, defaultSynthesisRequest } from '../harness/direct-pipeline.js';
import { closedLoop, type ClosedLoopResult, type Outcome } from '../harness/load.js';
import { monotonicUs, readProfile, type ProfileSummary } from '../harness/profile.js';
import type { BenchContext, BenchmarkOutput } from '../harness/report-types.js';
import { summarizeLatency } from '../harness/stats.js';
import { INLINE_TEXT } from '../harness/texts.js';
import { type InlineLatency, type InlineParams, type InlineSaturation, inlineReport } from './inline-report.js';

/**
 * The inline benchmark: a short text POSTed through HTTP (answered 200 within the inline wait) against
 * the pipeline called directly in this process. Its phases: the server and the pipeline, warm-up,
 * latency one request at a time, saturation with many in flight, the report (inline-report.ts).
 */

/** Keys the inline and open-loop servers are seeded with, used in turn (the rate limits are raised as well). */
export const seedKeys = (quick: boolean) => (quick ? 20 : 200);

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
    const key = defined(this.keys[this.n++ % this.keys.length], 'a key of the seeded fixtures');
    const result = await postTts(this.baseUrl, key, text, this.timeoutMs);
    if (result.status === 200) {
      const meta = result.json?.meta as { processing_time_ms?: number } | undefined;
      if (typeof meta?.processing_time_ms === 'number') this.processingMs.push(meta.processing_time_ms);
    }
    return { status: result.status, ms: result.ms, ...(result.status === 200 ? {} : { error: describeFailure(result) }) };
  }
}

/** The two paths side by side: the direct pipeline and HTTP, with the request both make. */
interface Paths {
  direct: DirectPipeline;
  http: HttpPath;
  req: SynthesisRequest;
}

/** Seeds the server's keys and checks that its job is the direct request: same voice, language and speed. */
export async function preparePaths(server: AgentServer, direct: DirectPipeline, keyCount: number): Promise<Paths> {
  const req = defaultSynthesisRequest(INLINE_TEXT);
  const fixtures = await server.seed(keyCount);
  const http = new HttpPath(server.baseUrl, fixtures.keys.active, 60_000);
  const first = await completedJob(server.baseUrl, defined(fixtures.keys.active[0], 'the first active key of the seeded fixtures'), INLINE_TEXT);
  const audio = first.audio as { voice?: string; language?: string; speed?: number } | undefined;
  if (audio?.voice !== req.voice || audio.language !== req.language || audio.speed !== req.speed) {
    throw new Error(`the server's job does not match the direct request ${JSON.stringify(req)}: ${JSON.stringify(first).slice(0, 300)}`);
  }
  return { direct, http, req };
}

/** Warms every synthesis thread on both sides (each compiles its engine on first use), then the paths. */
export async function warmUp(ctx: BenchContext, { direct, http, req }: Paths, params: Pick<InlineParams, 'warmup'>): Promise<void> {
  await Promise.all(Array.from({ length: ctx.synthThreads * 2 }, () => direct.once(req)));
  await Promise.all(Array.from({ length: ctx.synthThreads * 2 }, () => http.once(INLINE_TEXT)));
  for (let i = 0; i < params.warmup; i++) {
    await direct.once(req);
    await http.once(INLINE_TEXT);
  }
}

/**
 * Latency: one request at a time, alternating direct and HTTP request by request (in ABBA order), so
 * that a burst of noise from the shared machine falls on both sides alike.
 */
export async function measureLatency(ctx: BenchContext, { direct, http, req }: Paths, params: Pick<InlineParams, 'latency_pairs'>): Promise<InlineLatency> {
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
  const latency = {
    direct: summarizeLatency(directMs),
    http: summarizeLatency(httpMs),
    processing: summarizeLatency(http.processingMs.slice(-httpMs.length)),
    httpFailures,
  };
  ctx.log(`  latency p50: direct ${latency.direct.p50_ms} ms, HTTP ${latency.http.p50_ms} ms`);
  return latency;
}

/** A closed loop of `concurrency` requests in flight for a saturation round. */
function saturate(params: InlineParams, concurrency: number, send: () => Promise<Outcome>): Promise<ClosedLoopResult> {
  return closedLoop({ concurrency, durationMs: params.saturation_s * 1000, maxRequests: 100_000, send, ok: (o) => o.status === 200 });
}

/**
 * Saturation: many requests in flight, completions per second, the sides in alternating order. In
 * full runs also the pipeline with as many calls in flight as the server runs jobs at once: that
 * separates the cost of the queue's concurrency from the cost of HTTP and the job bookkeeping.
 */
async function measureSaturation(ctx: BenchContext, { direct, http, req }: Paths, params: InlineParams, jobConcurrency: number): Promise<InlineSaturation> {
  const directSend = async () => {
    await direct.once(req);
    return { status: 200 };
  };
  const saturation: InlineSaturation = { direct: [], http: [], directAtJobConcurrency: [] };
  for (let r = 0; r < params.saturation_rounds; r++) {
    const runDirect = async () => saturation.direct.push(await saturate(params, params.concurrency, directSend));
    const runHttp = async () => saturation.http.push(await saturate(params, params.concurrency, () => http.once(INLINE_TEXT)));
    if (r % 2 === 0) {
      await runDirect();
      await runHttp();
    } else {
      await runHttp();
      await runDirect();
    }
    if (!ctx.quick) saturation.directAtJobConcurrency.push(await saturate(params, jobConcurrency, directSend));
    ctx.log(`  saturation round ${r + 1}: direct ${saturation.direct.at(-1)?.ok_per_s}/s, HTTP ${saturation.http.at(-1)?.ok_per_s}/s`);
  }
  return saturation;
}

export async function runInline(ctx: BenchContext): Promise<BenchmarkOutput> {
  const params: InlineParams = ctx.quick
    ? { warmup: 3, latency_pairs: 12, saturation_rounds: 1, saturation_s: 3, concurrency: 8 }
    : { warmup: 10, latency_pairs: 200, saturation_rounds: 2, saturation_s: 10, concurrency: 16 };
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
    const paths = await preparePaths(server, direct, keyCount);
    // Jobs the server synthesizes at once (its JOB_CONCURRENCY, default included); the rest queue.
    const jobConcurrency = server.config().jobConcurrency;
    await warmUp(ctx, paths, params);
    const window = { startUs: monotonicUs(), endUs: 0 };
    const latency = await measureLatency(ctx, paths, params);
    const saturation = await measureSaturation(ctx, paths, params, jobConcurrency);
    window.endUs = monotonicUs();
    let profile: ProfileSummary | undefined;
    if (profileDir) {
      await server.stop();
      profile = await readProfile(profileDir, window);
    }
    return inlineReport(ctx, { params, keyCount, jobConcurrency, req: paths.req, latency, saturation, profile });
  } finally {
    await direct.close();
    await server.stop();
  }
}
