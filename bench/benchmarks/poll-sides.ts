import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { API_PATH } from '@agent-tts/contract/limits.js';
import { AgentServer } from '../harness/agent-server.js';
import { defined } from '../harness/defined.js';
import { completedJob, describeFailure, getJob } from '../harness/api.js';
import { cannon, type CannonFigures } from '../harness/cannon.js';
import { procCpuSeconds } from '../harness/proc.js';
import { monotonicUs, type ProfileWindow } from '../harness/profile.js';
import type { BenchContext } from '../harness/report-types.js';
import { median, round } from '../harness/stats.js';
import { INLINE_TEXT } from '../harness/texts.js';

/**
 * The sides of the poll benchmark (a baseline or a server's poll URL), how they are started, and how
 * they are measured: autocannon in alternating rounds, with the serving process's CPU time per request.
 */

export const RAISED_LIMITS = { RATE_GET_LIMIT: '100000000', RATE_POST_LIMIT: '100000000' };
/** The server's default window: the lean handler counts in the same one, so its headers are alike. */
export const WINDOW_SECONDS = '60';

export interface Params {
  rounds: number;
  duration_s: number;
  warmup_s: number;
  connections: number;
}

/** One thing autocannon loads: a baseline or a server's poll URL. */
export interface Side {
  name: string;
  url: string;
  headers?: Record<string, string>;
  /** The serving process, whose CPU time per request is measured alongside. */
  pid: number;
}

export interface SideFigures {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  /**
   * CPU time (user + system, all threads, from /proc) of the serving process per answered request: the
   * cost of a poll, which a busy machine changes far less than it changes requests per second. For the
   * Redis side it leaves out the Redis server's own work.
   */
  cpu_us_per_request: number;
  rounds: Round[];
}

type Round = CannonFigures & { cpu_s: number };

export interface Ratio {
  /** Requests per second of one side over the other's, over all rounds. */
  ratio: number;
  per_round: number[];
  /** The same share by CPU time per request: b's over a's (how much of a's CPU per poll b's work is). */
  by_cpu: number;
}

function combine(rounds: Round[]): SideFigures {
  const ok = rounds.reduce((s, r) => s + r.rps * r.duration_s, 0);
  const seconds = rounds.reduce((s, r) => s + r.duration_s, 0);
  return {
    rps: round(ok / seconds, 0),
    p50_ms: median(rounds.map((r) => r.p50_ms)),
    p99_ms: median(rounds.map((r) => r.p99_ms)),
    requests: rounds.reduce((s, r) => s + r.requests, 0),
    non2xx: rounds.reduce((s, r) => s + r.non2xx, 0),
    errors: rounds.reduce((s, r) => s + r.errors, 0),
    cpu_us_per_request: round(
      (rounds.reduce((s, r) => s + r.cpu_s, 0) * 1e6) /
        Math.max(
          1,
          rounds.reduce((s, r) => s + r.requests, 0),
        ),
      1,
    ),
    rounds,
  };
}

/** The figures of the side named `name`, which the benchmark measured. */
export function sideOf(figures: Readonly<Record<string, SideFigures>>, name: string): SideFigures {
  return defined(figures[name], `the figures of the ${name} side`);
}

export function ratio(a: SideFigures, b: SideFigures): Ratio {
  return {
    ratio: round(a.rps / b.rps, 3),
    per_round: a.rounds.map((r, i) => round(r.rps / defined(b.rounds[i], `round ${i + 1} of the side compared with`).rps, 3)),
    by_cpu: round(b.cpu_us_per_request / a.cpu_us_per_request, 3),
  };
}

/**
 * Warms every side, then measures them in rounds whose order alternates (A B C, C B A, …: ABBA for two
 * sides), so drift of a noisy machine falls on every side alike.
 */
export async function measureSides(ctx: BenchContext, sides: Side[], params: Params): Promise<{ window: ProfileWindow; figures: Record<string, SideFigures> }> {
  for (const side of sides) await cannon(side.url, { connections: params.connections, durationS: params.warmup_s, headers: side.headers });
  const rounds = new Map<string, Round[]>(sides.map((s) => [s.name, []]));
  const roundsOf = (name: string) => defined(rounds.get(name), `the rounds of the ${name} side`);
  const window = { startUs: monotonicUs(), endUs: 0 };
  for (let r = 0; r < params.rounds; r++) {
    const order = r % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const cpuBefore = procCpuSeconds(side.pid) ?? Number.NaN;
      const figures = await cannon(side.url, { connections: params.connections, durationS: params.duration_s, headers: side.headers });
      roundsOf(side.name).push({ ...figures, cpu_s: (procCpuSeconds(side.pid) ?? Number.NaN) - cpuBefore });
    }
    ctx.log(`  round ${r + 1}/${params.rounds}: ${sides.map((s) => `${s.name} ${roundsOf(s.name).at(-1)?.rps}`).join(', ')} req/s`);
  }
  window.endUs = monotonicUs();
  return { window, figures: Object.fromEntries([...rounds].map(([name, list]) => [name, combine(list)])) };
}

export async function startServer(ctx: BenchContext, label: string, env: Record<string, string>): Promise<{ server: AgentServer; profileDir?: string }> {
  const profileDir = ctx.profileDir ? join(ctx.profileDir, `poll-${label}`) : undefined;
  if (profileDir) await mkdir(profileDir, { recursive: true });
  const server = await AgentServer.start({
    label: `poll-${label}`,
    env: { ...RAISED_LIMITS, ...env },
    synthThreads: ctx.synthThreads,
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : undefined,
  });
  return { server, profileDir };
}

/** A completed job to poll, and a check that polling it answers 200 completed. */
export async function pollSide(name: string, server: AgentServer): Promise<Side> {
  const fixtures = await server.seed(1);
  const key = defined(fixtures.keys.active[0], 'the first active key of the seeded fixtures');
  const jobId = String((await completedJob(server.baseUrl, key, INLINE_TEXT)).job_id);
  const check = await getJob(server.baseUrl, key, jobId);
  if (check.status !== 200 || check.json?.status !== 'completed') throw new Error(`polling the job does not answer completed: ${describeFailure(check)}`);
  return { name, url: `${server.baseUrl}${API_PATH}?id=${jobId}`, headers: { authorization: `Bearer ${key}` }, pid: server.pid };
}
