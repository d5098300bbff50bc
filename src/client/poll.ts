import { systemClock, type ClientClock } from './clock.js';
import { AgentTtsError } from './errors.js';
import { abortError } from './retry.js';
import { type ResponseInfo, type WithResponse, withResponse } from './response.js';
import type { CompletedJob, JobStatus, ProcessingJob, ProgressEvent, RetryEvent } from './types.js';

export interface PollOptions {
  signal?: AbortSignal;
  onRetry?: (event: RetryEvent) => void;
  /** Called after every answer while the job is waited for. */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Give up (TIMEOUT) once this long has passed since `startedAt`, on the call's clock: it covers the
   * waits between polls, Retry-After waits and retries (a wait that would pass it is not begun), and
   * the requests themselves. Default 30 minutes.
   */
  timeoutMs?: number;
  /** Epoch ms the wait is measured from (speak passes its submission time). Default: now. */
  startedAt?: number;
  /** Wait before the first GET (speak passes the 202's retry_after_seconds). Default 0. */
  initialDelayMs?: number;
  /** The 202 body, reported once before the first wait (speak passes it). */
  firstReport?: ProcessingJob;
  /** The clock of this call's waits and elapsed times. Default: the client's (`clock` option). */
  clock?: ClientClock;
}

export const DEFAULT_POLL_TIMEOUT_MS = 30 * 60_000;
/** Guards against a tight loop if a server ever answered retry_after_seconds 0. */
const MIN_POLL_INTERVAL_MS = 250;

type GetJob = (
  jobId: string,
  call: { signal?: AbortSignal; onRetry?: (event: RetryEvent) => void; deadline: number; timedOut: (cause: unknown) => AgentTtsError },
) => Promise<{
  job: JobStatus;
  retryAfterSeconds?: number;
  response: ResponseInfo;
}>;

/** Time to wait after a processing answer: the body's estimate, or a longer Retry-After header. */
function nextPollDelayMs(job: ProcessingJob, retryAfterHeader?: number): number {
  const seconds = Math.max(job.retry_after_seconds ?? 0, retryAfterHeader ?? 0);
  return Math.max(MIN_POLL_INTERVAL_MS, seconds * 1000);
}

/** The failure a failed or expired job reports (HTTP 200 on GET), as an error a caller can act on. */
export function jobError(job: Extract<JobStatus, { success: false }>, response?: ResponseInfo): AgentTtsError {
  return new AgentTtsError({
    code: job.error.code,
    message: job.error.message,
    status: 200,
    requestId: job.meta?.request_id,
    jobId: job.job_id,
    ...(response?.rateLimit ? { rateLimit: response.rateLimit } : {}),
  });
}

/** Seconds for a message: one decimal below a minute, whole seconds above. */
function seconds(ms: number): string {
  return ms < 60_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000));
}

export async function pollJob(getJob: GetJob, jobId: string, options: PollOptions): Promise<WithResponse<CompletedJob>> {
  const clock = options.clock ?? systemClock;
  const startedAt = options.startedAt ?? clock.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_POLL_TIMEOUT_MS;
  const deadline = startedAt + timeoutMs;
  let polls = 0;
  let waitMs = options.initialDelayMs ?? 0;
  // The request id of the last answer about the job, so a timeout can still be traced in the service's logs.
  let requestId = options.firstReport?.meta?.request_id;
  let lastLook = false;
  const timedOut = (cause?: unknown) =>
    new AgentTtsError({
      code: 'TIMEOUT',
      message: `Job ${jobId} was still processing after ${seconds(clock.now() - startedAt)} s (timeout ${timeoutMs / 1000} s)`,
      requestId,
      jobId,
      cause,
    });
  const report = (job: ProcessingJob | CompletedJob, nextPollMs?: number) =>
    options.onProgress?.({
      jobId: job.job_id,
      status: job.status,
      percent: job.status === 'completed' ? 100 : job.progress_percent,
      elapsedMs: clock.now() - startedAt,
      nextPollMs,
      ...(job.status === 'processing' && job.stream_url ? { streamUrl: job.stream_url } : {}),
      polls,
    });
  if (options.firstReport) report(options.firstReport, waitMs);

  for (;;) {
    if (waitMs > 0) {
      const remainingMs = deadline - clock.now();
      if (lastLook || remainingMs <= 0) throw timedOut();
      // A wait that would pass the deadline is cut short for a last look at the job: never give up early.
      lastLook = waitMs >= remainingMs;
      try {
        await clock.sleep(Math.min(waitMs, remainingMs), options.signal);
      } catch (caught) {
        if (options.signal?.aborted) throw abortError(options.signal);
        throw caught;
      }
    }
    const { job, retryAfterSeconds, response } = await getJob(jobId, { signal: options.signal, onRetry: options.onRetry, deadline, timedOut });
    polls++;
    requestId = job.meta?.request_id ?? requestId;
    switch (job.status) {
      case 'completed':
        report(job);
        return withResponse(job, response);
      case 'processing':
        waitMs = nextPollDelayMs(job, retryAfterSeconds);
        report(job, lastLook ? undefined : waitMs);
        break;
      default:
        throw jobError(job, response);
    }
  }
}
