export type SynthErrorCode = 'TTS_PROVIDER_ERROR' | 'INTERNAL_ERROR';

/**
 * The one error type synthesis rejects with (besides an abort, which rejects with the signal's reason).
 * `retryable` tells the job layer whether running the same request again may succeed.
 */
export class SynthesisError extends Error {
  override readonly name = 'SynthesisError';
  readonly code: SynthErrorCode;
  readonly retryable: boolean;

  constructor(code: SynthErrorCode, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? code === 'TTS_PROVIDER_ERROR';
  }
}

/** Turns anything thrown below the synthesis layer into a SynthesisError, keeping ones that already are. */
export function toSynthesisError(error: unknown, context: string): SynthesisError {
  if (error instanceof SynthesisError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new SynthesisError('INTERNAL_ERROR', `${context}: ${detail}`, { retryable: true, cause: error });
}
