/**
 * The poll benchmark's second baseline: the least a poll (`GET /v1/agent-tts?id=<completed job>`) can
 * do, on plain node:http in its own process on the same Node. It does the necessary work of a real poll
 * and nothing else:
 *
 * - parse the bearer key (`tts_<public_id>_<secret>`), SHA-256 its secret and compare it with the
 *   stored hash in constant time;
 * - read the key, its account, the job and the account's usage of the month from SQLite
 *   (prepared statements, through the driver the server uses on this Node: node:sqlite from Node 24 on,
 *   better-sqlite3 before; the usage fills the body's billing figures);
 * - count the GET in a rolling window per key (in memory, as the embedded server's limiter is);
 * - sign a fresh audio URL (HMAC-SHA256, base64url);
 * - send the same JSON body (a completed job, `meta.request_id` a random UUID) with the same headers
 *   (X-Request-Id, Vary, RateLimit-Policy, RateLimit, Content-Type).
 *
 * It imports no code of the reference server (with LEAN_REDIS_URL it reads its Lua script, which
 * defines the work), so it measures the work, not the implementation. It makes its own small database
 * in DATA_DIR, with one account, one key and one completed job, and prints
 * `lean-poll listening on <port> key <key> job <job id>` once it listens.
 *
 * Environment: PORT (0: any free port), DATA_DIR (required), LEAN_REDIS_URL and LEAN_REDIS_PREFIX (see
 * below), RATE_GET_LIMIT and RATE_WINDOW_SECONDS (as the server's, so the RateLimit headers are the
 * same length).
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createClient } from 'redis';

const API_PATH = '/v1/agent-tts';
const API_VERSION = '2026-04';
const KEY = /^tts_([0-9a-f]{8})_([0-9a-f]{48})$/;
const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PLANS: Record<string, { apiAccess: boolean; monthlyMinutes: number }> = {
  free: { apiAccess: false, monthlyMinutes: 10 },
  pro: { apiAccess: true, monthlyMinutes: 3000 },
};
const URL_TTL_S = 3600;

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR is required');
const getLimit = Number(process.env.RATE_GET_LIMIT ?? 30);
const windowS = Number(process.env.RATE_WINDOW_SECONDS ?? 60);
const signingSecret = randomBytes(32).toString('base64url');
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const DUMMY_HASH = Buffer.from(sha256('0'.repeat(48)), 'hex');

interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
}
const require = createRequire(import.meta.url);
const dbPath = join(dataDir, 'lean.db');
const db: { exec(sql: string): void; prepare(sql: string): Statement; close(): void } =
  Number(process.versions.node.split('.')[0]) >= 24 ? new (require('node:sqlite').DatabaseSync)(dbPath) : new (require('better-sqlite3'))(dbPath);
db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
db.exec(`
CREATE TABLE accounts (id TEXT PRIMARY KEY, plan TEXT NOT NULL, subscription TEXT NOT NULL);
CREATE TABLE api_keys (public_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, secret_hash TEXT NOT NULL, revoked_at INTEGER);
CREATE TABLE jobs (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, status TEXT NOT NULL, voice TEXT NOT NULL,
  language TEXT NOT NULL, speed REAL NOT NULL, duration_seconds REAL);
CREATE TABLE usage (account_id TEXT NOT NULL, month TEXT NOT NULL, settled_cm INTEGER NOT NULL, reserved_cm INTEGER NOT NULL,
  PRIMARY KEY (account_id, month));
`);
const accountId = randomUUID();
const publicId = randomBytes(4).toString('hex');
const secret = randomBytes(24).toString('hex');
const jobId = randomUUID();
db.prepare('INSERT INTO accounts VALUES (?, ?, ?)').run(accountId, 'pro', 'active');
db.prepare('INSERT INTO api_keys VALUES (?, ?, ?, NULL)').run(publicId, accountId, sha256(secret));
db.prepare('INSERT INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?)').run(jobId, accountId, 'completed', 'af_heart', 'en-US', 1.2, 5.93);
db.prepare('INSERT INTO usage VALUES (?, ?, ?, ?)').run(accountId, new Date().toISOString().slice(0, 7), 10, 0);

const getKey = db.prepare('SELECT account_id, secret_hash, revoked_at FROM api_keys WHERE public_id = ?');
const getAccount = db.prepare('SELECT plan, subscription FROM accounts WHERE id = ?');
const getJob = db.prepare('SELECT account_id, status, voice, language, speed, duration_seconds FROM jobs WHERE id = ?');
const getUsage = db.prepare('SELECT settled_cm, reserved_cm FROM usage WHERE account_id = ? AND month = ?');

/**
 * Rolling window per key in one-second slots: a ring of counts and their running total, so a check is
 * O(1) and memory is the window's length in slots, whatever the limit.
 */
class RollingCount {
  private readonly slots = new Uint32Array(windowS);
  private total = 0;
  private second = 0;

  /** Counts one request at `nowS` when allowed; remaining and seconds to reset, as RateLimit says them. */
  take(nowS: number): { allowed: boolean; remaining: number; reset: number } {
    const gap = nowS - this.second;
    if (gap >= windowS) {
      this.slots.fill(0);
      this.total = 0;
    } else {
      for (let s = this.second + 1; s <= nowS; s++) {
        this.total -= this.slots[s % windowS] ?? 0;
        this.slots[s % windowS] = 0;
      }
    }
    this.second = nowS;
    const allowed = this.total < getLimit;
    if (allowed) {
      this.slots[nowS % windowS] = (this.slots[nowS % windowS] ?? 0) + 1;
      this.total++;
    }
    // Seconds until the oldest counted second leaves the window.
    let reset = 0;
    for (let age = windowS - 1; age >= 0; age--) {
      if (this.slots[(nowS - age + windowS) % windowS]) {
        reset = windowS - age;
        break;
      }
    }
    return { allowed, remaining: Math.max(0, getLimit - this.total), reset };
  }
}
const windows = new Map<string, RollingCount>();

/**
 * With LEAN_REDIS_URL, the GET is counted in Redis instead, by the distributed mode's own sliding-log
 * script (the server's lua/sliding-window.lua, read from its build; one check per call, one EVALSHA per
 * poll through node-redis, keys under LEAN_REDIS_PREFIX): the least a poll with a rate limit shared by
 * every instance costs, the yardstick of the Redis poll.
 */
const SLIDING_WINDOW = readFileSync(join(dirname(require.resolve('@agent-tts/server')), 'adapters/redis/lua/sliding-window.lua'), 'utf8');
const SLIDING_WINDOW_SHA = createHash('sha1').update(SLIDING_WINDOW).digest('hex');
const redisPrefix = process.env.LEAN_REDIS_PREFIX ?? `lean-poll-${process.pid}:`;
let admissions = 0;
const redis = process.env.LEAN_REDIS_URL ? createClient({ url: process.env.LEAN_REDIS_URL }) : undefined;
if (redis) {
  await redis.connect();
  await redis.sendCommand(['SCRIPT', 'LOAD', SLIDING_WINDOW]);
}

function send(res: ServerResponse, status: number, requestId: string, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
  const json = JSON.stringify({ ...body, meta: { request_id: requestId, api_version: API_VERSION } });
  res.writeHead(status, {
    'X-Request-Id': requestId,
    Vary: 'Origin',
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(json);
}

function error(res: ServerResponse, status: number, requestId: string, code: string, message: string, headers?: Record<string, string>): void {
  send(res, status, requestId, { success: false, error: { code, message } }, headers);
}

let origin = '';
const server = createServer((req, res) => {
  const requestId = randomUUID();
  const url = req.url ?? '';
  const q = url.indexOf('?');
  if (req.method !== 'GET' || (q < 0 ? url : url.slice(0, q)) !== API_PATH)
    return error(res, 404, requestId, 'NOT_FOUND', 'Only GET /v1/agent-tts?id= is served here.');

  const bearer = BEARER.exec(req.headers.authorization ?? '');
  const parsed = bearer?.[1] === undefined ? null : KEY.exec(bearer[1]);
  if (!parsed) return error(res, 401, requestId, 'INVALID_KEY', 'The API key is missing or malformed.', { 'WWW-Authenticate': 'Bearer' });
  const [, publicId = '', secret = ''] = parsed;
  const key = getKey.get(publicId) as { account_id: string; secret_hash: string; revoked_at: number | null } | undefined;
  const presented = createHash('sha256').update(secret, 'utf8').digest();
  const stored = key ? Buffer.from(key.secret_hash, 'hex') : DUMMY_HASH;
  const matches = stored.length === presented.length && timingSafeEqual(presented, stored);
  if (!key || !matches || key.revoked_at !== null)
    return error(res, 401, requestId, 'INVALID_KEY', 'The API key is unknown or revoked.', { 'WWW-Authenticate': 'Bearer' });
  const account = getAccount.get(key.account_id) as { plan: string; subscription: string } | undefined;
  const plan = account && PLANS[account.plan];
  if (!account) return error(res, 401, requestId, 'INVALID_KEY', 'The API key is unknown or revoked.', { 'WWW-Authenticate': 'Bearer' });
  if (account.subscription !== 'active') return error(res, 403, requestId, 'INACTIVE_SUBSCRIPTION', 'The subscription of this account is not active.');
  if (!plan?.apiAccess) return error(res, 403, requestId, 'NO_API_ACCESS', 'The plan of this account does not include API access.');

  const ids = new URLSearchParams(q < 0 ? '' : url.slice(q + 1)).getAll('id');
  const [onlyId] = ids;
  if (ids.length !== 1 || onlyId === undefined || !UUID.test(onlyId))
    return error(res, 400, requestId, 'INVALID_REQUEST', 'Query parameter id is required once and must be a job_id (UUID).');
  const now = Date.now();
  if (redis) {
    // The distributed mode's one round trip: the sliding log in Redis, by the server's script (a batch of one).
    admissions++;
    redis
      .sendCommand([
        'EVALSHA',
        SLIDING_WINDOW_SHA,
        '1',
        `${redisPrefix}rate:get:${publicId}`,
        '',
        String(windowS * 1000),
        String(getLimit),
        '1',
        `${now}-${admissions}`,
      ])
      .then(
        (reply) => {
          const [allowed, counted = 0, reset = 0] = (reply as unknown as unknown[]).map(Number);
          answer(res, requestId, key.account_id, plan, onlyId, now, { allowed: allowed === 1, remaining: Math.max(0, getLimit - counted), reset });
        },
        (e: unknown) => error(res, 500, requestId, 'INTERNAL_ERROR', `Redis: ${(e as Error).message}`),
      );
    return;
  }
  let window = windows.get(publicId);
  if (!window) {
    window = new RollingCount();
    windows.set(publicId, window);
  }
  answer(res, requestId, key.account_id, plan, onlyId, now, window.take(Math.floor(now / 1000)));
});

/** The rest of a poll once the GET is counted: the job, the usage, the signed URL, the body. */
function answer(
  res: ServerResponse,
  requestId: string,
  accountId: string,
  plan: { monthlyMinutes: number },
  onlyId: string,
  now: number,
  count: { allowed: boolean; remaining: number; reset: number },
): void {
  const rate = { 'RateLimit-Policy': `${getLimit};w=${windowS}`, RateLimit: `limit=${getLimit}, remaining=${count.remaining}, reset=${count.reset}` };
  if (!count.allowed) {
    error(res, 429, requestId, 'RATE_LIMITED', 'Too many GET requests for this API key.', { ...rate, 'Retry-After': String(Math.max(1, count.reset)) });
    return;
  }
  const id = onlyId.toLowerCase();
  const job = getJob.get(id) as { account_id: string; status: string; voice: string; language: string; speed: number; duration_seconds: number } | undefined;
  if (!job || job.account_id !== accountId || job.status !== 'completed') {
    error(res, 404, requestId, 'NOT_FOUND', 'No completed job with this id for this account.', rate);
    return;
  }
  const usage = (getUsage.get(accountId, new Date(now).toISOString().slice(0, 7)) as { settled_cm: number; reserved_cm: number } | undefined) ?? {
    settled_cm: 0,
    reserved_cm: 0,
  };

  const expires = Math.floor(now / 1000) + URL_TTL_S;
  const sig = createHmac('sha256', signingSecret).update(`${id}.${expires}`).digest('base64url');
  const limitCm = plan.monthlyMinutes * 100;
  const usedCm = usage.settled_cm + usage.reserved_cm;
  send(
    res,
    200,
    requestId,
    {
      success: true,
      status: 'completed',
      job_id: id,
      audio_url: `${origin}/v1/audio/${id}.mp3?expires=${expires}&sig=${sig}`,
      audio: { duration_seconds: job.duration_seconds, format: 'mp3', voice: job.voice, speed: job.speed, language: job.language },
      billing: {
        mode: 'subscription',
        estimated_cost_cents: 0,
        monthly_minutes_used: usedCm / 100,
        monthly_minutes_limit: limitCm / 100,
        monthly_minutes_remaining: Math.max(0, limitCm - usedCm) / 100,
      },
    },
    rate,
  );
}

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  origin = `http://127.0.0.1:${port}`;
  process.stdout.write(`lean-poll listening on ${port} key tts_${publicId}_${secret} job ${jobId}\n`);
});
const stop = () =>
  server.close(async () => {
    db.close();
    if (redis) {
      await redis.sendCommand(['DEL', `${redisPrefix}rate:get:${publicId}`]).catch(() => undefined);
      redis.destroy();
    }
    process.exit(0);
  });
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
