import type { Hook } from '@hono/zod-openapi';
import type { HTTPException } from 'hono/http-exception';
import { MALFORMED_JSON_MESSAGE, describeInvalidRequest, type ValidationIssue } from '@agent-tts/contract/messages.js';
import { TEXT_TOO_LONG_REASON } from '@agent-tts/contract/request-schemas.js';
import { ApiError, invalidRequest } from './api-error.js';
import type { AppEnv } from './context.js';

type ValidationHook = Hook<unknown, AppEnv, string, unknown>;

/**
 * The one place a request that fails the contract's schemas becomes an error body: TEXT_TOO_LONG for a
 * text over the limit, INVALID_REQUEST for everything else (docs/api-rules.md#errors), with a message
 * written for people (src/contract/messages.ts): what was wrong, the allowed range or set, and, for a
 * voice, the closest voices of the deployment's catalog and its address (the submission route puts the
 * catalog in the context). Every route bound to the contract goes through it.
 */
export const validationHook: ValidationHook = (result, c) => {
  if (result.success) return;
  const issues = result.error.issues as unknown as (ValidationIssue & { message: string })[];
  const tooLong = issues.find((i) => i.code === 'custom' && i.params?.reason === TEXT_TOO_LONG_REASON);
  if (tooLong) throw new ApiError('TEXT_TOO_LONG', `${tooLong.message}. Split the text into smaller chunks.`);
  const received = (result as { data?: unknown }).data;
  throw invalidRequest(describeInvalidRequest(result.target, issues, received, c.get('voiceCatalog')));
};

/** Hono's own refusals (malformed JSON, a media type its validator rejects) in the API's terms. */
export function fromHttpException(error: HTTPException): ApiError {
  if (error.status === 415) return invalidRequest('Content-Type must be application/json.');
  if (error.status === 400 && /json/i.test(error.message)) return invalidRequest(MALFORMED_JSON_MESSAGE);
  return invalidRequest(error.message || 'The request is malformed.');
}
