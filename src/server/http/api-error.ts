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
