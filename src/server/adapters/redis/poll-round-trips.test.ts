import { afterAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../../../../test/helpers/in-process.js';
import { deleteKeys, redisOrSkip, testRedisUrl, uniquePrefix } from '../../../../test/helpers/redis.js';

/**
 * What a poll costs the distributed mode in Redis round trips, counted by Redis itself (MONITOR): once
 * the key, its account, the job and the month's usage are in the API process's read cache (kept fresh
 * by Redis's invalidation messages), a poll sends one command, the rate limiter's script.
 */
const redis = await redisOrSkip('poll round trips');
const prefix = uniquePrefix('poll-round-trips');
let server: InProcessServer | undefined;

afterAll(async () => {
  await server?.close();
  if (!redis) return;
  await deleteKeys(redis, prefix);
  redis.destroy();
});

describe.skipIf(!redis)('a poll in the distributed mode', () => {
  it('makes one Redis round trip once its reads are cached (the rate limiter), and reads the key again only after its usage count is written', async () => {
    server = await startInProcess({ REDIS_URL: testRedisUrl(), REDIS_PREFIX: prefix });
    const { key } = await server.newKey();
    const posted = await server.request('POST', '/v1/agent-tts', { key, body: { text: 'One round trip per poll.' } });
    expect(posted.status).toBe(200);
    const { job_id: jobId } = (await posted.json()) as { job_id: string };
    const poll = () => server!.request('GET', `/v1/agent-tts?id=${jobId}`, { key });
    // Twice, so that every read of the next poll could come from the cache.
    for (let i = 0; i < 2; i++) expect((await poll()).status).toBe(200);

    const monitor = redis!.duplicate();
    monitor.on('error', () => undefined);
    await monitor.connect();
    const commands: string[] = [];
    const sentinel = `${prefix}end-of-polls`;
    let sawSentinel: () => void = () => undefined;
    const sentinelSeen = new Promise<void>((resolve) => (sawSentinel = resolve));
    // The queue's own commands (a local worker waits for jobs) are not a poll's.
    await monitor.monitor((line) => {
      if (line.includes(sentinel)) sawSentinel();
      else if (line.includes(prefix) && !line.includes(`${prefix}bull`)) commands.push(line);
    });
    const polls = 20;
    for (let i = 0; i < polls; i++) {
      const res = await poll();
      expect(res.status).toBe(200);
      expect(((await res.json()) as { status: string }).status).toBe('completed');
    }
    // Redis sends MONITOR lines in the order it ran the commands: once a command sent after the polls
    // shows, every poll's has.
    await redis!.get(sentinel);
    await sentinelSeen;
    monitor.destroy();

    // Commands a script runs show as well, from "lua": they are not round trips.
    const roundTrips = commands.filter((line) => !/\[\d+ lua\]/.test(line));
    const name = (line: string) => /"([A-Za-z]+)"/.exec(line.slice(line.indexOf(']') + 1))?.[1]?.toLowerCase() ?? '';
    const keyRecord = `"${prefix}key:`;
    const isScript = (line: string) => ['evalsha', 'eval'].includes(name(line));
    const limiter = roundTrips.filter((line) => isScript(line) && line.includes(`"${prefix}rate:get:`));
    const others = roundTrips.filter((line) => !limiter.includes(line));
    // The key-usage recorder writes the key's call count (a script on the key record) in batches, once
    // per interval, not per request; each such write invalidates the cached key record, which the next
    // poll reads again.
    const keyWrites = others.filter((line) => isScript(line) && line.includes(keyRecord));
    const keyReads = others.filter((line) => line.includes(keyRecord) && name(line) === 'hgetall');
    expect(limiter, roundTrips.join('\n')).toHaveLength(polls);
    expect(
      others.filter((line) => !keyWrites.includes(line) && !keyReads.includes(line)),
      roundTrips.join('\n'),
    ).toEqual([]);
    expect(keyReads.length, roundTrips.join('\n')).toBeLessThanOrEqual(keyWrites.length + 1);
  });
});
