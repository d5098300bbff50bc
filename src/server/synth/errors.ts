import { SynthesisError } from '../ports/index.js';

/** Turns anything thrown below the synthesis layer into a SynthesisError, keeping ones that already are. */
export function toSynthesisError(error: unknown, context: string): SynthesisError {
  if (error instanceof SynthesisError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new SynthesisError('INTERNAL_ERROR', `${context}: ${detail}`, { retryable: true, cause: error });
}
