import type { Context } from 'hono';
import { API_VERSION } from '../../contract/limits.js';
import type { ErrorBodyT } from '../../contract/schemas.js';
import type { ApiError } from './errors.js';

export interface RequestVars {
  requestId: string;
  receivedAt: number;
  /** Display key of the authenticated caller, for logs. */
  displayKey?: string;
}

export type AppEnv = { Variables: RequestVars };
export type AppContext = Context<AppEnv>;

/** Every JSON body leaves through here, so none lacks `meta`. */
export function sendJson(
  c: AppContext,
  status: number,
  body: Record<string, unknown>,
  extraMeta: Record<string, unknown> = {},
): Response {
  const meta = { request_id: c.get('requestId'), ...extraMeta, api_version: API_VERSION };
  return c.json({ ...body, meta }, status as 200);
}

export function sendError(c: AppContext, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  const body: Omit<ErrorBodyT, 'meta'> = {
    success: false,
    error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
  };
  return sendJson(c, error.status, body);
}
