import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { API_PATH } from '@agent-tts/contract/limits.js';
import { type AgentServer, HonoBaseline, LeanPollBaseline } from '../harness/agent-server.js';
import { MB } from '../harness/proc.js';
import { readProfile, type ProfileSummary } from '../harness/profile.js';
import { countKeys, deleteKeys, redisReachable } from '../harness/redis.js';
import type { BenchContext, BenchmarkOutput } from '../harness/report-types.js';
import { round } from '../harness/stats.js';
import { compareAnswers } from './poll-answers.js';
import { POLL_COMPONENTS } from './poll-components.js';
import { firstLines, runDiagnostics } from './poll-diagnostics.js';
import { type PollResults, type RedisOutcome, pollMarkdown, pollRatios, pollTargets } from './poll-report.js';
import { type Params, type Side, RAISED_LIMITS, WINDOW_SECONDS, measureSides, pollSide, startServer } from './poll-sides.js';

/**
 * The poll benchmark: GET of a completed job on the embedded server (and, when Redis is reachable, the
 * distributed one) against the lean poll handler and bare Hono, in alternating rounds. Its phases: the
 * baselines, the servers, the measured rounds, the diagnostic variants, the report.
 */

type Stop = () => Promise<unknown>;

/** A lean poll handler as a measured side, in a process of its own, under --cpu-prof for --profile. */
async function startLean(ctx: BenchContext, name: 'lean' | 'lean-redis', env: Record<string, string> = {}) {
  const profileDir = ctx.profileDir ? join(ctx.profileDir, `poll-${name}`) : undefined;
  if (profileDir) await mkdir(profileDir, { recursive: true });
  const baseline = await LeanPollBaseline.start(
    { RATE_GET_LIMIT: RAISED_LIMITS.RATE_GET_LIMIT, RATE_WINDOW_SECONDS: WINDOW_SECONDS, ...env },
    profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : undefined,
  );
  const side: Side = {
    name,
    url: `${baseline.baseUrl}${API_PATH}?id=${baseline.jobId}`,
    headers: { authorization: `Bearer ${baseline.key}` },
    pid: baseline.process.pid,
  };
  return { baseline, side, profileDir };
}

/** The distributed server and its side, and what came of trying it; its stop (which deletes its keys) is added to `stops`. */
interface RedisSetUp {
  /** The keys' prefix of this run's own. */
  prefix: string;
  outcome: RedisOutcome;
  server?: { server: AgentServer; profileDir?: string };
  side?: Side;
}

/**
 * Distributed mode: REDIS_URL with a prefix of this run's own. It counts as available only when the
 * server starts, serves the job, and really keeps its data in Redis (keys appear under the prefix).
 */
export async function setUpRedis(ctx: BenchContext, stops: Stop[]): Promise<RedisSetUp> {
  const redisPrefix = `agent-tts-bench-${process.pid}-${randomBytes(4).toString('hex')}:`;
  const set: RedisSetUp = { prefix: redisPrefix, outcome: { available: false, reason: 'not tried' } };
  ctx.log('poll: redis server');
  const unreachable = await redisReachable(ctx.redisUrl);
  if (unreachable) {
    set.outcome = { available: false, reason: `Redis at ${ctx.redisUrl} is not reachable (${unreachable})` };
    return set;
  }
  stops.push(async () => {
    await set.server?.server.stop();
    const deleted = await deleteKeys(ctx.redisUrl, redisPrefix).catch(() => -1);
    set.outcome.keys_deleted = deleted;
    ctx.log(`  redis: deleted ${deleted} keys under ${redisPrefix}`);
  });
  try {
    set.server = await startServer(ctx, 'redis', { REDIS_URL: ctx.redisUrl, REDIS_PREFIX: redisPrefix, RATE_WINDOW_SECONDS: WINDOW_SECONDS });
    set.side = await pollSide('redis', set.server.server);
    const written = await countKeys(ctx.redisUrl, redisPrefix);
    set.outcome =
      written > 0
        ? { available: true, keys_written: written }
        : { available: false, reason: 'the server starts with REDIS_URL but writes nothing under its REDIS_PREFIX: it keeps its data in SQLite' };
    if (!set.outcome.available) set.side = undefined;
  } catch (error) {
    set.outcome = { available: false, reason: `the server does not start, seed or serve a job with REDIS_URL: ${firstLines(error)}` };
    set.side = undefined;
  }
  if (!set.outcome.available) ctx.log(`  redis: not available (${set.outcome.reason})`);
  return set;
}

export async function runPoll(ctx: BenchContext): Promise<BenchmarkOutput> {
  // Even the quick run measures two rounds, so its sides are alternated (ABBA) too.
  const params: Params = ctx.quick ? { rounds: 2, duration_s: 3, warmup_s: 1, connections: 10 } : { rounds: 4, duration_s: 8, warmup_s: 2, connections: 10 };
  const diagnosticParams: Params = { ...params, rounds: 2, duration_s: 5 };
  const hono = await HonoBaseline.start();
  const lean = await startLean(ctx, 'lean');
  const stops: Stop[] = [hono.stop, lean.baseline.stop];
  try {
    const honoSide: Side = { name: 'hono', url: hono.url, pid: hono.process.pid };
    const leanSide = lean.side;

    ctx.log('poll: embedded server');
    const embedded = await startServer(ctx, 'embedded', { RATE_WINDOW_SECONDS: WINDOW_SECONDS });
    stops.push(() => embedded.server.stop());
    const embeddedSide = await pollSide('embedded', embedded.server);
    const answers = await compareAnswers(embeddedSide, leanSide);
    const redis = await setUpRedis(ctx, stops);

    // The Redis poll's yardstick: the lean handler counting the GET in Redis, under the Redis side's prefix (which its stop deletes).
    const leanRedis = redis.side ? await startLean(ctx, 'lean-redis', { LEAN_REDIS_URL: ctx.redisUrl, LEAN_REDIS_PREFIX: `${redis.prefix}lean:` }) : undefined;
    if (leanRedis) stops.push(leanRedis.baseline.stop);
    const sides = [honoSide, leanSide, embeddedSide, ...(redis.side ? [redis.side] : []), ...(leanRedis ? [leanRedis.side] : [])];
    ctx.log(`poll: ${sides.map((s) => s.name).join(', ')} in alternating rounds`);
    const main = await measureSides(ctx, sides, params);
    const f = main.figures;
    const ratios = pollRatios(f);
    const peaks = {
      embedded_mb: round((embedded.server.process.peakRssBytes() ?? Number.NaN) / MB, 1),
      redis_mb: redis.server ? round((redis.server.server.process.peakRssBytes() ?? Number.NaN) / MB, 1) : undefined,
      lean_mb: round((lean.baseline.process.peakRssBytes() ?? Number.NaN) / MB, 1),
    };
    // A profile is written when the process exits: stop the servers now, then read them. The lean
    // handler's is read at the end, once it has stopped (it serves the diagnostics too).
    await embedded.server.stop();
    await redis.server?.server.stop();
    const profiles: Record<string, ProfileSummary | undefined> = {};
    if (embedded.profileDir) profiles.embedded = await readProfile(embedded.profileDir, main.window, 'main', POLL_COMPONENTS);
    if (redis.server?.profileDir && f.redis) profiles.redis = await readProfile(redis.server.profileDir, main.window, 'main', POLL_COMPONENTS);
    if (leanRedis) {
      await leanRedis.baseline.stop();
      if (leanRedis.profileDir) profiles['lean-redis'] = await readProfile(leanRedis.profileDir, main.window, 'main', POLL_COMPONENTS);
    }

    const diagnostics = ctx.quick ? [] : await runDiagnostics(ctx, { hono: honoSide, lean: leanSide }, diagnosticParams);

    if (lean.profileDir) {
      await lean.baseline.stop();
      profiles.lean = await readProfile(lean.profileDir, main.window, 'main', POLL_COMPONENTS);
    }

    const results: PollResults = { params, diagnosticParams, f, ratios, redis: redis.outcome, answers, peaks, profiles, diagnostics };
    return {
      name: 'poll',
      title: 'Poll path: GET /v1/agent-tts?id= against the lean poll handler and bare Hono',
      data: {
        params,
        diagnostic_params: diagnostics.length ? diagnosticParams : undefined,
        sides: f,
        ratios,
        redis: redis.outcome,
        answers,
        peak_rss: peaks,
        profiles,
        diagnostics,
      },
      markdown: pollMarkdown(ctx, results),
      targets: pollTargets(ctx, results),
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}
