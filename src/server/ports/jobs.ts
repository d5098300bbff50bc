// Jobs, the Idempotency-Keys that bind requests to them, and the usage they reserve and charge.

type StoredJobStatus = 'processing' | 'completed' | 'failed';

export interface JobRecord {
  id: string;
  accountId: string;
  keyPublicId: string;
  status: StoredJobStatus;
  text: string;
  voice: string;
  language: string;
  speed: number;
  createdAt: number;
  /** When the record and its audio are deleted (the plan's retention). */
  deleteAfter: number;
  /** Usage reserved at submission, in hundredths of a minute. */
  reservedCentiminutes: number;
  /** Usage settled on completion, in hundredths of a minute. */
  chargedCentiminutes?: number;
  /** Calendar month (UTC, `YYYY-MM`) the usage belongs to. */
  usageMonth: string;
  progress: number;
  completedAt?: number;
  processingTimeMs?: number;
  durationSeconds?: number;
  fileSizeBytes?: number;
  errorCode?: 'TTS_PROVIDER_ERROR' | 'INTERNAL_ERROR';
  errorMessage?: string;
  idempotencyKey?: string;
  /** Legacy jobs only: when their audio is (or was) deleted. */
  legacyExpiresAt?: number;
}

export interface UsageFigures {
  /** Settled plus reserved, in hundredths of a minute. */
  usedCentiminutes: number;
}

export type ClaimResult =
  | { kind: 'claimed' }
  | { kind: 'existing'; jobId: string }
  /** Another request holds the key and has not created its job yet. */
  | { kind: 'pending' };

export type CreateJobResult = { kind: 'created' } | { kind: 'usage_exceeded'; usedCentiminutes: number; limitCentiminutes: number };
