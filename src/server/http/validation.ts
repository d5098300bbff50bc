import type { Hook } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import { TEXT_TOO_LONG_REASON } from '../../contract/schemas.js';
import { ApiError, invalidRequest } from '../domain/errors.js';
import type { AppEnv } from './context.js';

interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  params?: { reason?: string };
}

function describeIssues(target: string, issues: readonly Issue[]): string {
  const where = target === 'json' ? 'body' : target === 'header' ? 'header' : target;
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : where}: ${i.message}`)
    .join('; ');
}

/**
 * The one place a request that fails the contract's schemas becomes an error body: TEXT_TOO_LONG for a
 * text over the limit, INVALID_REQUEST for everything else (docs/api-rules.md#errors). Every route
 * bound to the contract goes through it.
 */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (result.success) return;
  const issues = result.error.issues as unknown as Issue[];
  const tooLong = issues.find((i) => i.code === 'custom' && i.params?.reason === TEXT_TOO_LONG_REASON);
  if (tooLong) throw new ApiError('TEXT_TOO_LONG', `${tooLong.message}. Split the text into smaller chunks.`);
  throw invalidRequest(describeIssues(result.target, issues));
};

/** Hono's own refusals (malformed JSON, a media type its validator rejects) in the API's terms. */
export function fromHttpException(error: HTTPException): ApiError {
  if (error.status === 415) return invalidRequest('Content-Type must be application/json.');
  if (error.status === 400 && /json/i.test(error.message)) return invalidRequest('The request body is not valid JSON.');
  return invalidRequest(error.message || 'The request is malformed.');
}
