import type { ErrorCode } from '@agent-tts/contract/errors.js';
import { AudioStorageUnavailableError, StoreUnavailableError } from '../ports/index.js';

/**
 * A request the domain refuses with one of the API's error codes (docs/api-rules.md#errors): the code,
 * a message for a person and the details the error body carries. How it is answered (the status the
 * error table gives the code) is the HTTP layer's business.
 */
export class RequestRefusedError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'RequestRefusedError';
  }
}

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

/**
 * A request whose body the HTTP listener ended and answered itself (the server's own request
 * timeout: 408; a half-close mid-body: 400): the app logs and counts that status (not 499: the
 * client did not go away) and sends nothing more.
 */
export class AnsweredByListenerError extends Error {
  constructor(
    readonly status: 400 | 408,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AnsweredByListenerError';
  }
}

export const BODY_CUT_SHORT_MESSAGE = 'client closed the connection before the body was complete';
export const ANSWER_UNWANTED_MESSAGE = 'client closed the connection before its answer was ready';

/** A backend that did not answer: which one, and whether it was in time (rather than refusing the connection). */
export interface Outage {
  backend: 'store' | 'audio_storage';
  timedOut: boolean;
  message: string;
}

/**
 * The outage an error of a port reports (the store or the audio storage unreachable), or undefined for
 * any other error: what the callers of the domain answer a passing outage with, without knowing the ports.
 */
export function outageOf(error: unknown): Outage | undefined {
  if (error instanceof StoreUnavailableError) return { backend: 'store', timedOut: error.timedOut, message: error.message };
  if (error instanceof AudioStorageUnavailableError) return { backend: 'audio_storage', timedOut: false, message: error.message };
  return undefined;
}
