import type { AccountRepository, IdempotencyRepository, KeyRepository, SessionRepository, Store, UsageRepository } from '../../ports/index.js';
import { assembled } from '../assembled.js';
import { RedisAccess } from './access.js';
import { redisAccounts } from './accounts.js';
import { redisApiKeys } from './api-keys.js';
import { closeRedisClient, type RedisClient } from './client.js';
import { redisIdempotency } from './idempotency.js';
import { type RedisJobRepository, redisJobs } from './jobs.js';
import type { RedisKeys } from './keys.js';
import { redisSessions } from './sessions.js';
import { redisUsage } from './usage.js';

/** Every repository of the store, as the Redis modules implement them over one RedisAccess. */
type RedisRepositories = AccountRepository & KeyRepository & IdempotencyRepository & RedisJobRepository & UsageRepository & SessionRepository;

/**
 * The distributed store: accounts, keys, jobs, Idempotency-Key claims and the usage ledger in Redis,
 * one module per repository (accounts.ts, api-keys.ts, idempotency.ts, jobs.ts, usage.ts,
 * sessions.ts) over one client. Every operation that reads and then writes is one Lua script
 * (scripts.ts), so it is exact with any number of API instances and workers.
 *
 * Scripts address keys they read from records (a job's usage ledger, say), so this needs a standalone
 * Redis (or a primary with replicas / Sentinel), not Redis Cluster.
 */
export class RedisStore extends assembled<RedisRepositories>() implements Store {
  readonly keys: RedisKeys;
  private readonly redis: RedisAccess;

  /** `ownsClient`: close() also closes the client (the admin CLI); services that share it close it themselves. */
  constructor(
    readonly client: RedisClient,
    prefix: string,
    private readonly ownsClient = false,
  ) {
    const redis = new RedisAccess(client, prefix);
    super({
      ...redisAccounts(redis),
      ...redisApiKeys(redis),
      ...redisIdempotency(redis),
      ...redisJobs(redis),
      ...redisUsage(redis),
      ...redisSessions(redis),
    });
    this.redis = redis;
    this.keys = redis.keys;
  }

  async ping(): Promise<void> {
    return this.redis.guard('ping', async () => {
      await this.client.ping();
    });
  }

  async close(): Promise<void> {
    if (this.ownsClient) await closeRedisClient(this.client);
  }
}
