import { createHash } from 'node:crypto';
import type { RedisClient } from './client.js';

/** node-redis's command options without its per-command timeout (0 arms none). */
const UNTIMED = { timeout: 0 };

/**
 * A Lua script run with EVALSHA, falling back to EVAL when the server does not have it cached (after a
 * restart or a SCRIPT FLUSH). Redis runs a script as one atomic step: the basis of every
 * multi-key invariant of the distributed mode.
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /**
   * `untimed`: for a caller inside `withinDeadline` on a connected client, which bounds the wait
   * already. node-redis would otherwise arm an `AbortSignal.timeout` for the command (its default is 5 s
   * even when none is set), a tenth of a Redis poll's CPU time; its only use is to drop a command still
   * waiting in the offline queue, which a connected client's command does not enter.
   */
  async run(client: RedisClient, keys: readonly string[], args: readonly (string | number)[], untimed = false): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    const options = untimed && client.isReady ? UNTIMED : undefined;
    try {
      return await client.sendCommand(['EVALSHA', this.sha, ...tail], options);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.sendCommand(['EVAL', this.source, ...tail], options);
    }
  }
}
