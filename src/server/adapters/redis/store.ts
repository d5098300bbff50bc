import { RedisKeys } from './keys.js';
import { LuaScript, RedisUnavailableError, asRedisUnavailable, closeRedisClient, fenceAt, withinDeadline, type RedisClient } from './client.js';
import { type DecodedRecords, decodedRecordsOf } from './decoded-records.js';
import type {
  Account,
  ApiKeyRecord,
  ClaimResult,
  CreateJobResult,
  JobRecord,
  SessionRecord,
  SignInTokenRecord,
  Store,
  UsageFigures,
} from '../../ports/index.js';

/**
 * A job record outlives its retention by this much: the retention sweep deletes it (and its audio) on
 * time, and the Redis TTL only catches records the sweep never reached, so no job lingers forever.
 */
const JOB_RECORD_GRACE_MS = 3_600_000;
/** Past every representable date: legacy imports use MAX_SAFE_INTEGER for "never". */
const NEVER = 8.64e15;

// ─── Scripts. Each runs atomically in Redis; that is what makes the invariants hold across instances. ───

const CREATE_ACCOUNT = new LuaScript(`
-- KEYS: account hash, accounts index. ARGV: id, createdAt, then field/value pairs
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('ERR account ' .. ARGV[1] .. ' exists') end
local fields = {}
for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
`);

const UPDATE_IF_EXISTS = new LuaScript(`
-- KEYS: a hash. ARGV: field/value pairs (may be none). Returns whether the hash exists.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if #ARGV > 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end
return 1
`);

const CREATE_KEY = new LuaScript(`
-- KEYS: key hash, account's active-key marker, keys index, account's keys index, account hash
-- ARGV: publicId, accountId, secretHash, name, createdAt
if redis.call('EXISTS', KEYS[5]) == 0 then return redis.error_reply('ERR no account ' .. ARGV[2]) end
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('ERR key ' .. ARGV[1] .. ' exists') end
-- At most one active key per account (spec 3.2): the marker is set and checked in one step.
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'publicId', ARGV[1], 'accountId', ARGV[2], 'secretHash', ARGV[3], 'name', ARGV[4],
  'createdAt', ARGV[5], 'callCount', 0)
redis.call('SET', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[1])
return 1
`);

const REVOKE_KEY = new LuaScript(`
-- KEYS: key hash, account's active-key marker. ARGV: revokedAt, publicId
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'revokedAt') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'revokedAt', ARGV[1])
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
return 1
`);

const RECORD_KEY_USE = new LuaScript(`
-- KEYS: key hash. ARGV: calls, lastUsedAt
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'callCount', ARGV[1])
local last = tonumber(redis.call('HGET', KEYS[1], 'lastUsedAt') or '0')
if tonumber(ARGV[2]) > last then redis.call('HSET', KEYS[1], 'lastUsedAt', ARGV[2]) end
return 1
`);

/**
 * Lua: returns `reply` when Redis's clock is past the fence in `arg` (ms; 0 = none), the time at
 * which the caller gave up on this script (see fenceAt): a script Redis runs only after a freeze
 * must not act for a caller that was already told it failed.
 */
const pastFence = (arg: string, reply: string) => `if tonumber(${arg}) > 0 then
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(${arg}) then return ${reply} end
end`;

const CLAIM_IDEMPOTENCY_KEY = new LuaScript(`
-- KEYS: claim hash. ARGV: jobId, now, staleAfterMs, claimTtlMs, job key prefix, fence (see CREATE_JOB)
${pastFence('ARGV[6]', "{'late'}")}
local held = redis.call('HMGET', KEYS[1], 'jobId', 'claimedAt', 'bound')
local function claim()
  redis.call('HSET', KEYS[1], 'jobId', ARGV[1], 'claimedAt', ARGV[2], 'bound', '0')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return {'claimed'}
end
if not held[1] then return claim() end
if held[3] == '1' then
  -- A binding normally goes with its job (same expiry, same sweep); one whose job is gone frees the key.
  if redis.call('EXISTS', ARGV[5] .. held[1]) == 1 then return {'existing', held[1]} end
  return claim()
end
-- Unbound: its holder is between claim and job creation, or died there.
if tonumber(ARGV[2]) - tonumber(held[2]) > tonumber(ARGV[3]) then return claim() end
return {'pending'}
`);

const RELEASE_IDEMPOTENCY_KEY = new LuaScript(`
-- KEYS: claim hash. ARGV: jobId. Only an unbound claim of this job is released.
local held = redis.call('HMGET', KEYS[1], 'jobId', 'bound')
if held[1] == ARGV[1] and held[2] == '0' then redis.call('DEL', KEYS[1]) return 1 end
return 0
`);

const CREATE_JOB = new LuaScript(`
-- KEYS: usage hash, job hash, processing index, expiry index, claim hash
-- ARGV: limit, reserve, jobId, createdAt, deleteAfter, expireAt ('' = never), bind ('1'/'0'), fence, job field/value pairs...
-- The fence (ms on Redis's clock, 0 = none) is when the caller gave up waiting for this answer: a
-- script that only runs later (Redis froze with it unread) must not create a job nobody was told of.
${pastFence('ARGV[8]', '{2}')}
local usage = redis.call('HMGET', KEYS[1], 'settled', 'reserved')
local used = tonumber(usage[1] or '0') + tonumber(usage[2] or '0')
local reserve = tonumber(ARGV[2])
if used + reserve > tonumber(ARGV[1]) then return {0, used} end
if redis.call('EXISTS', KEYS[2]) == 1 then return redis.error_reply('ERR job ' .. ARGV[3] .. ' exists') end
redis.call('HINCRBY', KEYS[1], 'reserved', reserve)
local fields = {}
for i = 9, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], unpack(fields))
if ARGV[6] ~= '' then redis.call('PEXPIREAT', KEYS[2], ARGV[6]) end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[3])
if ARGV[7] == '1' then
  -- Bind the claim to its job for the life of the job, unless a stale-claim takeover moved it on.
  local holder = redis.call('HGET', KEYS[5], 'jobId')
  if holder == ARGV[3] or not holder then
    redis.call('HSET', KEYS[5], 'jobId', ARGV[3], 'claimedAt', ARGV[4], 'bound', '1')
    if ARGV[6] ~= '' then redis.call('PEXPIREAT', KEYS[5], ARGV[6]) else redis.call('PERSIST', KEYS[5]) end
  end
end
return {1, used + reserve}
`);

const UPDATE_PROGRESS = new LuaScript(`
-- KEYS: job hash. ARGV: progress
-- Only ever raised: a run started again, or a write that arrives late, never lowers what was shown.
if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'progress') or '0') >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[1])
return 1
`);

const SETTLE_JOB = new LuaScript(`
-- KEYS: job hash, usage hash, processing index. ARGV: jobId, charged, job field/value pairs...
-- Completion and failure alike: the reservation leaves the ledger, the charge (0 on failure) enters it.
if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reservedCentiminutes') or '0')
local fields = {}
for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
local left = tonumber(redis.call('HGET', KEYS[2], 'reserved') or '0') - reserved
if left < 0 then left = 0 end
redis.call('HSET', KEYS[2], 'reserved', left)
redis.call('HINCRBY', KEYS[2], 'settled', ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
`);

const DELETE_EXPIRED_JOB = new LuaScript(`
-- KEYS: job hash, expiry index, processing index, usage hash, claim hash. ARGV: jobId
-- Removing the id from the expiry index is the claim: one sweeping instance deletes each job once.
if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'status') == 'processing' then
    local reserved = tonumber(redis.call('HGET', KEYS[1], 'reservedCentiminutes') or '0')
    local left = tonumber(redis.call('HGET', KEYS[4], 'reserved') or '0') - reserved
    if left < 0 then left = 0 end
    redis.call('HSET', KEYS[4], 'reserved', left)
  end
  redis.call('DEL', KEYS[1])
end
if redis.call('HGET', KEYS[5], 'jobId') == ARGV[1] then redis.call('DEL', KEYS[5]) end
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
`);

// ─── Records ⇄ hashes. Numbers are stored as decimal strings; absent optional fields are absent fields. ───

type Hash = Record<string, string>;

const JOB_NUMBERS = [
  'speed',
  'createdAt',
  'deleteAfter',
  'reservedCentiminutes',
  'chargedCentiminutes',
  'progress',
  'completedAt',
  'processingTimeMs',
  'durationSeconds',
  'fileSizeBytes',
  'legacyExpiresAt',
] as const;
const JOB_STRINGS = [
  'id',
  'accountId',
  'keyPublicId',
  'status',
  'text',
  'voice',
  'language',
  'usageMonth',
  'errorCode',
  'errorMessage',
  'idempotencyKey',
] as const;

function pairs(record: object): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(record)) {
    if (value !== undefined && value !== null) out.push(name, String(value));
  }
  return out;
}

function hashOf(record: object): Hash {
  const flat = pairs(record);
  const hash: Hash = {};
  for (let i = 0; i < flat.length; i += 2) hash[flat[i]] = flat[i + 1];
  return hash;
}

function isEmpty(hash: Hash): boolean {
  return Object.keys(hash).length === 0;
}

function toJob(hash: Hash): JobRecord | undefined {
  if (isEmpty(hash) || hash.id === undefined) return undefined;
  const job: Record<string, unknown> = {};
  for (const name of JOB_STRINGS) if (hash[name] !== undefined) job[name] = hash[name];
  for (const name of JOB_NUMBERS) if (hash[name] !== undefined) job[name] = Number(hash[name]);
  return job as unknown as JobRecord;
}

function toAccount(hash: Hash): Account | undefined {
  if (isEmpty(hash) || hash.id === undefined) return undefined;
  return {
    id: hash.id,
    name: hash.name,
    plan: hash.plan as Account['plan'],
    subscription: hash.subscription as Account['subscription'],
    createdAt: Number(hash.createdAt),
  };
}

function toKey(hash: Hash): ApiKeyRecord | undefined {
  if (isEmpty(hash) || hash.publicId === undefined) return undefined;
  return {
    publicId: hash.publicId,
    accountId: hash.accountId,
    secretHash: hash.secretHash,
    name: hash.name,
    createdAt: Number(hash.createdAt),
    lastUsedAt: hash.lastUsedAt === undefined ? undefined : Number(hash.lastUsedAt),
    callCount: Number(hash.callCount ?? 0),
    revokedAt: hash.revokedAt === undefined ? undefined : Number(hash.revokedAt),
  };
}

/**
 * When Redis itself drops the record of a job whose retention ends at `deleteAfter` ('' = never): the
 * grace after the later of that and now, so the sweep (which also frees what the job holds) always
 * gets there first, even for a record written after its retention already ended.
 */
function recordExpiry(deleteAfter: number): string {
  const at = Math.max(deleteAfter, Date.now()) + JOB_RECORD_GRACE_MS;
  return at >= NEVER ? '' : String(Math.ceil(at));
}

/**
 * The distributed store: accounts, keys, jobs, Idempotency-Key claims and the usage ledger in Redis.
 * Every operation that reads and then writes is one Lua script, so it is exact with any number of API
 * instances and workers. Job records carry a TTL at their plan's retention (plus a grace the sweep
 * uses); their ids are also in a sorted set by expiry, which is how the sweep finds the audio to delete.
 *
 * Scripts address keys they read from records (a job's usage ledger, say), so this needs a standalone
 * Redis (or a primary with replicas / Sentinel), not Redis Cluster.
 */
export class RedisStore implements Store {
  readonly keys: RedisKeys;
  /** With a caching client: decoded accounts, keys and jobs, dropped on Redis's invalidations. */
  private readonly decoded: DecodedRecords | undefined;

  /** `ownsClient`: close() also closes the client (the admin CLI); services that share it close it themselves. */
  constructor(
    readonly client: RedisClient,
    prefix: string,
    private readonly ownsClient = false,
  ) {
    this.keys = new RedisKeys(prefix);
    this.decoded = decodedRecordsOf(client);
  }

  /**
   * Every operation runs through here: within the client's command deadline (see withinDeadline), and
   * an unreachable Redis is reported as such (see asRedisUnavailable).
   */
  private async guard<T>(what: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await withinDeadline(this.client, what, operation);
    } catch (error) {
      throw asRedisUnavailable(error, what, this.client);
    }
  }

  private async hash(key: string): Promise<Hash> {
    await this.invalidationsIn();
    return (await this.client.hGetAll(key)) as unknown as Hash;
  }

  /** What `read` makes of `key`: from the decoded records when the client caches reads (see `keep` there). */
  private async cached<T>(key: string, read: () => Promise<T>, keep?: (value: T) => boolean): Promise<T> {
    await this.invalidationsIn();
    return this.decoded ? this.decoded.get(key, read, keep) : read();
  }

  /** The hash at `key`, decoded. */
  private record<T>(key: string, decode: (hash: Hash) => T, keep?: (value: T) => boolean): Promise<T> {
    return this.cached(key, async () => decode((await this.client.hGetAll(key)) as unknown as Hash), keep);
  }

  /**
   * With a client that caches reads (createRedisClient's `cacheReads`), a read may be answered from
   * the cache without a round trip. Redis sends the invalidation of a key before the writer gets its
   * answer, so it is on this connection's socket before anything that follows the write can reach this
   * process; waiting for the end of the event loop's current I/O phase lets the client read it first.
   */
  private async invalidationsIn(): Promise<void> {
    if (this.client.clientSideCache) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  async createAccount(a: Account): Promise<void> {
    return this.guard('createAccount', async () => {
      await CREATE_ACCOUNT.run(
        this.client,
        [this.keys.account(a.id), this.keys.accounts()],
        [a.id, a.createdAt, ...pairs({ id: a.id, name: a.name, plan: a.plan, subscription: a.subscription, createdAt: a.createdAt })],
      );
    });
  }

  async getAccount(id: string): Promise<Account | undefined> {
    return this.guard('getAccount', async () => {
      return this.record(this.keys.account(id), toAccount);
    });
  }

  async updateAccount(id: string, patch: Partial<Pick<Account, 'name' | 'plan' | 'subscription'>>): Promise<boolean> {
    return this.guard('updateAccount', async () => {
      const allowed = { name: patch.name, plan: patch.plan, subscription: patch.subscription };
      return (await UPDATE_IF_EXISTS.run(this.client, [this.keys.account(id)], pairs(allowed))) === 1;
    });
  }

  async listAccounts(): Promise<Account[]> {
    return this.guard('listAccounts', async () => {
      const ids = await this.client.zRange(this.keys.accounts(), 0, -1);
      const accounts = await Promise.all(ids.map((id) => this.getAccount(id)));
      return accounts.filter((a): a is Account => a !== undefined);
    });
  }

  async createKey(k: ApiKeyRecord): Promise<boolean> {
    return this.guard('createKey', async () => {
      const created = await CREATE_KEY.run(
        this.client,
        [
          this.keys.apiKey(k.publicId),
          this.keys.activeKey(k.accountId),
          this.keys.apiKeys(),
          this.keys.accountKeys(k.accountId),
          this.keys.account(k.accountId),
        ],
        [k.publicId, k.accountId, k.secretHash, k.name, k.createdAt],
      );
      return created === 1;
    });
  }

  async getKey(publicId: string): Promise<ApiKeyRecord | undefined> {
    return this.guard('getKey', async () => {
      return this.record(this.keys.apiKey(publicId), toKey);
    });
  }

  async listKeys(accountId?: string): Promise<ApiKeyRecord[]> {
    return this.guard('listKeys', async () => {
      const index = accountId === undefined ? this.keys.apiKeys() : this.keys.accountKeys(accountId);
      const ids = await this.client.zRange(index, 0, -1);
      const keys = await Promise.all(ids.map((id) => this.getKey(id)));
      return keys.filter((k): k is ApiKeyRecord => k !== undefined);
    });
  }

  async renameKey(publicId: string, name: string): Promise<boolean> {
    return this.guard('renameKey', async () => {
      return (await UPDATE_IF_EXISTS.run(this.client, [this.keys.apiKey(publicId)], ['name', name])) === 1;
    });
  }

  async revokeKey(publicId: string, at: number): Promise<boolean> {
    return this.guard('revokeKey', async () => {
      // The owning account never changes, so reading it first does not weaken the script's atomicity.
      const accountId = await this.client.hGet(this.keys.apiKey(publicId), 'accountId');
      if (!accountId) return false;
      const revoked = await REVOKE_KEY.run(this.client, [this.keys.apiKey(publicId), this.keys.activeKey(accountId)], [at, publicId]);
      return revoked === 1;
    });
  }

  async recordKeyUse(publicId: string, calls: number, lastUsedAt: number): Promise<void> {
    return this.guard('recordKeyUse', async () => {
      await RECORD_KEY_USE.run(this.client, [this.keys.apiKey(publicId)], [calls, lastUsedAt]);
    });
  }

  async claimIdempotencyKey(accountId: string, key: string, jobId: string, now: number, staleAfterMs: number): Promise<ClaimResult> {
    return this.guard('claimIdempotencyKey', async () => {
      const reply = (await CLAIM_IDEMPOTENCY_KEY.run(
        this.client,
        [this.keys.idempotency(accountId, key)],
        // An unbound claim expires on its own well after it went stale, so abandoned claims do not pile up.
        [jobId, now, staleAfterMs, Math.max(60_000, staleAfterMs * 4), this.keys.jobPrefix(), fenceAt(this.client)],
      )) as string[];
      // Run after its caller gave up (Redis froze with it unread): it claimed nothing, and no one waits for this.
      if (reply[0] === 'late') throw new RedisUnavailableError('Redis ran the Idempotency-Key claim after its caller had given up; nothing was claimed');
      if (reply[0] === 'claimed') return { kind: 'claimed' };
      if (reply[0] === 'existing') return { kind: 'existing', jobId: reply[1] };
      return { kind: 'pending' };
    });
  }

  async releaseIdempotencyKey(accountId: string, key: string, jobId: string): Promise<void> {
    return this.guard('releaseIdempotencyKey', async () => {
      await RELEASE_IDEMPOTENCY_KEY.run(this.client, [this.keys.idempotency(accountId, key)], [jobId]);
    });
  }

  async createJob(job: JobRecord, limitCentiminutes: number): Promise<CreateJobResult> {
    return this.guard('createJob', async () => {
      const bind = job.idempotencyKey !== undefined;
      const reply = (await CREATE_JOB.run(
        this.client,
        [
          this.keys.usage(job.accountId, job.usageMonth),
          this.keys.job(job.id),
          this.keys.processingJobs(),
          this.keys.jobExpiry(),
          // Without an Idempotency-Key the script never touches this key.
          this.keys.idempotency(job.accountId, bind ? job.idempotencyKey! : ''),
        ],
        [
          limitCentiminutes,
          job.reservedCentiminutes,
          job.id,
          job.createdAt,
          job.deleteAfter,
          recordExpiry(job.deleteAfter),
          bind ? '1' : '0',
          fenceAt(this.client),
          ...pairs(job),
        ],
      )) as number[];
      if (reply[0] === 2) throw new RedisUnavailableError('Redis ran the job creation after its caller had given up; nothing was created');
      if (reply[0] === 1) {
        await this.client.zAdd(this.keys.accountJobs(job.accountId), { score: job.createdAt, value: job.id });
        return { kind: 'created' };
      }
      return { kind: 'usage_exceeded', usedCentiminutes: Number(reply[1]), limitCentiminutes };
    });
  }

  async getJob(id: string): Promise<JobRecord | undefined> {
    return this.guard('getJob', async () => {
      // Only ended jobs are kept decoded: a running one changes with every progress write.
      return this.record(this.keys.job(id), toJob, (job) => job !== undefined && job.status !== 'processing');
    });
  }

  /** A job's status alone (not part of the port): waits poll it without fetching the whole text. */
  async jobStatus(id: string): Promise<JobRecord['status'] | undefined> {
    return this.guard('jobStatus', async () => {
      await this.invalidationsIn();
      return ((await this.client.hGet(this.keys.job(id), 'status')) ?? undefined) as JobRecord['status'] | undefined;
    });
  }

  async updateProgress(id: string, progress: number): Promise<void> {
    return this.guard('updateProgress', async () => {
      await UPDATE_PROGRESS.run(this.client, [this.keys.job(id)], [progress]);
    });
  }

  /** Reads the job's immutable ledger coordinates, so the settling script can name every key it writes. */
  private async ledgerOf(id: string): Promise<{ accountId: string; usageMonth: string; idempotencyKey?: string } | undefined> {
    const [accountId, usageMonth, idempotencyKey] = await this.client.hmGet(this.keys.job(id), ['accountId', 'usageMonth', 'idempotencyKey']);
    if (!accountId || !usageMonth) return undefined;
    return { accountId, usageMonth, idempotencyKey: idempotencyKey ?? undefined };
  }

  private async settle(id: string, charged: number, fields: Record<string, unknown>): Promise<boolean> {
    const ledger = await this.ledgerOf(id);
    if (!ledger) return false;
    const settled = await SETTLE_JOB.run(
      this.client,
      [this.keys.job(id), this.keys.usage(ledger.accountId, ledger.usageMonth), this.keys.processingJobs()],
      [id, charged, ...pairs(fields)],
    );
    return settled === 1;
  }

  async completeJob(
    id: string,
    r: { durationSeconds: number; fileSizeBytes: number; completedAt: number; processingTimeMs: number; chargedCentiminutes: number },
  ): Promise<boolean> {
    return this.guard('completeJob', async () => {
      return this.settle(id, r.chargedCentiminutes, {
        status: 'completed',
        // The text is only needed to synthesize; a completed record does not keep it.
        text: '',
        progress: 1,
        durationSeconds: r.durationSeconds,
        fileSizeBytes: r.fileSizeBytes,
        completedAt: r.completedAt,
        processingTimeMs: r.processingTimeMs,
        chargedCentiminutes: r.chargedCentiminutes,
      });
    });
  }

  async failJob(id: string, e: { code: 'TTS_PROVIDER_ERROR' | 'INTERNAL_ERROR'; message: string; completedAt: number }): Promise<boolean> {
    return this.guard('failJob', async () => {
      return this.settle(id, 0, {
        status: 'failed',
        text: '',
        errorCode: e.code,
        errorMessage: e.message,
        completedAt: e.completedAt,
        chargedCentiminutes: 0,
      });
    });
  }

  async listProcessingJobIds(): Promise<string[]> {
    return this.guard('listProcessingJobIds', async () => {
      return this.client.zRange(this.keys.processingJobs(), 0, -1);
    });
  }

  async deleteExpiredJobs(now: number, limit: number): Promise<string[]> {
    return this.guard('deleteExpiredJobs', async () => {
      const ids = await this.client.zRangeByScore(this.keys.jobExpiry(), '-inf', now, { LIMIT: { offset: 0, count: limit } });
      const deleted: string[] = [];
      for (const id of ids) {
        const ledger = await this.ledgerOf(id);
        const claimKey = ledger?.idempotencyKey !== undefined ? this.keys.idempotency(ledger.accountId, ledger.idempotencyKey) : this.keys.idempotency('-', '');
        const usageKey = ledger ? this.keys.usage(ledger.accountId, ledger.usageMonth) : this.keys.usage('-', '-');
        const removed = await DELETE_EXPIRED_JOB.run(
          this.client,
          [this.keys.job(id), this.keys.jobExpiry(), this.keys.processingJobs(), usageKey, claimKey],
          [id],
        );
        if (removed === 1) deleted.push(id);
        // The account's index of recent jobs forgets it too (listRecentJobs also drops ids it cannot find).
        if (ledger) await this.client.zRem(this.keys.accountJobs(ledger.accountId), id);
      }
      return deleted;
    });
  }

  async importLegacyJob(job: JobRecord): Promise<void> {
    return this.guard('importLegacyJob', async () => {
      const expireAt = recordExpiry(job.deleteAfter);
      const multi = this.client
        .multi()
        .hSet(this.keys.job(job.id), hashOf(job))
        .zAdd(this.keys.accountJobs(job.accountId), { score: job.createdAt, value: job.id });
      if (expireAt !== '') multi.pExpireAt(this.keys.job(job.id), Number(expireAt)).zAdd(this.keys.jobExpiry(), { score: job.deleteAfter, value: job.id });
      await multi.exec();
    });
  }

  async listRecentJobs(accountId: string, limit: number): Promise<JobRecord[]> {
    return this.guard('listRecentJobs', async () => {
      const index = this.keys.accountJobs(accountId);
      const jobs: JobRecord[] = [];
      // Ids of jobs deleted since (retention) are dropped from the index as they are met.
      for (let offset = 0; jobs.length < limit; offset += limit) {
        const ids = await this.client.zRange(index, '+inf', '-inf', { BY: 'SCORE', REV: true, LIMIT: { offset, count: limit } });
        if (ids.length === 0) break;
        const gone: string[] = [];
        for (const id of ids) {
          const job = toJob(await this.hash(this.keys.job(id)));
          if (job) jobs.push(job);
          else gone.push(id);
        }
        if (gone.length > 0) {
          await this.client.zRem(index, gone);
          offset -= gone.length;
        }
      }
      return jobs.slice(0, limit);
    });
  }

  async createSession(session: SessionRecord): Promise<void> {
    return this.guard('createSession', async () => {
      const key = this.keys.session(session.idHash);
      await this.client
        .multi()
        .hSet(key, { accountId: session.accountId, createdAt: String(session.createdAt), expiresAt: String(session.expiresAt) })
        .pExpireAt(key, session.expiresAt)
        .exec();
    });
  }

  async getSession(idHash: string, now: number): Promise<SessionRecord | undefined> {
    return this.guard('getSession', async () => {
      const hash = await this.hash(this.keys.session(idHash));
      if (hash.accountId === undefined || Number(hash.expiresAt) <= now) return undefined;
      return { idHash, accountId: hash.accountId, createdAt: Number(hash.createdAt), expiresAt: Number(hash.expiresAt) };
    });
  }

  async deleteSession(idHash: string): Promise<void> {
    return this.guard('deleteSession', async () => {
      await this.client.del(this.keys.session(idHash));
    });
  }

  async createSignInToken(token: SignInTokenRecord): Promise<void> {
    return this.guard('createSignInToken', async () => {
      const key = this.keys.signInToken(token.tokenHash);
      await this.client.set(key, `${token.expiresAt}:${token.accountId}`, { PXAT: token.expiresAt });
    });
  }

  async consumeSignInToken(tokenHash: string, now: number): Promise<string | undefined> {
    return this.guard('consumeSignInToken', async () => {
      // GETDEL takes it in one step: of two requests with the same token, one gets it.
      const value = await this.client.getDel(this.keys.signInToken(tokenHash));
      if (value === null) return undefined;
      const at = value.indexOf(':');
      return Number(value.slice(0, at)) > now ? value.slice(at + 1) : undefined;
    });
  }

  async getUsage(accountId: string, month: string): Promise<UsageFigures> {
    return this.guard('getUsage', async () => {
      const key = this.keys.usage(accountId, month);
      const used = await this.cached(key, async () => {
        const [settled, reserved] = await this.client.hmGet(key, ['settled', 'reserved']);
        return Number(settled ?? 0) + Number(reserved ?? 0);
      });
      return { usedCentiminutes: used };
    });
  }

  async setUsage(accountId: string, month: string, usedCentiminutes: number): Promise<void> {
    return this.guard('setUsage', async () => {
      await this.client.hSet(this.keys.usage(accountId, month), 'settled', String(usedCentiminutes));
    });
  }

  async ping(): Promise<void> {
    return this.guard('ping', async () => {
      await this.client.ping();
    });
  }

  async close(): Promise<void> {
    if (this.ownsClient) await closeRedisClient(this.client);
  }
}
