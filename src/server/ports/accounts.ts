import type { PlanId, SubscriptionStatus } from '@agent-tts/contract/plans.js';

export interface Account {
  id: string;
  name: string;
  plan: PlanId;
  subscription: SubscriptionStatus;
  createdAt: number;
}

export interface ApiKeyRecord {
  publicId: string;
  accountId: string;
  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  secretHash: string;
  name: string;
  createdAt: number;
  lastUsedAt?: number;
  callCount: number;
  revokedAt?: number;
}

/** Accounts: created by administration and seeding, read on every authenticated request (cached by adapters). */
export interface AccountRepository {
  createAccount(account: Account): Promise<void>;
  getAccount(id: string): Promise<Account | undefined>;
  updateAccount(id: string, patch: Partial<Pick<Account, 'name' | 'plan' | 'subscription'>>): Promise<boolean>;
  listAccounts(): Promise<Account[]>;
}

/** API keys: one active key per account, looked up by public id, their use counted in batches. */
export interface KeyRepository {
  /** Atomically refuses (returns false) while the account already has an active key. */
  createKey(key: ApiKeyRecord): Promise<boolean>;
  getKey(publicId: string): Promise<ApiKeyRecord | undefined>;
  listKeys(accountId?: string): Promise<ApiKeyRecord[]>;
  renameKey(publicId: string, name: string): Promise<boolean>;
  revokeKey(publicId: string, at: number): Promise<boolean>;
  /** Adds calls and moves last-used forward (batched by the caller). */
  recordKeyUse(publicId: string, calls: number, lastUsedAt: number): Promise<void>;
}
