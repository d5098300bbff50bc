import autocannon from 'autocannon';
import { round } from './stats.js';

export interface CannonFigures {
  /** 2xx answers per second over the run. */
  rps: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  duration_s: number;
}

/** Closed-loop autocannon run (fixed connections, no rate cap) against one URL. */
export async function cannon(url: string, opts: { connections: number; durationS: number; headers?: Record<string, string> }): Promise<CannonFigures> {
  const result = await autocannon({ url, connections: opts.connections, duration: opts.durationS, headers: opts.headers, timeout: 10 });
  return {
    rps: round(result['2xx'] / result.duration, 0),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    duration_s: round(result.duration),
  };
}
