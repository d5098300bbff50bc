/**
 * Fetching the files a completed job points at with signed URLs: its audio (`audio_url`) and, when it
 * asked for word timings, its captions (`timings.json_url`, `vtt_url`, `srt_url`). The URL is the
 * capability, so no API key goes with it; a URL refused as expired or invalid is replaced by a fresh
 * one from the job, once.
 */
import { isObject } from './answers.js';
import { AgentTtsError, errorFromResponse, stripQuery } from './errors.js';
import type { CallOptions } from './options.js';
import { jobError } from './poll.js';
import type { RetryContext } from './transport.js';
import { withRetries } from './transport.js';
import type { CompletedJob, JobStatus, WordTimingsFile } from './types.js';

/** The renderings of a job's word timings: the JSON file of word times, WebVTT and SubRip captions. */
export type CaptionFormat = 'json' | 'vtt' | 'srt';
export const CAPTION_FORMATS: readonly CaptionFormat[] = ['json', 'vtt', 'srt'];

/** Which of a completed job's files: its audio, or one rendering of its timings. */
export type SignedFile = 'audio' | CaptionFormat;

/** What the download helpers need of a job: its id and the URL of the file (or the job's timings). */
export type JobLike = Pick<CompletedJob, 'job_id' | 'audio_url'>;
export type JobWithTimings = Pick<CompletedJob, 'job_id' | 'timings'>;

/** What a signed download needs of the client. */
export interface SignedFetchDeps {
  fetch: typeof globalThis.fetch;
  /** The retry context of one download attempt loop (the client's policy, timeouts, clock). */
  attempts(target: string, options: CallOptions, maxAttempts?: number): RetryContext;
  getJob(jobId: string, options: CallOptions): Promise<JobStatus>;
  /** The service's origin, for messages. */
  baseUrl: string;
}

/** The error of a job that carries no timings: it was not submitted with `timestamps: "word"`, or the service does not offer them. */
function noTimings(jobId: string, baseUrl: string): AgentTtsError {
  return new AgentTtsError({
    code: 'NO_TIMINGS',
    message:
      `Job ${jobId} has no word timings: it was submitted without timestamps: "word", or the service at ${baseUrl} ` +
      'does not offer word timings and captions (an extension beyond the base API).',
    jobId,
  });
}

/** The URL of one file of a completed job; a job without timings has no caption URL (NO_TIMINGS). */
export function urlOf(job: Partial<Pick<CompletedJob, 'audio_url' | 'timings'>> & { job_id: string }, file: SignedFile, baseUrl: string): string {
  if (file === 'audio') {
    if (typeof job.audio_url !== 'string')
      throw new AgentTtsError({ code: 'INVALID_RESPONSE', message: `Job ${job.job_id} has no audio_url`, jobId: job.job_id });
    return job.audio_url;
  }
  const url = isObject(job.timings) ? job.timings[`${file}_url`] : undefined;
  if (typeof url !== 'string') throw noTimings(job.job_id, baseUrl);
  return url;
}

/**
 * GETs a signed URL with the client's retries. Given a job (not a bare URL), a URL refused as no
 * longer valid (404 NOT_FOUND; 403 from servers of document versions before that decision) is
 * replaced once by the one a fresh GET of the job issues; the job answers NOT_FOUND or FILE_EXPIRED
 * when it is gone.
 */
export async function fetchSigned(
  deps: SignedFetchDeps,
  job: { job_id: string; url: string } | string,
  file: SignedFile,
  options: CallOptions,
  maxAttempts?: number,
): Promise<Response> {
  let url = typeof job === 'string' ? job : job.url;
  let refreshed = false;
  for (;;) {
    const response = await withRetries(deps.attempts(stripQuery(url), options, maxAttempts), async (signal) => {
      const res = await deps.fetch(url, { signal });
      if (res.ok) return res;
      const text = await res.text().catch(() => '');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: errorFromResponse reports INVALID_RESPONSE with the status
      }
      throw errorFromResponse(res, body, typeof job === 'string' ? {} : { jobId: job.job_id });
    }).catch(async (error: unknown) => {
      if (error instanceof AgentTtsError && (error.status === 404 || error.status === 403) && typeof job !== 'string' && !refreshed) return undefined;
      throw error;
    });
    if (response) return response;
    // The signed URL was refused (expired, tampered, or its file deleted): ask the job for a fresh one, once.
    refreshed = true;
    const jobId = (job as { job_id: string }).job_id;
    const current = await deps.getJob(jobId, options);
    if (current.status !== 'completed') {
      throw current.status === 'processing'
        ? new AgentTtsError({ code: 'INVALID_RESPONSE', message: `Job ${current.job_id} is processing again`, jobId: current.job_id })
        : jobError(current);
    }
    url = urlOf(current, file, deps.baseUrl);
  }
}

/** Checks that a parsed body is a word timings file (the fields a caller reads), or INVALID_RESPONSE. */
export function asTimingsFile(body: unknown, url: string, status: number): WordTimingsFile {
  if (isObject(body) && typeof body.duration_seconds === 'number' && Array.isArray(body.words) && Array.isArray(body.cues)) {
    return body as unknown as WordTimingsFile;
  }
  throw new AgentTtsError({ code: 'INVALID_RESPONSE', message: `The answer from ${stripQuery(url)} is not a word timings file`, status });
}
