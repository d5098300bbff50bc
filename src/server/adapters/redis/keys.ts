/**
 * Every Redis key and channel of a deployment, under its configurable prefix (REDIS_PREFIX), so several
 * deployments (or test runs) can share one Redis without seeing each other.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  account(id: string): string {
    return `${this.prefix}account:${id}`;
  }
  /** All accounts, scored by creation time. */
  accounts(): string {
    return `${this.prefix}accounts`;
  }
  /** The public id of the account's active key, if any: the one-active-key rule lives here. */
  activeKey(accountId: string): string {
    return `${this.prefix}account:${accountId}:active-key`;
  }
  accountKeys(accountId: string): string {
    return `${this.prefix}account:${accountId}:keys`;
  }
  apiKey(publicId: string): string {
    return `${this.prefix}key:${publicId}`;
  }
  apiKeys(): string {
    return `${this.prefix}keys`;
  }
  /** The account's job ids, scored by creation time (the dashboard's recent jobs). */
  accountJobs(accountId: string): string {
    return `${this.prefix}account:${accountId}:jobs`;
  }
  /** A dashboard session, by the SHA-256 of its id. */
  session(idHash: string): string {
    return `${this.prefix}session:${idHash}`;
  }
  /** A one-time sign-in token, by its SHA-256. */
  signInToken(tokenHash: string): string {
    return `${this.prefix}sign-in:${tokenHash}`;
  }
  job(id: string): string {
    return `${this.prefix}job:${id}`;
  }
  /** Key prefix of job records, for scripts that look a job up by an id they read. */
  jobPrefix(): string {
    return `${this.prefix}job:`;
  }
  /** Jobs still processing, scored by creation time. */
  processingJobs(): string {
    return `${this.prefix}jobs:processing`;
  }
  /** Every job, scored by when its retention ends (what the retention sweep walks). */
  jobExpiry(): string {
    return `${this.prefix}jobs:expiry`;
  }
  /** Account ids are UUIDs (fixed length), so no Idempotency-Key can make two claims collide. */
  idempotency(accountId: string, key: string): string {
    return `${this.prefix}idem:${accountId}:${key}`;
  }
  usage(accountId: string, month: string): string {
    return `${this.prefix}usage:${accountId}:${month}`;
  }
  rateBucket(bucket: string): string {
    return `${this.prefix}rate:${bucket}`;
  }
  /** BullMQ's own prefix: its keys are `<prefix>bull:<queue>:…`. */
  bullPrefix(): string {
    return `${this.prefix}bull`;
  }
  /** Pub/sub channel on which workers announce finished jobs (the message is the job id). */
  jobFinishedChannel(): string {
    return `${this.prefix}events:job-finished`;
  }
}

/** The BullMQ queue that carries synthesis jobs (BullMQ job id = agent-tts job id). */
export const SYNTHESIS_QUEUE = 'synthesis';
