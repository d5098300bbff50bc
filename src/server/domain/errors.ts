import { ERROR_TABLE, type ErrorCode } from '@agent-tts/contract/errors.js';

/**
 * A refusal with one of the API's error codes (docs/api-rules.md#errors). The HTTP layer answers it with
 * the error body; its status is the one the error table gives the code, except for the few answers that
 * HTTP itself fixes (405 with Allow, 416 for a range, 503 for readiness), which pass `status`.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
    status?: number,
  ) {
    super(message);
    this.status = status ?? ERROR_TABLE[code].status;
  }
}

export const invalidRequest = (message: string) => new ApiError('INVALID_REQUEST', message);

/**
 * The client closed its connection before its request was complete, or before its answer: the
 * client's doing, not a failure of the server. The HTTP layer's error handler (createApp in
 * http/create-app.ts) is where it becomes status 499: one info line naming what happened, and 499 in
 * the request log line and metrics, never a 5xx. `fields` go into that line (e.g. the job id).
 */
export class ClientClosedError extends Error {
  constructor(
    message: string,
    readonly fields: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ClientClosedError';
  }
}

export const BODY_CUT_SHORT_MESSAGE = 'client closed the connection before the body was complete';
export const ANSWER_UNWANTED_MESSAGE = 'client closed the connection before its answer was ready';
