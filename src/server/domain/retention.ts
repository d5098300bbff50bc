import type { Logger } from '../log.js';
import type { AudioStorage, Store } from '../ports.js';

/** Deletes jobs (record and audio) whose plan retention has passed, in batches. */
export async function sweepExpiredJobs(store: Store, audio: AudioStorage, log: Logger, now = Date.now()): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = await store.deleteExpiredJobs(now, 500);
    await Promise.all(ids.map(async (id) => {
      await audio.delete(id);
      await audio.removeLeftovers(id, 0);
    }));
    total += ids.length;
    if (ids.length < 500) break;
  }
  if (total > 0) log.info({ deleted: total }, 'retention: expired jobs deleted');
  return total;
}
