import type { Context } from 'hono';
import { API_VERSION } from '@agent-tts/contract/limits.js';
import type { VoiceCatalogRef } from '@agent-tts/contract/messages.js';
import type { ErrorBodyT, MetaBody } from '@agent-tts/contract/envelope-schemas.js';
import type { Principal } from '../domain/auth.js';
import type { ApiError } from './api-error.js';
import type { HeldSubmission } from '../domain/held-submissions.js';
import type { BucketReport } from '../domain/rate-limits.js';

interface RequestVars {
  requestId: string;
  receivedAt: number;
  /** Display key of the caller, once its key was parsed (for logs). */
  displayKey?: string;
  /** Set by the auth middleware for the routes that need a key. */
  principal: Principal;
  /** The deployment's voice catalog, for the messages about a refused voice (set by the submission route). */
  voiceCatalog?: VoiceCatalogRef;
  /** The key's bucket this answer reports (set by the handler or auth; written by rateLimitHeaders). */
  rateLimit?: BucketReport;
  /** A submission's place, held from its headers' decisions until its job is made (set by the submission route). */
  submission?: HeldSubmission;
}

export type AppEnv = { Variables: RequestVars };
export type AppContext = Context<AppEnv>;

/** The `meta` of every response (docs/api-rules.md#meta-and-versioning). */
export function metaOf(c: Context<AppEnv>, processingTimeMs?: number): MetaBody {
  return processingTimeMs === undefined
    ? { request_id: c.get('requestId'), api_version: API_VERSION }
    : { request_id: c.get('requestId'), processing_time_ms: processingTimeMs, api_version: API_VERSION };
}

/** A JSON body with `meta` added, for the answers no route schema describes (ops, 405, errors). */
export function sendJson(c: Context<AppEnv>, status: number, body: Record<string, unknown>): Response {
  return c.json({ ...body, meta: metaOf(c) }, status as 200);
}

/** The error body of `error`, without `meta`. */
export function errorBodyOf(error: ApiError): Omit<ErrorBodyT, 'meta'> {
  return { success: false, error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } };
}

/** Every error leaves through here: the error body, its headers, and `meta`. */
export function sendError(c: Context<AppEnv>, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return sendJson(c, error.status, errorBodyOf(error));
}
