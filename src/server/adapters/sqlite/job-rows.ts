import type { JobRecord } from '../../ports/index.js';
import { opt, type Row } from './connection.js';

/** A `jobs` row as the job record. */
export function toJob(r: Row): JobRecord {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    keyPublicId: r.key_public_id as string,
    status: r.status as JobRecord['status'],
    text: r.text as string,
    voice: r.voice as string,
    language: r.language as string,
    speed: r.speed as number,
    createdAt: r.created_at as number,
    deleteAfter: r.delete_after as number,
    reservedCentiminutes: r.reserved_cm as number,
    chargedCentiminutes: opt(r.charged_cm),
    usageMonth: r.usage_month as string,
    progress: r.progress as number,
    completedAt: opt(r.completed_at),
    processingTimeMs: opt(r.processing_time_ms),
    durationSeconds: opt(r.duration_seconds),
    fileSizeBytes: opt(r.file_size_bytes),
    errorCode: opt(r.error_code),
    errorMessage: opt(r.error_message),
    idempotencyKey: opt(r.idempotency_key),
    legacyExpiresAt: opt(r.legacy_expires_at),
    timestamps: opt(r.timestamps),
  };
}

/** The job record as the named parameters of INSERT_JOB (null for every absent field). */
export function jobParams(job: JobRecord) {
  return {
    id: job.id,
    account_id: job.accountId,
    key_public_id: job.keyPublicId,
    status: job.status,
    text: job.text,
    voice: job.voice,
    language: job.language,
    speed: job.speed,
    created_at: job.createdAt,
    delete_after: job.deleteAfter,
    reserved_cm: job.reservedCentiminutes,
    charged_cm: job.chargedCentiminutes ?? null,
    usage_month: job.usageMonth,
    progress: job.progress,
    completed_at: job.completedAt ?? null,
    processing_time_ms: job.processingTimeMs ?? null,
    duration_seconds: job.durationSeconds ?? null,
    file_size_bytes: job.fileSizeBytes ?? null,
    error_code: job.errorCode ?? null,
    error_message: job.errorMessage ?? null,
    idempotency_key: job.idempotencyKey ?? null,
    legacy_expires_at: job.legacyExpiresAt ?? null,
    timestamps: job.timestamps ?? null,
  };
}

const JOB_COLUMNS = Object.keys(jobParams({} as JobRecord));

/** Inserts a whole job record (jobParams), by column name: a column added to an older database comes last, wherever schema.sql has it. */
export const INSERT_JOB = `INSERT INTO jobs (${JOB_COLUMNS.join(', ')}) VALUES (${JOB_COLUMNS.map((c) => `@${c}`).join(', ')})`;
