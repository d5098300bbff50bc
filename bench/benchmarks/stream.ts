import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { chunkText } from '@agent-tts/server/synth';
import { AgentServer } from '../harness/agent-server.js';
import { defined } from '../harness/defined.js';
import { describeFailure, getJob, pollUntilDone, postTts } from '../harness/api.js';
import { DirectPipeline, defaultSynthesisRequest } from '../harness/direct-pipeline.js';
import { MB, RssSampler, procCpuSeconds } from '../harness/proc.js';
import type { BenchContext, BenchmarkOutput } from '../harness/report-types.js';
import { median, round } from '../harness/stats.js';
import { hashDownload, type Listened, listenToStream } from '../harness/stream-listener.js';
import { proseOfLength } from '../harness/texts.js';
import { looksLikeMp3 } from './long.js';
import {
  type BaselineFigures,
  baselineFigures,
  deliveryFigures,
  FULL_CHARS,
  type ListenerFigures,
  type LongRun,
  listenerFigures,
  type ServerWrite,
  type StreamFigures,
  type StreamParams,
  streamMarkdown,
  streamTargets,
} from './stream-report.js';

/**
 * The stream benchmark (issue 41, docs/api-rules.md#streaming-audio): a job's audio listened to from its
 * 202 while it is made. A text of half a million characters through a fresh embedded server, once with
 * one listener and once with many on a fresh server again; short jobs' first byte; against the pipeline
 * called directly, timed at its sink. Its phases: the baselines, the servers and their warm-up, the jobs,
 * the report (stream-report.ts).
 */

/** The pipeline called directly: the first part of the text, the short text, and the longest chunks each alone. */
async function measureBaselines(ctx: BenchContext, p: StreamParams, text: string) {
  ctx.log(
    `stream: baseline, ${p.baseline_chars.toLocaleString('en')} and ${p.short_chars.toLocaleString('en')} characters through the pipeline called directly`,
  );
  const direct = await DirectPipeline.create(ctx.synthThreads);
  try {
    await Promise.all(Array.from({ length: ctx.synthThreads * 2 }, () => direct.once(defaultSynthesisRequest(text.slice(0, 200)))));
    const baseline = baselineFigures(p.baseline_chars, await direct.timed(defaultSynthesisRequest(text.slice(0, p.baseline_chars))));
    const shortText = proseOfLength(p.short_chars);
    const short: BaselineFigures[] = [];
    for (let i = 0; i < p.short_rounds; i++) short.push(baselineFigures(p.short_chars, await direct.timed(defaultSynthesisRequest(shortText))));
    const request = defaultSynthesisRequest(text);
    const longest = chunkText(text, { locale: request.language })
      .sort((a, b) => b.text.length - a.text.length)
      .slice(0, p.solo_chunks);
    const soloMs: number[] = [];
    for (const chunk of longest) soloMs.push((await direct.timed(defaultSynthesisRequest(chunk.text))).ms);
    const soloChunk = {
      count: longest.length,
      longest_chars: longest[0]?.text.length ?? 0,
      longest_ms: round(Math.max(...soloMs), 1),
      median_ms: round(median(soloMs), 1),
    };
    return { baseline, short, soloChunk };
  } finally {
    await direct.close();
  }
}

/** A fresh embedded server whose POST answers 202 at once, warmed up like the baseline. */
async function startServer(ctx: BenchContext, label: string, text: string): Promise<{ server: AgentServer; key: string }> {
  const server = await AgentServer.start({
    label,
    // LOG_LEVEL=debug: a record per write of a job's audio, the server's own timeline of the stream.
    env: { RATE_GET_LIMIT: '100000000', RATE_POST_LIMIT: '100000000', INLINE_WAIT_MS: '0', LOG_LEVEL: 'debug' },
    synthThreads: ctx.synthThreads,
  });
  try {
    const key = defined((await server.seed(1)).keys.active[0], 'the first active key of the seeded fixtures');
    await Promise.all(
      Array.from({ length: ctx.synthThreads * 2 }, async () => {
        const warm = await postTts(server.baseUrl, key, text.slice(0, 200), 60_000);
        const end = warm.status === 202 ? await pollUntilDone(server.baseUrl, key, String(warm.json?.job_id), 60_000) : warm.json;
        if (end?.status !== 'completed') throw new Error(`warm-up failed: ${describeFailure(warm)}`);
      }),
    );
    return { server, key };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** POST → 202 → `listeners` listeners of its stream_url opened at once → the job completed → audio_url hashed. */
async function listenToJob(server: AgentServer, key: string, text: string, listeners: number, limitS: number) {
  const posted = await postTts(server.baseUrl, key, text, 60_000);
  const answeredAt = performance.now();
  const streamUrl = posted.json?.stream_url;
  if (posted.status !== 202 || typeof streamUrl !== 'string') throw new Error(`expected a 202 with a stream_url: ${describeFailure(posted)}`);
  const jobId = String(posted.json?.job_id);
  let statusAtFirstByte: Promise<string> | undefined;
  const onFirstByte = () => {
    statusAtFirstByte = getJob(server.baseUrl, key, jobId).then((r) => String(r.json?.status));
  };
  const heard: Listened[] = await Promise.all(
    Array.from({ length: listeners }, (_, i) =>
      listenToStream(streamUrl, { timeoutMs: limitS * 1000, keepHeadBytes: 16, onFirstByte: i === 0 ? onFirstByte : undefined }),
    ),
  );
  const done = await pollUntilDone(server.baseUrl, key, jobId, limitS * 1000);
  if (done.status !== 'completed') throw new Error(`the job ended ${String(done.status)}: ${JSON.stringify(done).slice(0, 300)}`);
  const audio = await hashDownload(String(done.audio_url), 120_000);
  if (audio.status !== 200) throw new Error(`audio_url answered ${audio.status}`);
  for (const l of heard) {
    if (l.status !== 200 || !looksLikeMp3(l.head)) throw new Error(`a listener got HTTP ${l.status}, ${l.bytes} bytes, head ${l.head.toString('hex')}`);
  }
  const audioSeconds = Number((done.audio as { duration_seconds?: number }).duration_seconds);
  const figures: ListenerFigures[] = heard.map((l) => listenerFigures(l, answeredAt, audioSeconds, audio));
  return { posted, jobId, heard, figures, audioSeconds, audio, statusAtFirstByte: (await statusAtFirstByte) ?? 'no byte arrived' };
}

/** The long job with `listeners` listeners on a fresh server, and the server's CPU and memory around it. */
async function longRun(ctx: BenchContext, p: StreamParams, text: string, listeners: number, then?: (server: AgentServer, key: string) => Promise<void>) {
  ctx.log(`stream: ${p.chars.toLocaleString('en')} characters, ${listeners} listener(s) from the 202`);
  const { server, key } = await startServer(ctx, `stream-${listeners}`, text);
  const sampler = new RssSampler({ server: server.pid, client: 'self' }, 200);
  let sampled: ReturnType<typeof sampler.stop> | undefined;
  try {
    const load0 = loadavg()[0] ?? Number.NaN;
    const cpu0 = procCpuSeconds(server.pid) ?? Number.NaN;
    const job = await listenToJob(server, key, text, listeners, p.limit_s);
    const serverCpuS = (procCpuSeconds(server.pid) ?? Number.NaN) - cpu0;
    const hwm = server.process.peakRssBytes();
    sampled = sampler.stop();
    const jobLog = (await server.logRecords('job completed')).find((r) => r.job_id === job.jobId);
    const writes: ServerWrite[] = (await server.logRecords('live audio written'))
      .filter((r) => r.job_id === job.jobId && typeof r.live_bytes === 'number' && typeof r.at_ms === 'number')
      .map((r) => ({ bytes: Number(r.live_bytes), atMs: Number(r.at_ms) }));
    const firstHeard = job.heard[0];
    const run: LongRun = {
      listeners: job.figures,
      post_ms: round(job.posted.ms, 1),
      post_status: job.posted.status,
      status_at_first_byte: job.statusAtFirstByte,
      server_synthesis_s: typeof jobLog?.wall_ms === 'number' ? round(jobLog.wall_ms / 1000, 1) : undefined,
      delivery: writes.length > 1 && firstHeard ? deliveryFigures(writes, firstHeard) : undefined,
      audio_seconds: round(job.audioSeconds, 1),
      mp3_bytes: job.audio.bytes,
      server_cpu_s: round(serverCpuS, 1),
      server_peak_rss_mb: hwm === undefined ? undefined : round(hwm / MB, 1),
      server_sampled_peak_rss_mb: round(sampled.server.peak_rss_bytes / MB, 1),
      client_sampled_peak_rss_mb: round(sampled.client.peak_rss_bytes / MB, 1),
      loadavg_1m: [round(load0, 2), round(loadavg()[0] ?? Number.NaN, 2)],
    };
    const first = job.figures[0];
    ctx.log(
      `  first byte ${first?.ttfb_ms} ms after the 202, ended after ${first?.end_after_s} s, longest wait ${first?.gaps.longest_ms} ms (the server's own writes: ${run.delivery?.server_gaps.longest_ms ?? '–'} ms; delivery p99 ${run.delivery?.latency_ms.p99 ?? '–'} ms), server peak ${run.server_peak_rss_mb} MB`,
    );
    await then?.(server, key);
    return run;
  } finally {
    if (!sampled) sampler.stop();
    await server.stop();
  }
}

/** Short jobs one after another on a warm server, each listened to from its 202. */
async function shortJobs(ctx: BenchContext, p: StreamParams, server: AgentServer, key: string): Promise<ListenerFigures[]> {
  ctx.log(`stream: ${p.short_rounds} jobs of ${p.short_chars.toLocaleString('en')} characters`);
  const text = proseOfLength(p.short_chars);
  const out: ListenerFigures[] = [];
  for (let i = 0; i < p.short_rounds; i++) {
    out.push(...(await listenToJob(server, key, text, 1, 120)).figures);
    await sleep(200);
  }
  ctx.log(`  first byte after the 202: ${out.map((l) => l.ttfb_ms).join(', ')} ms`);
  return out;
}

export async function runStream(ctx: BenchContext): Promise<BenchmarkOutput> {
  const p: StreamParams = ctx.quick
    ? { chars: 20_000, baseline_chars: 20_000, short_chars: 1_000, short_rounds: 2, listeners: 3, solo_chunks: 2, limit_s: 120 }
    : { chars: FULL_CHARS, baseline_chars: FULL_CHARS, short_chars: 5_000, short_rounds: 5, listeners: 20, solo_chunks: 5, limit_s: 1800 };
  const text = proseOfLength(p.chars);
  const { baseline, short: shortBaseline, soloChunk } = await measureBaselines(ctx, p, text);
  ctx.log(`  direct: first chunk ${baseline.first_chunk_ms} ms, ${baseline.audio_seconds_per_s} audio s/s; one chunk alone up to ${soloChunk.longest_ms} ms`);
  let short: ListenerFigures[] = [];
  const one = await longRun(ctx, p, text, 1, async (server, key) => {
    short = await shortJobs(ctx, p, server, key);
  });
  const many = await longRun(ctx, p, text, p.listeners);
  const figures: StreamFigures = { params: p, baseline, short_baseline: shortBaseline, solo_chunk: soloChunk, short, one, many };
  return {
    name: 'stream',
    title: `Streaming: ${p.chars.toLocaleString('en')} characters listened to from the 202`,
    data: { ...figures },
    markdown: streamMarkdown(ctx, figures),
    targets: streamTargets(ctx, figures),
  };
}
