import { AUDIO_STORE_RETRY_AFTER_SECONDS, AUDIO_STORE_UNREACHABLE_MESSAGE, AUDIO_URL_INVALID_MESSAGE } from '@agent-tts/contract/errors.js';
import { AudioPathParams } from '@agent-tts/contract/parameter-schemas.js';
import { audioUrlMessage } from '@agent-tts/contract/messages.js';
import { ApiError } from '../api-error.js';
import { outageOf } from '../../domain/errors.js';
import type { SignedFiles } from '../../domain/signed-files.js';
import type { Logger } from '../../log.js';

/** What the routes of signed files (the audio, the word timings and captions) answer from. */
export interface SignedFileRouteDeps {
  /** The domain's rule of a signed URL: what it opens, if anything. */
  files: SignedFiles;
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
    if (outageOf(error)?.backend === 'audio_storage') {
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

/**
 * The job id of a `{job_id}.mp3` path segment (Hono routes whole segments, so the audio and stream
 * routes take it as one parameter), lower-cased; a malformed one is refused as every URL that does not work.
 */
export function mp3JobId(file: string | undefined): string {
  const match = /^(.+)\.mp3$/.exec(file ?? '');
  const parsed = match ? AudioPathParams.safeParse({ job_id: match[1] }) : undefined;
  if (!parsed?.success) throw new ApiError('NOT_FOUND', AUDIO_URL_INVALID_MESSAGE);
  return parsed.data.job_id.toLowerCase();
}
