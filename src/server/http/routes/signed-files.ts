import { AUDIO_STORE_RETRY_AFTER_SECONDS, AUDIO_STORE_UNREACHABLE_MESSAGE } from '@agent-tts/contract/errors.js';
import { audioUrlMessage } from '@agent-tts/contract/messages.js';
import { ApiError } from '../../domain/errors.js';
import type { AudioUrlSigner } from '../../domain/signing.js';
import type { Logger } from '../../log.js';
import { AudioStorageUnavailableError, type AudioStorage, type Clock, type Store } from '../../ports/index.js';

/** What the routes of signed files (the audio, the word timings and captions) answer from. */
export interface SignedFileRouteDeps {
  store: Pick<Store, 'getJob'>;
  audio: AudioStorage;
  signer: AudioUrlSigner;
  /** Signature expiry and legacy expiry are judged on it (default: the system clock). */
  clock?: Clock;
  /** Where a store that fails in the middle of a download is reported. */
  log: Logger;
}

/**
 * An audio store that cannot be reached answers 503 INTERNAL_ERROR with Retry-After (HTTP's status for
 * a passing outage; docs/api-rules.md#audio-urls), never the adapter's text.
 */
export async function fromStore<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AudioStorageUnavailableError) {
      throw new ApiError('INTERNAL_ERROR', AUDIO_STORE_UNREACHABLE_MESSAGE, undefined, { 'Retry-After': String(AUDIO_STORE_RETRY_AFTER_SECONDS) }, 503);
    }
    throw error;
  }
}

/**
 * The validation hook of a signed file's query. A malformed or cut-short query (expires or sig missing,
 * or not of the issued form) is refused like every other signed URL that does not work: 404 NOT_FOUND,
 * whose remedy (GET the job for fresh URLs) is the same; the message names the part at fault.
 */
export function signedQueryHook(result: { success: boolean; error?: { issues: readonly { path: readonly PropertyKey[] }[] } }): undefined {
  if (result.success) return undefined;
  const query = (result as { data?: Record<string, unknown> }).data ?? {};
  const faults: { expires?: unknown; sig?: unknown } = {};
  for (const issue of result.error?.issues ?? []) {
    const field = issue.path[0];
    if (field === 'expires' || field === 'sig') faults[field] = query[field];
  }
  throw new ApiError('NOT_FOUND', audioUrlMessage(faults));
}
