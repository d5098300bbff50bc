import { sweepStorage } from '../../domain/retention.js';
import { createLogger } from '../../log.js';
import { systemClock } from '../../ports/index.js';
import type { AdminCommand } from './context.js';

/** `storage sweep`: the server's background sweep (domain/retention.ts), run once now. */
const sweep: AdminCommand = async ({ store, audio, print }) => {
  const { expiredJobs, leftoverJobs } = await sweepStorage(store, audio, createLogger('silent'), systemClock.now());
  print(`${expiredJobs} expired jobs deleted; stale partial audio of ${leftoverJobs} jobs removed`, {
    expired_jobs: expiredJobs,
    leftover_jobs: leftoverJobs,
  });
};

/** The `storage …` commands. */
export const STORAGE_COMMANDS = { 'storage sweep': sweep } satisfies Record<string, AdminCommand>;
