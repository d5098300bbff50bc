import { setTimeout as sleep } from 'node:timers/promises';
import { round, summarizeLatency, type LatencySummary } from './stats.js';

/** What one request came to: an HTTP status, or a client-side failure (timeout, connection error). */
export interface Outcome {
  status?: number;
  error?: string;
}

interface StatusCounts {
  [status: string]: number;
}

function countOutcome(counts: StatusCounts, outcome: Outcome): void {
  const key = outcome.status !== undefined ? String(outcome.status) : `error: ${outcome.error ?? 'unknown'}`;
  counts[key] = (counts[key] ?? 0) + 1;
}

async function settle(send: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await send();
  } catch (error) {
    return { error: error instanceof Error ? error.message.replace(/[0-9a-f-]{36}/g, '<id>') : String(error) };
  }
}

export interface ClosedLoopResult {
  concurrency: number;
  elapsed_s: number;
  counts: StatusCounts;
  /** Responses with the expected status per second of the measured window. */
  ok_per_s: number;
  latency: LatencySummary;
}

/**
 * `concurrency` clients, each sending its next request when the previous one answers, for `durationMs`
 * (and at most `maxRequests` in all). Requests still in flight at the end are awaited and counted, but
 * only answers within the window make the rate.
 */
export async function closedLoop(opts: {
  concurrency: number;
  durationMs: number;
  maxRequests: number;
  send: (index: number) => Promise<Outcome>;
  ok: (outcome: Outcome) => boolean;
}): Promise<ClosedLoopResult> {
  const started = performance.now();
  const deadline = started + opts.durationMs;
  const counts: StatusCounts = {};
  const latencies: number[] = [];
  let okInWindow = 0;
  let issued = 0;
  const client = async () => {
    while (performance.now() < deadline && issued < opts.maxRequests) {
      const index = issued++;
      const t0 = performance.now();
      const outcome = await settle(() => opts.send(index));
      const t1 = performance.now();
      countOutcome(counts, outcome);
      latencies.push(t1 - t0);
      if (opts.ok(outcome) && t1 <= deadline) okInWindow++;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, client));
  const windowS = Math.min(performance.now(), deadline) - started;
  return {
    concurrency: opts.concurrency,
    elapsed_s: round((performance.now() - started) / 1000),
    counts,
    ok_per_s: round(okInWindow / (windowS / 1000)),
    latency: summarizeLatency(latencies),
  };
}

export interface OpenLoopResult {
  target_rate_per_s: number;
  /** Rate the generator really achieved: sends over the sending window. */
  sent_rate_per_s: number;
  sent: number;
  counts: StatusCounts;
  /** From each request's scheduled send time to its answer, so a late send counts against the server. */
  latency: LatencySummary;
  latency_by_status: Record<string, LatencySummary>;
  /** How far behind schedule the generator itself fell (its own event loop), p99: should be ~0. */
  send_lag_p99_ms: number;
}

/**
 * Open-loop generator: request i is sent at start + i / rate whatever happened to earlier ones
 * (no waiting for answers, unlimited sockets), for `durationMs`. Then waits for every answer (each
 * bounded by the sender's own timeout).
 */
export async function openLoop(opts: {
  ratePerSecond: number;
  durationMs: number;
  send: (index: number) => Promise<Outcome>;
}): Promise<OpenLoopResult & { outcomes: Outcome[] }> {
  const total = Math.max(1, Math.floor((opts.ratePerSecond * opts.durationMs) / 1000));
  const intervalMs = 1000 / opts.ratePerSecond;
  const started = performance.now();
  const counts: StatusCounts = {};
  const latencies: number[] = [];
  const byStatus = new Map<string, number[]>();
  const lags: number[] = [];
  const outcomes: Outcome[] = [];
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const scheduled = started + i * intervalMs;
    const wait = scheduled - performance.now();
    if (wait > 1) await sleep(wait);
    lags.push(Math.max(0, performance.now() - scheduled));
    pending.push(
      settle(() => opts.send(i)).then((outcome) => {
        const ms = performance.now() - scheduled;
        countOutcome(counts, outcome);
        outcomes.push(outcome);
        latencies.push(ms);
        const key = outcome.status !== undefined ? String(outcome.status) : 'error';
        const list = byStatus.get(key) ?? [];
        list.push(ms);
        byStatus.set(key, list);
      }),
    );
  }
  const sendWindowS = (performance.now() - started) / 1000;
  await Promise.all(pending);
  return {
    target_rate_per_s: round(opts.ratePerSecond),
    sent_rate_per_s: round(total > 1 ? (total - 1) / sendWindowS : total),
    sent: total,
    counts,
    latency: summarizeLatency(latencies),
    latency_by_status: Object.fromEntries([...byStatus].map(([k, v]) => [k, summarizeLatency(v)])),
    send_lag_p99_ms: summarizeLatency(lags).p99_ms,
    outcomes,
  };
}
