import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { API_PATH } from '../../src/contract/limits.js';
import { AgentServer, HonoBaseline } from '../harness/agent-server.js';
import { completedJob, describeFailure, getJob } from '../harness/api.js';
import { cannon, type CannonFigures } from '../harness/cannon.js';
import { MB } from '../harness/proc.js';
import { monotonicUs, profileMarkdown, readProfile, type ProfileSummary } from '../harness/profile.js';
import { countKeys, deleteKeys, redisReachable } from '../harness/redis.js';
import { status, type BenchContext, type BenchmarkOutput, type TargetResult } from '../harness/report-types.js';
import { median, round } from '../harness/stats.js';
import { INLINE_TEXT } from '../harness/texts.js';

/** Poll path target: share of bare Hono's requests per second (issue targets). */
const TARGET_RATIO = { embedded: 0.5, redis: 0.35 } as const;
const RAISED_LIMITS = { RATE_GET_LIMIT: '100000000', RATE_POST_LIMIT: '100000000' };

interface Params {
  rounds: number;
  duration_s: number;
  warmup_s: number;
  connections: number;
}

interface Side {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
  errors: number;
  rounds: CannonFigures[];
}

interface ModeResult {
  available: true;
  server: Side;
  hono: Side;
  ratio: number;
  round_ratios: number[];
  server_peak_rss_mb?: number;
  startup_ms: number;
  profile?: ProfileSummary;
  redis_keys_written?: number;
  redis_keys_deleted?: number;
}

type ModeOutcome = ModeResult | { available: false; reason: string; redis_keys_deleted?: number };

function combine(rounds: CannonFigures[]): Side {
  const ok = rounds.reduce((s, r) => s + r.rps * r.duration_s, 0);
  const seconds = rounds.reduce((s, r) => s + r.duration_s, 0);
  return {
    rps: round(ok / seconds, 0),
    p50_ms: median(rounds.map((r) => r.p50_ms)),
    p99_ms: median(rounds.map((r) => r.p99_ms)),
    non2xx: rounds.reduce((s, r) => s + r.non2xx, 0),
    errors: rounds.reduce((s, r) => s + r.errors, 0),
    rounds,
  };
}

/**
 * One server against the baseline: warm both, then alternate them (ABBA…) so drift of a noisy machine
 * falls on both sides alike.
 */
async function measure(ctx: BenchContext, server: AgentServer, hono: HonoBaseline, key: string, jobId: string, params: Params) {
  const url = `${server.baseUrl}${API_PATH}?id=${jobId}`;
  const headers = { authorization: `Bearer ${key}` };
  const opts = { connections: params.connections };
  await cannon(hono.url, { ...opts, durationS: params.warmup_s });
  await cannon(url, { ...opts, durationS: params.warmup_s, headers });
  const serverRounds: CannonFigures[] = [];
  const honoRounds: CannonFigures[] = [];
  const window = { startUs: monotonicUs(), endUs: 0 };
  for (let r = 0; r < params.rounds; r++) {
    const runServer = async () => serverRounds.push(await cannon(url, { ...opts, durationS: params.duration_s, headers }));
    const runHono = async () => honoRounds.push(await cannon(hono.url, { ...opts, durationS: params.duration_s }));
    if (r % 2 === 0) {
      await runHono();
      await runServer();
    } else {
      await runServer();
      await runHono();
    }
    ctx.log(`  round ${r + 1}/${params.rounds}: server ${serverRounds.at(-1)!.rps} req/s, hono ${honoRounds.at(-1)!.rps} req/s`);
  }
  window.endUs = monotonicUs();
  const serverSide = combine(serverRounds);
  const honoSide = combine(honoRounds);
  return {
    window,
    server: serverSide,
    hono: honoSide,
    ratio: round(serverSide.rps / honoSide.rps, 3),
    round_ratios: serverRounds.map((s, i) => round(s.rps / honoRounds[i]!.rps, 3)),
  };
}

async function startFor(ctx: BenchContext, mode: string, env: Record<string, string>): Promise<{ server: AgentServer; profileDir?: string }> {
  const profileDir = ctx.profileDir ? join(ctx.profileDir, `poll-${mode}`) : undefined;
  if (profileDir) await mkdir(profileDir, { recursive: true });
  const server = await AgentServer.start({
    label: `poll-${mode}`,
    env: { ...RAISED_LIMITS, ...env },
    synthThreads: ctx.synthThreads,
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : undefined,
  });
  return { server, profileDir };
}

/** A completed job to poll, and a check that polling it answers 200 completed. */
async function pollTarget(server: AgentServer): Promise<{ key: string; jobId: string }> {
  const fixtures = await server.seed(1);
  const key = fixtures.keys.active[0]!;
  const jobId = String((await completedJob(server.baseUrl, key, INLINE_TEXT)).job_id);
  const check = await getJob(server.baseUrl, key, jobId);
  if (check.status !== 200 || check.json?.status !== 'completed') throw new Error(`polling the job does not answer completed: ${describeFailure(check)}`);
  return { key, jobId };
}

async function embeddedMode(ctx: BenchContext, hono: HonoBaseline, params: Params, variant = 'embedded', env: Record<string, string> = {}): Promise<ModeResult> {
  const { server, profileDir } = await startFor(ctx, variant, env);
  try {
    const { key, jobId } = await pollTarget(server);
    const { window, ...figures } = await measure(ctx, server, hono, key, jobId, params);
    const peak = server.process.peakRssBytes();
    await server.stop();
    const profile = profileDir ? await readProfile(profileDir, window) : undefined;
    return { available: true, ...figures, server_peak_rss_mb: peak && round(peak / MB, 1), startup_ms: server.startupMs, profile };
  } finally {
    await server.stop();
  }
}

/**
 * Configuration-only variants of the embedded server that take one cost at a time out of the path, so
 * the share of each is measured rather than guessed: a 1 s rate window keeps the in-memory sliding log
 * short under the raised limit, and LOG_LEVEL=warn drops the request log line.
 */
const DIAGNOSTICS: { name: string; env: Record<string, string> }[] = [
  { name: 'embedded, RATE_WINDOW_SECONDS=1', env: { RATE_WINDOW_SECONDS: '1' } },
  { name: 'embedded, RATE_WINDOW_SECONDS=1, LOG_LEVEL=warn', env: { RATE_WINDOW_SECONDS: '1', LOG_LEVEL: 'warn' } },
];

/**
 * Distributed mode: REDIS_URL with a prefix of this run's own. It counts as available only when the
 * server starts, serves the job, and really keeps its data in Redis (keys appear under the prefix).
 */
async function redisMode(ctx: BenchContext, hono: HonoBaseline, params: Params): Promise<ModeOutcome> {
  const unreachable = await redisReachable(ctx.redisUrl);
  if (unreachable) return { available: false, reason: `Redis at ${ctx.redisUrl} is not reachable (${unreachable})` };
  const prefix = `agent-tts-bench-${process.pid}-${randomBytes(4).toString('hex')}:`;
  let server: AgentServer | undefined;
  let profileDir: string | undefined;
  try {
    try {
      ({ server, profileDir } = await startFor(ctx, 'redis', { REDIS_URL: ctx.redisUrl, REDIS_PREFIX: prefix }));
    } catch (error) {
      return { available: false, reason: `the server does not start with REDIS_URL: ${firstLines(error)}` };
    }
    let target: { key: string; jobId: string };
    try {
      target = await pollTarget(server);
    } catch (error) {
      return { available: false, reason: `the server started with REDIS_URL but could not seed and serve a job: ${firstLines(error)}` };
    }
    const written = await countKeys(ctx.redisUrl, prefix);
    if (written === 0) {
      return {
        available: false,
        reason: 'the server starts with REDIS_URL but writes nothing under its REDIS_PREFIX: it still keeps keys and jobs in SQLite (the Redis mode is not wired into this build yet)',
      };
    }
    const { window, ...figures } = await measure(ctx, server, hono, target.key, target.jobId, params);
    const peak = server.process.peakRssBytes();
    await server.stop();
    const profile = profileDir ? await readProfile(profileDir, window) : undefined;
    return {
      available: true,
      ...figures,
      server_peak_rss_mb: peak && round(peak / MB, 1),
      startup_ms: server.startupMs,
      profile,
      redis_keys_written: written,
    };
  } finally {
    await server?.stop();
    const deleted = await deleteKeys(ctx.redisUrl, prefix).catch(() => -1);
    ctx.log(`  redis: deleted ${deleted} keys under ${prefix}`);
  }
}

function firstLines(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // The log tail is JSON lines; keep the message short and the most telling lines.
  return text.split('\n').slice(0, 4).join(' | ').slice(0, 600);
}

function modeRow(name: string, m: ModeOutcome): string {
  if (!m.available) return `| ${name} | not available (${m.reason}) | | | | | |`;
  return `| ${name} | ${m.server.rps} | ${m.server.p50_ms} / ${m.server.p99_ms} | ${m.hono.rps} | ${m.hono.p50_ms} / ${m.hono.p99_ms} | **${round(m.ratio * 100, 1)}%** | ${m.round_ratios.map((r) => `${round(r * 100, 1)}%`).join(', ')} |`;
}

export async function runPoll(ctx: BenchContext): Promise<BenchmarkOutput> {
  const params: Params = ctx.quick
    ? { rounds: 1, duration_s: 2, warmup_s: 1, connections: 10 }
    : { rounds: 4, duration_s: 8, warmup_s: 2, connections: 10 };
  const diagnosticParams: Params = { ...params, rounds: 2, duration_s: 5 };
  const hono = await HonoBaseline.start();
  let embedded: ModeOutcome;
  let redis: ModeOutcome;
  const diagnostics: ((ModeResult | { available: false; reason: string }) & { variant: string; env: Record<string, string> })[] = [];
  try {
    ctx.log('poll: embedded mode');
    embedded = await embeddedMode(ctx, hono, params);
    ctx.log('poll: redis mode');
    redis = await redisMode(ctx, hono, params);
    if (!redis.available) ctx.log(`  redis: not available (${redis.reason})`);
    if (!ctx.quick) {
      for (const d of DIAGNOSTICS) {
        ctx.log(`poll: diagnostic variant ${d.name}`);
        // A diagnostic that cannot run is reported as such; it does not cost the measured modes.
        const outcome = await embeddedMode(ctx, hono, diagnosticParams, `diag-${diagnostics.length + 1}`, d.env).catch(
          (error: unknown) => ({ available: false as const, reason: firstLines(error) }),
        );
        diagnostics.push({ variant: d.name, env: d.env, ...outcome });
      }
    }
  } finally {
    await hono.stop();
  }

  const targets: TargetResult[] = [];
  for (const [mode, outcome] of [['embedded', embedded], ['redis', redis]] as const) {
    const goal = TARGET_RATIO[mode];
    targets.push({
      id: `poll-${mode}`,
      target: `poll path ≥ ${goal * 100}% of bare Hono's requests per second (${mode})`,
      measured: outcome.available ? `${round(outcome.ratio * 100, 1)}% (${outcome.server.rps} vs ${outcome.hono.rps} req/s)` : `not available: ${outcome.reason}`,
      status: !outcome.available ? 'not evaluated' : ctx.quick ? 'not evaluated' : status(outcome.ratio >= goal),
      note: outcome.available && ctx.quick ? `quick run: indicative only (${outcome.ratio >= goal ? 'would pass' : 'would miss'})` : undefined,
    });
  }

  const md = [
    `autocannon, ${params.connections} connections, ${params.rounds} round(s) of ${params.duration_s} s per side after ${params.warmup_s} s of warm-up, sides alternated (ABBA). ` +
      `Server: \`GET ${API_PATH}?id=<completed job>\` with a valid key, RATE_GET_LIMIT=${RAISED_LIMITS.RATE_GET_LIMIT}, LOG_LEVEL=info (a log line per request, to a file), SYNTH_THREADS=${ctx.synthThreads}. ` +
      'Baseline: Hono hello world (`c.text`) on @hono/node-server in its own process on the same Node.',
    '',
    '| Mode | Server req/s | Server p50 / p99 ms | Hono req/s | Hono p50 / p99 ms | Ratio | Ratio per round |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    modeRow('embedded (SQLite)', embedded),
    modeRow('redis', redis),
    ...diagnostics.map((d) => modeRow(`${d.variant} (diagnostic)`, d)),
  ];
  if (diagnostics.length) {
    md.push(
      '',
      `Diagnostic rows: the embedded server with one cost taken out by configuration alone, ${diagnosticParams.rounds} rounds of ${diagnosticParams.duration_s} s per side: ` +
        'a 1 s rate window keeps the in-memory sliding log short under the raised limit; LOG_LEVEL=warn drops the request log line. Not targets: they show where the time goes.',
    );
  }
  for (const [mode, outcome] of [['embedded', embedded], ['redis', redis]] as const) {
    if (outcome.available && (outcome.server.non2xx > 0 || outcome.server.errors > 0)) {
      md.push('', `**${mode}: ${outcome.server.non2xx} non-2xx answers and ${outcome.server.errors} errors during the run: the figure is not valid.**`);
    }
    if (outcome.available && outcome.profile) md.push('', `#### Profile, ${mode}`, '', profileMarkdown(outcome.profile));
  }
  for (const d of diagnostics) if (d.available && d.profile) md.push('', `#### Profile, ${d.variant}`, '', profileMarkdown(d.profile));
  return { name: 'poll', title: 'Poll path: GET /v1/agent-tts?id= against bare Hono', data: { params, diagnostic_params: diagnostics.length ? diagnosticParams : undefined, embedded, redis, diagnostics }, markdown: md.join('\n'), targets };
}
