/**
 * The audio of a job as it is made (an extension beyond the base API: docs/api-rules.md#streaming-audio):
 * a processing job's `stream_url` answers `audio/mpeg` chunk by chunk while the job runs, ending with the
 * bytes of its `audio_url`; a job that fails ends it abnormally, which the returned stream reports as an
 * error, never as a normal end.
 */
import { AgentTtsError, errorFromResponse, stripQuery } from './errors.js';
import type { CallOptions } from './options.js';
import type { RetryContext } from './transport.js';
import { withRetries } from './transport.js';

/** A job whose audio can be streamed: a processing one (its `stream_url`), or a completed one (its `audio_url`). */
export interface StreamableJob {
  job_id: string;
  stream_url?: string;
  audio_url?: string;
}

export interface StreamDeps {
  fetch: typeof globalThis.fetch;
  /** The retry context of opening the stream (the client's policy and clock; its attempt timeout bounds the answer's headers only). */
  attempts(target: string, options: CallOptions): RetryContext;
}

/**
 * Opens the stream of `job` (or of a stream URL): the answer's headers are waited for with the client's
 * retries and attempt timeout; the body then runs as long as the job does, ended only by the call's
 * `signal`. A job without `stream_url` or `audio_url` (a service without the extension) is
 * INVALID_RESPONSE, before any request.
 */
export async function openStream(deps: StreamDeps, job: StreamableJob | string, options: CallOptions): Promise<ReadableStream<Uint8Array>> {
  const url = typeof job === 'string' ? job : (job.stream_url ?? job.audio_url);
  const jobId = typeof job === 'string' ? undefined : job.job_id;
  if (typeof url !== 'string') {
    throw new AgentTtsError({
      code: 'INVALID_RESPONSE',
      message: `Job ${jobId} has no stream_url: the service does not stream audio while a job runs (an extension beyond the base API); poll it and download its audio_url`,
      ...(jobId ? { jobId } : {}),
    });
  }
  const response = await withRetries(deps.attempts(stripQuery(url), options), async (attemptSignal) => {
    // The body outlives the attempt: only the headers are bounded by its timeout.
    const own = new AbortController();
    const stop = () => own.abort(attemptSignal.reason);
    attemptSignal.addEventListener('abort', stop, { once: true });
    const signal = options.signal ? AbortSignal.any([own.signal, options.signal]) : own.signal;
    try {
      const res = await deps.fetch(url, { signal });
      if (res.ok) return res;
      const text = await res.text().catch(() => '');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: errorFromResponse reports INVALID_RESPONSE with the status
      }
      throw errorFromResponse(res, body, jobId ? { jobId } : {});
    } finally {
      attemptSignal.removeEventListener('abort', stop);
    }
  });
  return response.body ?? new ReadableStream({ start: (c) => c.close() });
}
