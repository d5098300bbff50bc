import { NEW_IDEMPOTENCY_KEY_PHRASE } from '@agent-tts/contract/errors.js';

/**
 * The messages of the jobs path (POST and GET /v1/agent-tts, and the failures the job runner records), in one place.
 *
 * Decision: the domain builds every user-facing message of a job's answer (its refusals and its
 * states); the HTTP layer only maps an outcome to a status, headers and a body, copying the message
 * it is given. The messages that describe HTTP itself stay in the HTTP layer: a request that does not
 * match the contract (validation), a method a path lacks (405), a byte range (416). Messages the
 * contract shares with the clients (RATE_LIMITED's, the refused voice's) are built by the domain
 * with the contract's builders (rate-limits.ts, speech-request.ts); authentication's by auth.ts.
 */

/** USAGE_LIMIT_EXCEEDED: the month's minutes, used and included (docs/api-rules.md#usage-minutes). */
export function usageExhaustedMessage(usedMinutes: number, limitMinutes: number): string {
  return `Monthly TTS minutes exhausted: ${usedMinutes} of ${limitMinutes} used, and this text needs more than remains. Upgrade the plan or wait for the reset.`;
}

/** NOT_FOUND for a poll: unknown ids and other accounts' jobs are answered alike. */
export const JOB_NOT_FOUND_MESSAGE = 'No job with this id for this account. Check the job id.';

/** FILE_EXPIRED: a legacy job whose audio is gone. */
export const FILE_EXPIRED_MESSAGE = 'The audio file of this job was deleted. Submit a new request.';

/** A failed job whose run recorded no message of its own. */
export const SYNTHESIS_FAILED_MESSAGE = 'Synthesis failed.';

/** The message of a job the speech engine failed (docs/api-rules.md#idempotency rule 5: retry with a new key). */
export const PROVIDER_FAILURE_MESSAGE = `The speech engine failed on this job. Retry with backoff, using a ${NEW_IDEMPOTENCY_KEY_PHRASE}.`;
/** The message of a job whose audio could not be saved: the audio store stayed unreachable through the outage budget. */
export const STORE_FAILURE_MESSAGE = `The audio store could not be reached to save this job's audio. Retry with backoff, using a ${NEW_IDEMPOTENCY_KEY_PHRASE}.`;
/** The message of a job that failed inside the server's own synthesis (INTERNAL_ERROR). */
export const ENGINE_FAILURE_MESSAGE = `Synthesis failed on this job. Retry with backoff, using a ${NEW_IDEMPOTENCY_KEY_PHRASE}.`;
