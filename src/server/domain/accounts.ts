import { randomUUID } from 'node:crypto';
import type { PlanId, SubscriptionStatus } from '@agent-tts/contract/plans.js';
import {
  type Account,
  type AccountRepository,
  type ApiKeyRecord,
  type Clock,
  type JobRecord,
  type JobRepository,
  type KeyRepository,
  systemClock,
  type UsageRepository,
} from '../ports/index.js';
import { generateKey, type NewKey } from './keys.js';

/** How many fresh public ids a key creation tries before giving up (each is 32 random bits). */
const PUBLIC_ID_TRIES = 8;
import { usageMonth } from './usage.js';

export class AdminError extends Error {}

/** The dashboard operations of docs/api-rules.md#key-management (create, list, rename, revoke keys) and account upkeep. */
export class AccountAdmin {
  constructor(
    private readonly store: AccountRepository & KeyRepository & Pick<JobRepository, 'importLegacyJob'> & UsageRepository,
    private readonly clock: Clock = systemClock,
    private readonly newKey: () => NewKey = generateKey,
  ) {}

  async createAccount(name: string, plan: PlanId, subscription: SubscriptionStatus = 'active'): Promise<Account> {
    const account: Account = { id: randomUUID(), name, plan, subscription, createdAt: this.clock.now() };
    await this.store.createAccount(account);
    return account;
  }

  async requireAccount(id: string): Promise<Account> {
    const account = await this.store.getAccount(id);
    if (!account) throw new AdminError(`No account ${id}.`);
    return account;
  }

  /**
   * Creates a key; the full key is returned once and never stored. At most one active key per account.
   * A public id is 32 random bits, so among many thousands of keys two can meet (a sandbox holding a
   * thousand test clocks makes ten thousand): an id already taken is drawn again, never overwritten.
   */
  async createKey(accountId: string, name = 'default'): Promise<{ key: string; record: ApiKeyRecord }> {
    await this.requireAccount(accountId);
    const generated = await this.freshKey();
    const record: ApiKeyRecord = {
      publicId: generated.publicId,
      accountId,
      secretHash: generated.secretHash,
      name,
      createdAt: this.clock.now(),
      callCount: 0,
    };
    if (!(await this.store.createKey(record))) {
      throw new AdminError('This account already has an active key (at most 1). Revoke it first, then create another.');
    }
    return { key: generated.key, record };
  }

  private async freshKey(): Promise<NewKey> {
    for (let i = 0; i < PUBLIC_ID_TRIES; i++) {
      const generated = this.newKey();
      if ((await this.store.getKey(generated.publicId)) === undefined) return generated;
    }
    throw new AdminError(`No free public key id was found in ${PUBLIC_ID_TRIES} draws; try again.`);
  }

  async requireKey(displayOrPublicId: string): Promise<ApiKeyRecord> {
    const publicId = displayOrPublicId.replace(/^tts_/, '').slice(0, 8);
    const key = /^[0-9a-f]{8}$/.test(publicId) ? await this.store.getKey(publicId) : undefined;
    if (!key) throw new AdminError(`No key ${displayOrPublicId.slice(0, 12)}.`);
    return key;
  }

  async renameKey(displayKey: string, name: string): Promise<void> {
    const key = await this.requireKey(displayKey);
    await this.store.renameKey(key.publicId, name);
  }

  async revokeKey(displayKey: string): Promise<boolean> {
    const key = await this.requireKey(displayKey);
    return this.store.revokeKey(key.publicId, this.clock.now());
  }

  async setUsedMinutes(accountId: string, minutes: number): Promise<void> {
    await this.requireAccount(accountId);
    await this.store.setUsage(accountId, usageMonth(this.clock.now()), Math.round(minutes * 100));
  }

  /** Imports a job from the legacy system: completed, with an expiry after which it answers FILE_EXPIRED. */
  async importLegacyJob(input: {
    accountId: string;
    keyPublicId: string;
    expiresAt: number;
    voice: string;
    speed: number;
    language: string;
    durationSeconds?: number;
    fileSizeBytes?: number;
    jobId?: string;
  }): Promise<JobRecord> {
    await this.requireAccount(input.accountId);
    const now = this.clock.now();
    const job: JobRecord = {
      id: input.jobId ?? randomUUID(),
      accountId: input.accountId,
      keyPublicId: input.keyPublicId,
      status: 'completed',
      text: '',
      voice: input.voice,
      language: input.language,
      speed: input.speed,
      createdAt: Math.min(now, input.expiresAt),
      // The record outlives its audio: FILE_EXPIRED is the answer, not NOT_FOUND.
      deleteAfter: Number.MAX_SAFE_INTEGER,
      reservedCentiminutes: 0,
      chargedCentiminutes: 0,
      usageMonth: usageMonth(now),
      progress: 1,
      completedAt: Math.min(now, input.expiresAt),
      processingTimeMs: 0,
      durationSeconds: input.durationSeconds,
      fileSizeBytes: input.fileSizeBytes,
      legacyExpiresAt: input.expiresAt,
    };
    await this.store.importLegacyJob(job);
    return job;
  }
}
