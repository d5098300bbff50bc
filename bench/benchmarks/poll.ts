import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { API_PATH } from '@agent-tts/contract/limits.js';
import { AgentServer, HonoBaseline, LeanPollBaseline } from '../harness/agent-server.js';
import { completedJob, describeFailure, getJob } from '../harness/api.js';
import { cannon, type CannonFigures } from '../harness/cannon.js';
import { httpRequest } from '../harness/http-client.js';
import { MB, procCpuSeconds } from '../harness/proc.js';
import { monotonicUs, profileMarkdown, readProfile, type ComponentRules, type ProfileSummary, type ProfileWindow } from '../harness/profile.js';
import { countKeys, deleteKeys, redisReachable } from '../harness/redis.js';
import { status, type BenchContext, type BenchmarkOutput, type TargetResult } from '../harness/report-types.js';
import { median, round } from '../harness/stats.js';
import { INLINE_TEXT } from '../harness/texts.js';

/** Poll path targets, as shares of requests per second measured in the same rounds. */
const TARGETS = {
  embedded_vs_lean: 0.9,
  embedded_vs_hono: 0.2,
  redis_vs_embedded: 0.6,
} as const;
const RAISED_LIMITS = { RATE_GET_LIMIT: '100000000', RATE_POST_LIMIT: '100000000' };
/** The server's default window: the lean handler counts in the same one, so its headers are alike. */
const WINDOW_SECONDS = '60';

interface Params {
  rounds: number;
  duration_s: number;
  warmup_s: number;
  connections: number;
}

/** One thing autocannon loads: a baseline or a server's poll URL. */
interface Side {
  name: string;
  url: string;
  headers?: Record<string, string>;
  /** The serving process, whose CPU time per request is measured alongside. */
  pid: number;
}

interface SideFigures {
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

interface Ratio {
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

function ratio(a: SideFigures, b: SideFigures): Ratio {
  return {
    ratio: round(a.rps / b.rps, 3),
    per_round: a.rounds.map((r, i) => round(r.rps / b.rounds[i]!.rps, 3)),
    by_cpu: round(b.cpu_us_per_request / a.cpu_us_per_request, 3),
  };
}

/**
 * Warms every side, then measures them in rounds whose order alternates (A B C, C B A, …: ABBA for two
 * sides), so drift of a noisy machine falls on every side alike.
 */
async function measureSides(ctx: BenchContext, sides: Side[], params: Params): Promise<{ window: ProfileWindow; figures: Record<string, SideFigures> }> {
  for (const side of sides) await cannon(side.url, { connections: params.connections, durationS: params.warmup_s, headers: side.headers });
  const rounds = new Map<string, Round[]>(sides.map((s) => [s.name, []]));
  const window = { startUs: monotonicUs(), endUs: 0 };
  for (let r = 0; r < params.rounds; r++) {
    const order = r % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const cpuBefore = procCpuSeconds(side.pid) ?? Number.NaN;
      const figures = await cannon(side.url, { connections: params.connections, durationS: params.duration_s, headers: side.headers });
      rounds.get(side.name)!.push({ ...figures, cpu_s: (procCpuSeconds(side.pid) ?? Number.NaN) - cpuBefore });
    }
    ctx.log(`  round ${r + 1}/${params.rounds}: ${sides.map((s) => `${s.name} ${rounds.get(s.name)!.at(-1)!.rps}`).join(', ')} req/s`);
  }
  window.endUs = monotonicUs();
  return { window, figures: Object.fromEntries([...rounds].map(([name, list]) => [name, combine(list)])) };
}

/**
 * Where a poll's time goes in the server, for --profile: each profile sample is put to the component of
 * the innermost frame these rules name (see ComponentRules).
 */
const POLL_COMPONENTS: ComponentRules = {
  primary: [
    { component: 'GC', match: /^\(garbage collector\) / },
    // Native socket writes (the response; in Redis mode also the commands): the system calls themselves.
    { component: 'socket write system calls (writev, write)', match: /^(writev|writeString|writeBuffer|writeUtf8String|writeLatin1String|writeAsciiString) $/ },
    // @redis/client gives every command an AbortSignal.timeout: set per command, and each fires (building
    // a DOMException) after its command is long done.
    { component: 'AbortSignal.timeout per Redis command (set, then fired)', match: / node:internal\/(abort_controller|per_context\/domexception)/ },
    {
      component: 'request logging (pino, request line)',
      match:
        /\/node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format-unescaped|safe-stable-stringify|on-exit-leak-free|atomic-sleep)\/|\/src\/server\/log\.js|^redactKeys /,
    },
    {
      component: 'metrics middleware (prom-client)',
      match: /\/node_modules\/prom-client\/|\/node_modules\/hono\/dist\/helper\/route\/|\/src\/server\/http\/routes\/ops\.js|\/src\/server\/metrics\.js/,
    },
    { component: 'URL signing (HMAC)', match: /\/src\/server\/domain\/signing\.js/ },
    {
      component: 'rate limiter',
      match: /\/src\/server\/adapters\/(memory-rate-limiter|redis\/rate-limiter)\.js|\/src\/server\/http\/rate-headers\.js|^getBucket /,
    },
    {
      component: 'store reads (SQLite or Redis)',
      match: /\/node_modules\/better-sqlite3\/|\/src\/server\/adapters\/(sqlite-store|sqlite-driver|redis\/store)\.js/,
    },
    { component: 'auth (key parse, SHA-256, compare, key usage)', match: /\/src\/server\/domain\/(auth|keys|key-usage)\.js|^principalOf / },
    {
      component: 'job view and JSON body (jobView, sendJson, c.json)',
      match: /\/src\/server\/domain\/(jobs|usage)\.js|\/src\/server\/http\/(job-bodies|context|routes\/jobs)\.js|\/node_modules\/hono\/dist\/context\.js/,
    },
    {
      component: "request validation (zod: the contract's query and header schemas)",
      match: /\/node_modules\/(zod|@hono\/zod-openapi|@hono\/zod-validator)\/|\/node_modules\/hono\/dist\/validator\/|\/src\/server\/http\/validation\.js/,
    },
    { component: 'Node adapter, response write (@hono/node-server)', match: /\/node_modules\/@hono\/node-server\// },
    { component: 'Hono routing and dispatch', match: /\/node_modules\/hono\/dist\// },
    {
      component: 'request id, CORS, auth middleware, handler glue (create-app.js, middleware/)',
      match: /\/src\/server\/http\/(create-app|middleware\/[a-z-]+)\.js/,
    },
    { component: 'lean handler: all its own work (auth, SQLite, window, HMAC, JSON)', match: /\/bench\/harness\/lean-poll\.js/ },
  ],
  fallback: [
    { component: 'Redis client (commands, replies)', match: /\/node_modules\/(@redis\/|redis\/|cluster-key-slot\/)/ },
    { component: 'Node HTTP parsing and sockets', match: / node:(_http_|net|stream|internal\/(streams|http|stream_base_commons|js_stream_socket))/ },
  ],
  other: 'other (event loop, timers, microtasks)',
};

async function startServer(ctx: BenchContext, label: string, env: Record<string, string>): Promise<{ server: AgentServer; profileDir?: string }> {
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
async function pollSide(name: string, server: AgentServer): Promise<Side> {
  const fixtures = await server.seed(1);
  const key = fixtures.keys.active[0]!;
  const jobId = String((await completedJob(server.baseUrl, key, INLINE_TEXT)).job_id);
  const check = await getJob(server.baseUrl, key, jobId);
  if (check.status !== 200 || check.json?.status !== 'completed') throw new Error(`polling the job does not answer completed: ${describeFailure(check)}`);
  return { name, url: `${server.baseUrl}${API_PATH}?id=${jobId}`, headers: { authorization: `Bearer ${key}` }, pid: server.pid };
}

/** The structure of a JSON value: its keys, in order, and the types of their values. */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(shapeOf).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}:${shapeOf(v)}`)
      .join(',')}}`;
  return value === null ? 'null' : typeof value;
}

/** Headers a poll answers with, transport ones (Date, Connection, Keep-Alive) aside. */
function headerNames(headers: Record<string, unknown>): string {
  return Object.keys(headers)
    .filter((h) => !['date', 'connection', 'keep-alive'].includes(h))
    .sort()
    .join(', ');
}

/**
 * The lean handler must answer a poll as the server does: the same status, headers and body shape
 * (values differ: ids, signatures). A baseline that drifts from the real answer would measure something
 * else, so a difference stops the benchmark.
 */
async function compareAnswers(server: Side, lean: Side): Promise<{ headers: string; body_shape: string; server_body_bytes: number; lean_body_bytes: number }> {
  const [a, b] = await Promise.all([server, lean].map((s) => httpRequest(s.url, { headers: s.headers, timeoutMs: 10_000 })));
  const [sa, sb] = [shapeOf(a!.json), shapeOf(b!.json)];
  const [ha, hb] = [headerNames(a!.headers), headerNames(b!.headers)];
  if (a!.status !== 200 || b!.status !== 200 || sa !== sb || ha !== hb) {
    throw new Error(
      `the lean poll handler does not answer like the server: status ${b!.status} vs ${a!.status}; headers [${hb}] vs [${ha}]; body ${sb} vs ${sa}`,
    );
  }
  return { headers: ha, body_shape: sa, server_body_bytes: Buffer.byteLength(a!.text), lean_body_bytes: Buffer.byteLength(b!.text) };
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

type RedisOutcome = { available: true; keys_written: number; keys_deleted?: number } | { available: false; reason: string; keys_deleted?: number };

interface Diagnostic {
  variant: string;
  env: Record<string, string>;
  available: boolean;
  reason?: string;
  figures?: Record<string, SideFigures>;
  vs_lean?: Ratio;
  vs_hono?: Ratio;
  profile?: ProfileSummary;
}

function firstLines(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // The log tail is JSON lines; keep the message short and the most telling lines.
  return text.split('\n').slice(0, 4).join(' | ').slice(0, 600);
}

const pct = (r: number) => `${round(r * 100, 1)}%`;

export async function runPoll(ctx: BenchContext): Promise<BenchmarkOutput> {
  // Even the quick run measures two rounds, so its sides are alternated (ABBA) too.
  const params: Params = ctx.quick ? { rounds: 2, duration_s: 3, warmup_s: 1, connections: 10 } : { rounds: 4, duration_s: 8, warmup_s: 2, connections: 10 };
  const diagnosticParams: Params = { ...params, rounds: 2, duration_s: 5 };
  const hono = await HonoBaseline.start();
  const leanProfileDir = ctx.profileDir ? join(ctx.profileDir, 'poll-lean') : undefined;
  if (leanProfileDir) await mkdir(leanProfileDir, { recursive: true });
  const lean = await LeanPollBaseline.start(
    { RATE_GET_LIMIT: RAISED_LIMITS.RATE_GET_LIMIT, RATE_WINDOW_SECONDS: WINDOW_SECONDS },
    leanProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${leanProfileDir}`] : undefined,
  );
  const stops: (() => Promise<unknown>)[] = [hono.stop, lean.stop];
  const redisPrefix = `agent-tts-bench-${process.pid}-${randomBytes(4).toString('hex')}:`;
  let redis: RedisOutcome = { available: false, reason: 'not tried' };
  try {
    const honoSide: Side = { name: 'hono', url: hono.url, pid: hono.process.pid };
    const leanSide: Side = {
      name: 'lean',
      url: `${lean.baseUrl}${API_PATH}?id=${lean.jobId}`,
      headers: { authorization: `Bearer ${lean.key}` },
      pid: lean.process.pid,
    };

    ctx.log('poll: embedded server');
    const embedded = await startServer(ctx, 'embedded', { RATE_WINDOW_SECONDS: WINDOW_SECONDS });
    stops.push(() => embedded.server.stop());
    const embeddedSide = await pollSide('embedded', embedded.server);
    const answers = await compareAnswers(embeddedSide, leanSide);

    // Distributed mode: REDIS_URL with a prefix of this run's own. It counts as available only when the
    // server starts, serves the job, and really keeps its data in Redis (keys appear under the prefix).
    ctx.log('poll: redis server');
    let redisServer: { server: AgentServer; profileDir?: string } | undefined;
    let redisSide: Side | undefined;
    const unreachable = await redisReachable(ctx.redisUrl);
    if (unreachable) redis = { available: false, reason: `Redis at ${ctx.redisUrl} is not reachable (${unreachable})` };
    else {
      stops.push(async () => {
        await redisServer?.server.stop();
        const deleted = await deleteKeys(ctx.redisUrl, redisPrefix).catch(() => -1);
        redis.keys_deleted = deleted;
        ctx.log(`  redis: deleted ${deleted} keys under ${redisPrefix}`);
      });
      try {
        redisServer = await startServer(ctx, 'redis', { REDIS_URL: ctx.redisUrl, REDIS_PREFIX: redisPrefix, RATE_WINDOW_SECONDS: WINDOW_SECONDS });
        redisSide = await pollSide('redis', redisServer.server);
        const written = await countKeys(ctx.redisUrl, redisPrefix);
        redis =
          written > 0
            ? { available: true, keys_written: written }
            : { available: false, reason: 'the server starts with REDIS_URL but writes nothing under its REDIS_PREFIX: it keeps its data in SQLite' };
        if (!redis.available) redisSide = undefined;
      } catch (error) {
        redis = { available: false, reason: `the server does not start, seed or serve a job with REDIS_URL: ${firstLines(error)}` };
        redisSide = undefined;
      }
      if (!redis.available) ctx.log(`  redis: not available (${redis.reason})`);
    }

    ctx.log(
      `poll: ${[honoSide, leanSide, embeddedSide, redisSide]
        .filter(Boolean)
        .map((s) => s!.name)
        .join(', ')} in alternating rounds`,
    );
    const main = await measureSides(ctx, [honoSide, leanSide, embeddedSide, ...(redisSide ? [redisSide] : [])], params);
    const f = main.figures;
    const ratios = {
      embedded_vs_lean: ratio(f.embedded!, f.lean!),
      embedded_vs_hono: ratio(f.embedded!, f.hono!),
      lean_vs_hono: ratio(f.lean!, f.hono!),
      redis_vs_embedded: f.redis ? ratio(f.redis, f.embedded!) : undefined,
      redis_vs_lean: f.redis ? ratio(f.redis, f.lean!) : undefined,
      redis_vs_hono: f.redis ? ratio(f.redis, f.hono!) : undefined,
    };
    const peaks = {
      embedded_mb: round((embedded.server.process.peakRssBytes() ?? Number.NaN) / MB, 1),
      redis_mb: redisServer ? round((redisServer.server.process.peakRssBytes() ?? Number.NaN) / MB, 1) : undefined,
      lean_mb: round((lean.process.peakRssBytes() ?? Number.NaN) / MB, 1),
    };
    // A profile is written when the process exits: stop the servers now, then read them. The lean
    // handler's is read at the end, once it has stopped (it serves the diagnostics too).
    await embedded.server.stop();
    await redisServer?.server.stop();
    const profiles: Record<string, ProfileSummary | undefined> = {};
    if (embedded.profileDir) profiles.embedded = await readProfile(embedded.profileDir, main.window, 'main', POLL_COMPONENTS);
    if (redisServer?.profileDir && f.redis) profiles.redis = await readProfile(redisServer.profileDir, main.window, 'main', POLL_COMPONENTS);

    const diagnostics: Diagnostic[] = [];
    if (!ctx.quick) {
      for (const [i, d] of DIAGNOSTICS.entries()) {
        ctx.log(`poll: diagnostic variant ${d.name}`);
        // A diagnostic that cannot run is reported as such; it does not cost the measured modes.
        try {
          const started = await startServer(ctx, `diag-${i + 1}`, d.env);
          try {
            const side = await pollSide('variant', started.server);
            const m = await measureSides(ctx, [honoSide, leanSide, side], diagnosticParams);
            await started.server.stop();
            const profile = started.profileDir ? await readProfile(started.profileDir, m.window, 'main', POLL_COMPONENTS) : undefined;
            diagnostics.push({
              variant: d.name,
              env: d.env,
              available: true,
              figures: m.figures,
              vs_lean: ratio(m.figures.variant!, m.figures.lean!),
              vs_hono: ratio(m.figures.variant!, m.figures.hono!),
              profile,
            });
          } finally {
            await started.server.stop();
          }
        } catch (error) {
          diagnostics.push({ variant: d.name, env: d.env, available: false, reason: firstLines(error) });
        }
      }
    }

    if (leanProfileDir) {
      await lean.stop();
      profiles.lean = await readProfile(leanProfileDir, main.window, 'main', POLL_COMPONENTS);
    }

    const target = (id: string, wording: string, r: Ratio | undefined, goal: number, what: string, unavailable?: string): TargetResult => ({
      id,
      target: wording,
      measured: r
        ? `${pct(r.ratio)} (${what}; per round ${r.per_round.map(pct).join(', ')}; by CPU time per request ${pct(r.by_cpu)})`
        : `not available: ${unavailable}`,
      status: !r || ctx.quick ? 'not evaluated' : status(r.ratio >= goal),
      note: r && ctx.quick ? `quick run: indicative only (${r.ratio >= goal ? 'would pass' : 'would miss'})` : undefined,
    });
    const targets: TargetResult[] = [
      target(
        'poll-embedded-vs-lean',
        `embedded poll ≥ ${TARGETS.embedded_vs_lean * 100}% of the lean poll handler's requests per second`,
        ratios.embedded_vs_lean,
        TARGETS.embedded_vs_lean,
        `${f.embedded!.rps} vs ${f.lean!.rps} req/s`,
      ),
      target(
        'poll-embedded-vs-hono',
        `embedded poll ≥ ${TARGETS.embedded_vs_hono * 100}% of bare Hono's requests per second`,
        ratios.embedded_vs_hono,
        TARGETS.embedded_vs_hono,
        `${f.embedded!.rps} vs ${f.hono!.rps} req/s`,
      ),
      target(
        'poll-redis-vs-embedded',
        `Redis poll ≥ ${TARGETS.redis_vs_embedded * 100}% of the embedded poll's requests per second`,
        ratios.redis_vs_embedded,
        TARGETS.redis_vs_embedded,
        f.redis ? `${f.redis.rps} vs ${f.embedded!.rps} req/s` : '',
        redis.available ? 'not measured' : redis.reason,
      ),
    ];

    const row = (label: string, s: SideFigures | undefined, extra: string) =>
      s
        ? `| ${label} | ${s.rps} | ${s.p50_ms} / ${s.p99_ms} | ${s.rounds.map((r) => r.rps).join(', ')} | ${s.cpu_us_per_request} | ${extra} |`
        : `| ${label} | not available (${redis.available ? '' : redis.reason}) | | | | |`;
    const share = (r: Ratio | undefined, of: string) =>
      r ? `**${pct(r.ratio)}** of ${of} (rounds ${r.per_round.map(pct).join(', ')}; by CPU per request ${pct(r.by_cpu)})` : '';
    const md = [
      `autocannon, ${params.connections} connections, ${params.rounds} rounds of ${params.duration_s} s per side after ${params.warmup_s} s of warm-up each; ` +
        `every round measures every side, in an order that alternates (${main.figures.redis ? 'A B C D, D C B A' : 'A B C, C B A'}, …), so that the machine's drift falls on all alike. ` +
        `Servers: \`GET ${API_PATH}?id=<completed job>\` with a valid key, RATE_GET_LIMIT=${RAISED_LIMITS.RATE_GET_LIMIT}, RATE_WINDOW_SECONDS=${WINDOW_SECONDS}, LOG_LEVEL=info (a log line per request, to a file), SYNTH_THREADS=${ctx.synthThreads}; ` +
        'the embedded and the Redis server run side by side, each idle while the other is measured. ' +
        'Baselines, each in its own process on the same Node: bare Hono (hello world, `c.text`, @hono/node-server) and the lean poll handler ' +
        '(`bench/harness/lean-poll.ts`: node:http and SQLite (better-sqlite3 before Node 24, node:sqlite from 24) doing only the necessary work of a poll — bearer key, SHA-256 and constant-time compare, ' +
        'key, account, job and usage read with prepared statements, the GET counted in a rolling window, an HMAC-signed audio URL, the same JSON body and headers).',
      '',
      '| Side | req/s | p50 / p99 ms | req/s per round | CPU µs per request | Share |',
      '| --- | ---: | ---: | --- | ---: | --- |',
      row('bare Hono', f.hono, ''),
      row('lean poll handler', f.lean, share(ratios.lean_vs_hono, 'Hono')),
      row('embedded server (SQLite)', f.embedded, `${share(ratios.embedded_vs_lean, 'lean')}; ${share(ratios.embedded_vs_hono, 'Hono')}`),
      row(
        'Redis server',
        f.redis,
        f.redis
          ? `${share(ratios.redis_vs_embedded, 'embedded')}; ${pct(ratios.redis_vs_lean!.ratio)} of lean; ${pct(ratios.redis_vs_hono!.ratio)} of Hono`
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
        ...diagnostics.map((d) =>
          d.available
            ? `| ${d.variant} | ${d.figures!.variant!.rps} | ${d.figures!.variant!.p50_ms} / ${d.figures!.variant!.p99_ms} | ${pct(d.vs_lean!.ratio)} | ${pct(d.vs_hono!.ratio)} |`
            : `| ${d.variant} | not available (${d.reason}) | | | |`,
        ),
      );
    }
    for (const [name, s] of Object.entries(f)) {
      if (s.non2xx > 0 || s.errors > 0) md.push('', `**${name}: ${s.non2xx} non-2xx answers and ${s.errors} errors during the run: its figure is not valid.**`);
    }
    for (const [name, p] of Object.entries(profiles)) {
      if (p) md.push('', `#### Profile, ${name === 'lean' ? 'lean poll handler' : `${name} server`}`, '', profileMarkdown(p, f[name]!.requests));
    }
    for (const d of diagnostics) if (d.profile) md.push('', `#### Profile, ${d.variant}`, '', profileMarkdown(d.profile, d.figures!.variant!.requests));

    return {
      name: 'poll',
      title: 'Poll path: GET /v1/agent-tts?id= against the lean poll handler and bare Hono',
      data: {
        params,
        diagnostic_params: diagnostics.length ? diagnosticParams : undefined,
        sides: f,
        ratios,
        redis,
        answers,
        peak_rss: peaks,
        profiles,
        diagnostics,
      },
      markdown: md.join('\n'),
      targets,
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}
