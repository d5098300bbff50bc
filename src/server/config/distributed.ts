import { z } from 'zod';
import { ConfigError, settingProblemLines } from './error.js';
import { portNumber, wholeNumber } from './rules.js';

/**
 * Settings that only the distributed mode reads (the shared ones, REDIS_URL and REDIS_PREFIX among
 * them, are in settings.ts). Same rules: environment variables, a bad value stops the start with a
 * message naming the variable.
 */
const DistributedEnv = z.object({
  /** Longest any store or rate-limit command may take, waiting for a reconnect included. */
  REDIS_COMMAND_TIMEOUT_MS: wholeNumber(1, 60_000, 'milliseconds').default(2_000),
  /** How long a worker's claim on a job lasts without renewal; renewed at half this while it runs. */
  QUEUE_LOCK_MS: wholeNumber(500, 600_000, 'milliseconds').default(30_000),
  /** How often workers look for jobs whose worker died (lock expired) and put them back in the queue. */
  QUEUE_STALLED_CHECK_MS: wholeNumber(200, 600_000, 'milliseconds').default(15_000),
  /** Times a job may be recovered from a dead worker before it is failed. */
  QUEUE_MAX_STALLED: wholeNumber(0, 100).default(2),
  /** Runs of a job that throws (the store unreachable while settling it, say) before it is failed. */
  QUEUE_ATTEMPTS: wholeNumber(1, 100).default(3),
  /** How often an API process checks that every processing job is in the queue (the outbox sweep). */
  QUEUE_RECONCILE_SECONDS: wholeNumber(1, 3600, 'seconds').default(15),
  /** Port of a worker's own /healthz, /readyz and /metrics listener; unset: none. */
  WORKER_OPS_PORT: portNumber().optional(),
});

/** The name of every setting of the distributed mode, as docs/configuration.md lists them. */
export const DISTRIBUTED_VARIABLES: readonly string[] = Object.keys(DistributedEnv.shape);

/** The distributed mode's queue and Redis settings, which the Redis adapters take (through compose.ts). */
export interface DistributedSettings {
  commandTimeoutMs: number;
  lockMs: number;
  stalledCheckMs: number;
  maxStalled: number;
  attempts: number;
  reconcileMs: number;
  workerOpsPort?: number;
}

/** The distributed mode's own settings from `env`; loadConfig reads them when REDIS_URL is set. */
export function loadDistributedSettings(env: NodeJS.ProcessEnv): DistributedSettings {
  const parsed = DistributedEnv.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(`Invalid configuration:\n${settingProblemLines(parsed.error.issues).join('\n')}`);
  }
  const e = parsed.data;
  return {
    commandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    lockMs: e.QUEUE_LOCK_MS,
    stalledCheckMs: e.QUEUE_STALLED_CHECK_MS,
    maxStalled: e.QUEUE_MAX_STALLED,
    attempts: e.QUEUE_ATTEMPTS,
    reconcileMs: e.QUEUE_RECONCILE_SECONDS * 1000,
    workerOpsPort: e.WORKER_OPS_PORT,
  };
}
