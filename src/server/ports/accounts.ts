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
