import { defined } from '../harness/defined.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentServer } from '../harness/agent-server.js';
import { getJob, postTts } from '../harness/api.js';
import { closedLoop, openLoop, type OpenLoopResult, type Outcome } from '../harness/load.js';
import type { BenchContext, BenchmarkOutput, TargetResult } from '../harness/report-types.js';
import { round } from '../harness/stats.js';
import { INLINE_TEXT } from '../harness/texts.js';
import { seedKeys } from './inline.js';

/** Shorter than the default 10 s so that the run stays short; the output says so. */
const INLINE_WAIT_MS = 2000;
const RATE_SHARES = [0.5, 0.8, 1.2] as const;

interface Params {
  inline_wait_ms: number;
  duration_s: number;
  request_timeout_ms: number;
  drain_limit_s: number;
  capacity_probe_s: number;
  warmup_requests: number;
}

interface Step extends Omit<OpenLoopResult, 'counts'> {
  share: number;
  counts: { '200': number; '202': number; other: number; detail: Record<string, number> };
  /** Jobs answered 202, followed by polling until they end. */
  drain: { jobs: number; completed: number; failed: number; unfinished: number; seconds: number };
}

type JobOutcome = Outcome & { jobId?: string; key?: string };

/** Polls the 202 jobs until each ends (bounded), so a step's backlog does not leak into the next. */
async function drain(baseUrl: string, jobs: { jobId: string; key: string }[], limitMs: number): Promise<Step['drain']> {
  const started = performance.now();
  const open = new Map(jobs.map((j) => [j.jobId, j.key]));
  let completed = 0;
  let failed = 0;
  while (open.size > 0 && performance.now() - started < limitMs) {
    for (const [jobId, key] of [...open]) {
      const result = await getJob(baseUrl, key, jobId).catch(() => undefined);
      const state = result?.json?.status;
      if (state === 'processing' || state === undefined) continue;
      open.delete(jobId);
      if (state === 'completed') completed++;
      else failed++;
    }
    if (open.size > 0) await sleep(250);
  }
  return { jobs: jobs.length, completed, failed, unfinished: open.size, seconds: round((performance.now() - started) / 1000, 1) };
}

/** The sender every phase uses: POSTs of the same text, one of many keys per request. */
type Send = () => Promise<JobOutcome>;

/**
 * Capacity is measured on this very server just before the rates, so that machine noise between
 * benchmarks does not skew the percentages; 8 in flight keep the queue full without reaching the wait.
 */
async function probeCapacity(ctx: BenchContext, params: Params, send: Send) {
  const probe = await closedLoop({ concurrency: 8, durationMs: params.capacity_probe_s * 1000, maxRequests: 100_000, send, ok: (o) => o.status === 200 });
  const capacity = probe.ok_per_s;
  const capacitySource =
    `closed-loop probe of ${params.capacity_probe_s} s with 8 requests in flight on this server, just before` +
    (ctx.capacityPerS ? ` (the inline benchmark measured ${ctx.capacityPerS}/s)` : '');
  if (!(capacity > 0)) throw new Error('no capacity measured: the inline path completed nothing');
  ctx.log(`  capacity ${capacity}/s (${capacitySource})`);
  return { probe, capacity, capacitySource };
}

/** Each rate of RATE_SHARES in turn for the step's duration, then its 202 jobs drained. */
async function runSteps(ctx: BenchContext, baseUrl: string, params: Params, send: Send, capacity: number): Promise<Step[]> {
  const steps: Step[] = [];
  for (const share of RATE_SHARES) {
    const rate = capacity * share;
    const result = await openLoop({ ratePerSecond: rate, durationMs: params.duration_s * 1000, send });
    const { outcomes, counts, ...rest } = result;
    const accepted = (outcomes as JobOutcome[]).flatMap(({ status, jobId, key }) => (status === 202 && jobId && key ? [{ jobId, key }] : []));
    const drained = await drain(baseUrl, accepted, params.drain_limit_s * 1000);
    const ok = counts['200'] ?? 0;
    const later = counts['202'] ?? 0;
    steps.push({ ...rest, share, counts: { '200': ok, '202': later, other: result.sent - ok - later, detail: counts }, drain: drained });
    ctx.log(
      `  ${share * 100}% (${round(rate)}/s): 200×${ok} 202×${later} other×${result.sent - ok - later}, p99 ${rest.latency.p99_ms} ms, drained ${drained.completed}/${drained.jobs} in ${drained.seconds} s`,
    );
  }

  return steps;
}

/** The behaviour check: past capacity (120%), requests fall back to 202 rather than time out or fail. */
function fallbackTarget(params: Params, steps: Step[]): TargetResult {
  const over = defined(steps.at(-1), 'the step past capacity');
  const fellBack = over.counts.other === 0 && over.drain.failed === 0 && over.drain.unfinished === 0;
  const noneLost = steps.every((s) => s.counts.other === 0);
  // At 120% the backlog grows by 0.2 s of work per second: it passes the inline wait after wait / 0.2 s.
  const backlogReachesWaitS = INLINE_WAIT_MS / 1000 / (defined(RATE_SHARES.at(-1), 'the last rate share') - 1);
  let note: string | undefined;
  if (fellBack && noneLost && over.counts['202'] === 0) {
    note =
      params.duration_s <= backlogReachesWaitS
        ? `the backlog passes the ${INLINE_WAIT_MS} ms wait only after about ${backlogReachesWaitS} s at 120%, longer than this run's ${params.duration_s} s`
        : 'no request needed the fallback at 120%: the capacity probe was low for this server';
  }
  return {
    id: 'open-loop-fallback',
    target: 'past capacity (120%), requests fall back to 202 rather than time out or fail (behaviour check)',
    measured: `200×${over.counts['200']}, 202×${over.counts['202']}, other×${over.counts.other}; the 202 jobs: ${over.drain.completed} completed, ${over.drain.failed} failed, ${over.drain.unfinished} unfinished after ${over.drain.seconds} s`,
    status: fellBack && noneLost ? (over.counts['202'] > 0 ? 'pass' : 'not evaluated') : 'miss',
    note,
  };
}

/** The report's Markdown: the settings, a row per rate, and what went other than expected. */
function openLoopMarkdown(params: Params, steps: Step[], run: { keyCount: number; capacity: number; capacitySource: string }): string {
  const { keyCount, capacity, capacitySource } = run;
  const md = [
    `Open-loop generator (own timer-driven sender: request i leaves at start + i/rate whatever the earlier answers, unlimited sockets; latency counted from the scheduled send time). ` +
      `**INLINE_WAIT_MS=${INLINE_WAIT_MS}** (shortened from the default 10 s to keep the run short), ${params.duration_s} s per rate, same ${INLINE_TEXT.length}-character text, ${keyCount} keys in turn, ` +
      `client timeout ${params.request_timeout_ms} ms. Capacity ${capacity} completed/s, from a ${capacitySource}. After ${params.warmup_requests} warm-up requests; after each rate the 202 jobs are polled until they end (at most ${params.drain_limit_s} s).`,
    '',
    '| Rate | Sent / s | 200 | 202 | other | p50 ms | p99 ms | p99 of 200s ms | Generator lag p99 ms | 202 jobs completed later |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...steps.map(
      (s) =>
        `| ${s.share * 100}% (${s.target_rate_per_s}/s) | ${s.sent_rate_per_s} | ${s.counts['200']} | ${s.counts['202']} | ${s.counts.other} | ${s.latency.p50_ms} | ${s.latency.p99_ms} | ${s.latency_by_status['200']?.p99_ms ?? '–'} | ${s.send_lag_p99_ms} | ${s.drain.completed}/${s.drain.jobs} in ${s.drain.seconds} s |`,
    ),
    ...steps.filter((s) => s.counts.other > 0).map((s) => `\nAt ${s.share * 100}%, answers other than 200/202: ${JSON.stringify(s.counts.detail)}.`),
    ...steps
      .filter((s) => s.share < 1 && s.counts['202'] > 0)
      .map(
        (s) =>
          `\nAt ${s.share * 100}%, ${s.counts['202']} requests waited past the ${INLINE_WAIT_MS} ms inline wait: during this step the server completed fewer jobs per second than the probe measured (its share of a shared machine varies), and they fell back to 202.`,
      ),
  ];
  return md.join('\n');
}

export async function runOpenLoop(ctx: BenchContext): Promise<BenchmarkOutput> {
  const params: Params = ctx.quick
    ? { inline_wait_ms: INLINE_WAIT_MS, duration_s: 4, request_timeout_ms: INLINE_WAIT_MS + 10_000, drain_limit_s: 30, capacity_probe_s: 3, warmup_requests: 3 }
    : {
        inline_wait_ms: INLINE_WAIT_MS,
        duration_s: 20,
        request_timeout_ms: INLINE_WAIT_MS + 10_000,
        drain_limit_s: 120,
        capacity_probe_s: 8,
        warmup_requests: 10,
      };
  ctx.log(`open-loop: INLINE_WAIT_MS=${INLINE_WAIT_MS} (shortened from the default 10000 to keep the run short)`);
  const server = await AgentServer.start({
    label: 'open-loop',
    env: { RATE_POST_LIMIT: '100000000', RATE_GET_LIMIT: '100000000', INLINE_WAIT_MS: String(INLINE_WAIT_MS) },
    synthThreads: ctx.synthThreads,
  });
  try {
    const keyCount = seedKeys(ctx.quick);
    const keys = (await server.seed(keyCount)).keys.active;
    let n = 0;
    const send: Send = async () => {
      const key = defined(keys[n++ % keys.length], 'a key of the seeded fixtures');
      const result = await postTts(server.baseUrl, key, INLINE_TEXT, params.request_timeout_ms);
      return { status: result.status, key, jobId: typeof result.json?.job_id === 'string' ? result.json.job_id : undefined };
    };

    // A fresh server's synthesis threads compile their engines on first use: warm them before any rate.
    for (let i = 0; i < params.warmup_requests; i++) await send();
    const { probe, capacity, capacitySource } = await probeCapacity(ctx, params, send);
    const steps = await runSteps(ctx, server.baseUrl, params, send, capacity);
    return {
      name: 'open-loop',
      title: 'Open-loop load on the inline path at 50%, 80% and 120% of capacity',
      data: { params, capacity_per_s: capacity, capacity_source: capacitySource, capacity_probe: probe, inline_capacity_per_s: ctx.capacityPerS, steps },
      markdown: openLoopMarkdown(params, steps, { keyCount, capacity, capacitySource }),
      targets: [fallbackTarget(params, steps)],
    };
  } finally {
    await server.stop();
  }
}
