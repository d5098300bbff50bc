import { describe, expect, it } from 'vitest';
import { redisForFile, testRedisUrl } from '../../../../test/helpers/redis.js';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../log.js';
import { openRedisBackends } from './index.js';

const { redis, prefix } = await redisForFile('Redis backends', 'backends');

describe.skipIf(!redis)('the Redis backends of an API process (caching reads)', () => {
  it("checks rate limits on a connection of their own, so a check is not answered by an invalidation of the caching connection's reads", async () => {
    const config = loadConfig({ REDIS_URL: testRedisUrl(), REDIS_PREFIX: prefix, DATA_DIR: '/nonexistent-unused' });
    if (!config.distributed) throw new Error('REDIS_URL set, so the distributed settings are read');
    const backends = openRedisBackends(config, config.distributed, createLogger('silent'), 'agent-tts-test-backends', { cacheReads: true });
    try {
      const invalidated: string[] = [];
      const cache = backends.client.clientSideCache;
      if (!cache) throw new Error('a caching client has a clientSideCache');
      cache.on('invalidate', (key: string | Buffer | null) => invalidated.push(String(key)));
      const limiter = backends.limiter();
      // Redis tracks the keys a script reads for the connection that ran it: on the caching
      // connection, each check after the first would send it an invalidation of the bucket.
      for (let i = 0; i < 5; i++) expect((await limiter.check('get:tracked', 100, 60_000, true)).allowed).toBe(true);
      await backends.store.ping();
      expect(invalidated.filter((key) => key.includes('rate:'))).toEqual([]);
    } finally {
      await backends.close();
    }
  });
});
