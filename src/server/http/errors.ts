import { ERROR_TABLE, type ErrorCode } from '../../contract/errors.js';

/** An error answered with the spec's error body; the HTTP status comes from the error table. */
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
