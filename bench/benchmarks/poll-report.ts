import { API_PATH } from '@agent-tts/contract/limits.js';
import { profileMarkdown, type ProfileSummary } from '../harness/profile.js';
import { status, type BenchContext, type TargetResult } from '../harness/report-types.js';
import { round } from '../harness/stats.js';
import type { Diagnostic } from './poll-diagnostics.js';
import { type Params, type Ratio, type SideFigures, RAISED_LIMITS, WINDOW_SECONDS, ratio, sideOf } from './poll-sides.js';

/** The poll benchmark's report: its figures as shares of the baselines, its targets, and its Markdown. */

/** Poll path targets, as shares of requests per second measured in the same rounds. */
const TARGETS = {
  embedded_vs_lean: 0.9,
  embedded_vs_hono: 0.2,
  redis_vs_embedded: 0.6,
} as const;

/** Whether the Redis side ran, and the keys it wrote under its prefix (and, once stopped, deleted). */
export type RedisOutcome = { available: true; keys_written: number; keys_deleted?: number } | { available: false; reason: string; keys_deleted?: number };

/** The shares of requests per second between the sides. */
export function pollRatios(f: Record<string, SideFigures>) {
  return {
    embedded_vs_lean: ratio(sideOf(f, 'embedded'), sideOf(f, 'lean')),
    embedded_vs_hono: ratio(sideOf(f, 'embedded'), sideOf(f, 'hono')),
    lean_vs_hono: ratio(sideOf(f, 'lean'), sideOf(f, 'hono')),
    redis_vs_embedded: f.redis ? ratio(f.redis, sideOf(f, 'embedded')) : undefined,
    redis_vs_lean: f.redis ? ratio(f.redis, sideOf(f, 'lean')) : undefined,
    redis_vs_hono: f.redis ? ratio(f.redis, sideOf(f, 'hono')) : undefined,
    redis_vs_lean_redis: f.redis && f['lean-redis'] ? ratio(f.redis, f['lean-redis']) : undefined,
    lean_redis_vs_lean: f['lean-redis'] ? ratio(f['lean-redis'], sideOf(f, 'lean')) : undefined,
  };
}

/** What the poll benchmark measured, as its report reads it. */
export interface PollResults {
  params: Params;
  diagnosticParams: Params;
  /** Figures per side: hono, lean, embedded and, when Redis ran, redis and lean-redis. */
  f: Record<string, SideFigures>;
  ratios: ReturnType<typeof pollRatios>;
  redis: RedisOutcome;
  answers: { headers: string; body_shape: string; server_body_bytes: number; lean_body_bytes: number };
  peaks: { embedded_mb: number; redis_mb: number | undefined; lean_mb: number };
  profiles: Record<string, ProfileSummary | undefined>;
  diagnostics: Diagnostic[];
}

const pct = (r: number) => `${round(r * 100, 1)}%`;

/** The poll targets: the embedded server against both baselines, and the Redis server against the embedded one. */
export function pollTargets(ctx: BenchContext, { f, ratios, redis }: PollResults): TargetResult[] {
  const target = (id: string, wording: string, r: Ratio | undefined, goal: number, what: string, unavailable?: string): TargetResult => ({
    id,
    target: wording,
    measured: r
      ? `${pct(r.ratio)} (${what}; per round ${r.per_round.map(pct).join(', ')}; by CPU time per request ${pct(r.by_cpu)})`
      : `not available: ${unavailable}`,
    status: !r || ctx.quick ? 'not evaluated' : status(r.ratio >= goal),
    note: r && ctx.quick ? `quick run: indicative only (${r.ratio >= goal ? 'would pass' : 'would miss'})` : undefined,
  });
  return [
    target(
      'poll-embedded-vs-lean',
      `embedded poll ≥ ${TARGETS.embedded_vs_lean * 100}% of the lean poll handler's requests per second`,
      ratios.embedded_vs_lean,
      TARGETS.embedded_vs_lean,
      `${sideOf(f, 'embedded').rps} vs ${sideOf(f, 'lean').rps} req/s`,
    ),
    target(
      'poll-embedded-vs-hono',
      `embedded poll ≥ ${TARGETS.embedded_vs_hono * 100}% of bare Hono's requests per second`,
      ratios.embedded_vs_hono,
      TARGETS.embedded_vs_hono,
      `${sideOf(f, 'embedded').rps} vs ${sideOf(f, 'hono').rps} req/s`,
    ),
    target(
      'poll-redis-vs-embedded',
      `Redis poll ≥ ${TARGETS.redis_vs_embedded * 100}% of the embedded poll's requests per second`,
      ratios.redis_vs_embedded,
      TARGETS.redis_vs_embedded,
      f.redis ? `${f.redis.rps} vs ${sideOf(f, 'embedded').rps} req/s` : '',
      redis.available ? 'not measured' : redis.reason,
    ),
  ];
}

/** The report's Markdown: the sides' table, the diagnostic rows, invalid figures, and the profiles. */
export function pollMarkdown(ctx: BenchContext, r: PollResults): string {
  const { params, diagnosticParams, f, ratios, redis, answers, peaks, profiles, diagnostics } = r;
  const row = (label: string, s: SideFigures | undefined, extra: string) =>
    s
      ? `| ${label} | ${s.rps} | ${s.p50_ms} / ${s.p99_ms} | ${s.rounds.map((r) => r.rps).join(', ')} | ${s.cpu_us_per_request} | ${extra} |`
      : `| ${label} | not available (${redis.available ? '' : redis.reason}) | | | | |`;
  const share = (r: Ratio | undefined, of: string) =>
    r ? `**${pct(r.ratio)}** of ${of} (rounds ${r.per_round.map(pct).join(', ')}; by CPU per request ${pct(r.by_cpu)})` : '';
  const md = [
    `autocannon, ${params.connections} connections, ${params.rounds} rounds of ${params.duration_s} s per side after ${params.warmup_s} s of warm-up each; ` +
      `every round measures every side, in an order that alternates (${f.redis ? 'A B C D E, E D C B A' : 'A B C, C B A'}, …), so that the machine's drift falls on all alike. ` +
      `Servers: \`GET ${API_PATH}?id=<completed job>\` with a valid key, RATE_GET_LIMIT=${RAISED_LIMITS.RATE_GET_LIMIT}, RATE_WINDOW_SECONDS=${WINDOW_SECONDS}, LOG_LEVEL=info (a log line per request, to a file), SYNTH_THREADS=${ctx.synthThreads}; ` +
      'the embedded and the Redis server run side by side, each idle while the other is measured. ' +
      'Baselines, each in its own process on the same Node: bare Hono (hello world, `c.text`, @hono/node-server) and the lean poll handler ' +
      '(`bench/harness/lean-poll.ts`: node:http and SQLite (better-sqlite3 before Node 24, node:sqlite from 24) doing only the necessary work of a poll — bearer key, SHA-256 and constant-time compare, ' +
      'key, account, job and usage read with prepared statements, the GET counted in a rolling window, an HMAC-signed audio URL, the same JSON body and headers). ' +
      "With Redis, the lean Redis poll handler is the same handler counting the GET in Redis instead, with the distributed mode's sliding-log script (one EVALSHA per poll through node-redis): " +
      'the least a poll costs whose rate limit every instance shares, the yardstick of the Redis poll.',
    '',
    '| Side | req/s | p50 / p99 ms | req/s per round | CPU µs per request | Share |',
    '| --- | ---: | ---: | --- | ---: | --- |',
    row('bare Hono', f.hono, ''),
    row('lean poll handler', f.lean, share(ratios.lean_vs_hono, 'Hono')),
    row('embedded server (SQLite)', f.embedded, `${share(ratios.embedded_vs_lean, 'lean')}; ${share(ratios.embedded_vs_hono, 'Hono')}`),
    ...(f['lean-redis'] ? [row('lean Redis poll handler', f['lean-redis'], share(ratios.lean_redis_vs_lean, 'lean'))] : []),
    row(
      'Redis server',
      f.redis,
      f.redis && ratios.redis_vs_lean && ratios.redis_vs_hono
        ? `${share(ratios.redis_vs_embedded, 'embedded')}; ${ratios.redis_vs_lean_redis ? `${share(ratios.redis_vs_lean_redis, 'lean Redis')}; ` : ''}${pct(ratios.redis_vs_lean.ratio)} of lean; ${pct(ratios.redis_vs_hono.ratio)} of Hono`
        : '',
    ),
    '',
    `The lean handler answers with the same status, headers (${answers.headers}) and body shape as the server (checked before measuring; ` +
      `${answers.lean_body_bytes} vs ${answers.server_body_bytes} bytes of body). Peak RSS: embedded server ${peaks.embedded_mb} MB${peaks.redis_mb ? `, Redis server ${peaks.redis_mb} MB` : ''}, lean handler ${peaks.lean_mb} MB.`,
  ];
  if (diagnostics.length) {
    md.push(
      '',
      `Diagnostic rows (not targets): the embedded server with one cost taken out by configuration alone, measured beside both baselines, ${diagnosticParams.rounds} rounds of ${diagnosticParams.duration_s} s per side: ` +
        'a 1 s rate window keeps the in-memory sliding log short under the raised limit; LOG_LEVEL=warn drops the request log line.',
      '',
      '| Variant | req/s | p50 / p99 ms | % of lean | % of Hono |',
      '| --- | ---: | ---: | ---: | ---: |',
      ...diagnostics.map((d) => {
        if (!d.available) return `| ${d.variant} | not available (${d.reason}) | | | |`;
        const variant = sideOf(d.figures, 'variant');
        return `| ${d.variant} | ${variant.rps} | ${variant.p50_ms} / ${variant.p99_ms} | ${pct(d.vs_lean.ratio)} | ${pct(d.vs_hono.ratio)} |`;
      }),
    );
  }
  for (const [name, s] of Object.entries(f)) {
    if (s.non2xx > 0 || s.errors > 0) md.push('', `**${name}: ${s.non2xx} non-2xx answers and ${s.errors} errors during the run: its figure is not valid.**`);
  }
  for (const [name, p] of Object.entries(profiles)) {
    if (p)
      md.push(
        '',
        `#### Profile, ${name === 'lean' ? 'lean poll handler' : name === 'lean-redis' ? 'lean Redis poll handler' : `${name} server`}`,
        '',
        profileMarkdown(p, sideOf(f, name).requests),
      );
  }
  for (const d of diagnostics)
    if (d.available && d.profile) md.push('', `#### Profile, ${d.variant}`, '', profileMarkdown(d.profile, sideOf(d.figures, 'variant').requests));
  return md.join('\n');
}
