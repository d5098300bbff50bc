import { createClient } from 'redis';

/**
 * The Redis keys of one benchmark run: the server runs with a unique REDIS_PREFIX, and everything under
 * it is deleted afterwards (SCAN + UNLINK, never KEYS or FLUSH: the Redis may be shared).
 */
async function withRedis<T>(url: string, use: (command: (args: string[]) => Promise<unknown>) => Promise<T>): Promise<T> {
  const client = createClient({ url, socket: { connectTimeout: 2_000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use((args) => client.sendCommand(args));
  } finally {
    await client.close().catch(() => client.destroy());
  }
}

async function scanPrefix(command: (args: string[]) => Promise<unknown>, prefix: string, each: (keys: string[]) => Promise<void>): Promise<void> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  let cursor = '0';
  // Bounded: a SCAN over even a large keyspace ends in a few thousand steps.
  for (let step = 0; step < 100_000; step++) {
    const [next, keys] = (await command(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000'])) as [string, string[]];
    if (keys.length > 0) await each(keys);
    cursor = String(next);
    if (cursor === '0') return;
  }
}

export async function countKeys(url: string, prefix: string): Promise<number> {
  return withRedis(url, async (command) => {
    let count = 0;
    await scanPrefix(command, prefix, async (keys) => {
      count += keys.length;
    });
    return count;
  });
}

export async function deleteKeys(url: string, prefix: string): Promise<number> {
  return withRedis(url, async (command) => {
    let deleted = 0;
    await scanPrefix(command, prefix, async (keys) => {
      deleted += Number(await command(['UNLINK', ...keys]));
    });
    return deleted;
  });
}

export async function redisReachable(url: string): Promise<string | undefined> {
  try {
    await withRedis(url, (command) => command(['PING']));
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
