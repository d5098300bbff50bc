import { connectTestRedis, deleteKeys, testRedisUrl } from './redis.js';

/**
 * Global setup of the Redis-mode run (vitest.redis.config.ts): refuses to start without Redis — this
 * run exists to exercise it, so a silent skip would report a pass that tested nothing — and deletes
 * every key of the run at the end.
 */
export async function setup(): Promise<void> {
  const client = await connectTestRedis();
  if (!client) {
    throw new Error(`The Redis-mode end-to-end run needs Redis at ${testRedisUrl()} (set TEST_REDIS_URL, or run .ci/ensure-redis.sh).`);
  }
  client.destroy();
}

export async function teardown(): Promise<void> {
  const prefix = process.env.TEST_REDIS_RUN_PREFIX;
  const client = await connectTestRedis();
  if (!client || !prefix) return;
  const deleted = await deleteKeys(client, prefix);
  console.log(`Redis-mode run: deleted ${deleted} keys under ${prefix}`);
  client.destroy();
}
