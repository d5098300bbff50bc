/** The progress notifications of one call, sent while it waits when the request carries a progressToken. */
import { LIMITS } from '@agent-tts/client';
import type { ClientClock } from '@agent-tts/client/clock.js';
import { abortReason } from '@agent-tts/client/retry.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** What the SDK hands a tool call besides its arguments. */
export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What the call is doing, for the progress notifications and for the answer when time runs out. */
export interface CallState {
  jobId?: string;
  /** The job's progress_percent in the service's last answer, and when that answer came (on the call's clock). */
  percent?: number;
  percentAt?: number;
  /** Percent per millisecond, to estimate the progress between two answers (see estimatePercent). */
  percentPerMs?: number;
  nextPollAt?: number;
  /** The job's stream_url in the service's last answer, when it offers one (each answer signs a fresh one). */
  streamUrl?: string;
  waitingUntil?: number;
  waitingFor?: string;
}

/** Progress estimates stop short of this until the service says the job is complete. */
const ESTIMATE_CEILING = 99;

/**
 * Records an answer of the service about the job: its percent, and the pace to estimate from until the
 * next answer: observed between two answers that moved, else the percent done over the time since the
 * job was submitted (`jobStartedAt`, when the call submitted it), else what is left over the service's
 * own estimate of the seconds left (`nextPollMs`, from retry_after_seconds) when that estimate is not
 * the API's ceiling of LIMITS.retryAfterMaxSeconds (which only says "at least that long"). With none of
 * these there is no estimate: the progress stays at the service's figure.
 */
export function notePercent(state: CallState, now: number, percent: number, nextPollMs: number | undefined, jobStartedAt: number | undefined): void {
  const before = state.percent;
  const beforeAt = state.percentAt;
  if (before !== undefined && beforeAt !== undefined && now > beforeAt && percent > before) {
    state.percentPerMs = (percent - before) / (now - beforeAt);
  } else if (percent > 0 && jobStartedAt !== undefined && now > jobStartedAt) {
    state.percentPerMs = percent / (now - jobStartedAt);
  } else if (nextPollMs !== undefined && nextPollMs > 0 && nextPollMs < LIMITS.retryAfterMaxSeconds * 1000) {
    state.percentPerMs = (100 - percent) / nextPollMs;
  } else {
    state.percentPerMs = undefined;
  }
  state.percent = percent;
  state.percentAt = now;
}

/** The job's percent now: the service's last figure, moved on at its pace (an estimate, below 99) between answers. */
function estimatePercent(state: CallState, now: number): { percent: number; estimated: boolean } {
  const { percent = 0, percentAt, percentPerMs } = state;
  if (percentAt === undefined || percentPerMs === undefined || now <= percentAt || percent >= ESTIMATE_CEILING) return { percent, estimated: false };
  return { percent: Math.max(percent, Math.min(ESTIMATE_CEILING, percent + percentPerMs * (now - percentAt))), estimated: true };
}

export interface CallProgress {
  /** Sends a notification now (nothing without a progressToken, or once the call is over). */
  send: () => void;
  /** When the last notification went out, on the call's clock. */
  lastSentAt: () => number;
  /** Stops the periodic notifications. */
  end: () => void;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * Starts the notifications of a call: one at once, then one every `intervalMs` in real time (for the
 * requests in flight; the call's clock keeps the pace during its waits). `progress` is the job's
 * percent of 100 (`total: 100`): the service's `progress_percent` from its last answer, and between
 * answers an estimate at the pace seen so far (the message says which); before there is a job (the
 * submission, a rate-limit wait) it stays near 0. MCP asks `progress` to increase with every
 * notification, so one that would not moves on by 0.01.
 */
export function startProgress(
  extra: CallExtra,
  call: { clock: ClientClock; startedAt: number; signal: AbortSignal; state: CallState; intervalMs: number },
): CallProgress {
  const { clock, startedAt, signal, state, intervalMs } = call;
  const progressToken = extra._meta?.progressToken;
  let lastProgress = -1;
  let lastProgressAt = startedAt;
  const describe = (now: number, estimate: { percent: number; estimated: boolean }): string => {
    const elapsed = `${Math.round((now - startedAt) / 1000)} s elapsed`;
    if (state.waitingUntil !== undefined && now < state.waitingUntil) {
      return `${state.waitingFor}: waiting ${Math.ceil((state.waitingUntil - now) / 1000)} s more before retrying (${elapsed})`;
    }
    if (!state.jobId) return `submitting (${elapsed})`;
    if (state.percent === undefined) return `job ${state.jobId}: processing (${elapsed})`;
    if (!estimate.estimated) return `job ${state.jobId}: processing, ${round1(state.percent)}% (${elapsed})`;
    const ago = Math.round((now - state.percentAt!) / 1000);
    return `job ${state.jobId}: processing, about ${round1(estimate.percent)}% (estimated; the service said ${round1(state.percent)}% ${ago} s ago) (${elapsed})`;
  };
  const send = () => {
    if (progressToken === undefined || signal.aborted) return;
    const now = clock.now();
    const estimate = estimatePercent(state, now);
    const progress = Math.max(Math.round(estimate.percent * 100) / 100, Math.round((lastProgress + 0.01) * 100) / 100);
    if (progress >= 100) return; // 100 is for the answer itself
    lastProgressAt = now;
    lastProgress = progress;
    void extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total: 100, message: describe(now, estimate) } })
      .catch(() => undefined); // progress is best effort; the result still comes
  };
  // Paced in real time, for the requests in flight; the waits of pacedClock keep the pace on the call's clock.
  const ticker = progressToken === undefined ? undefined : setInterval(send, intervalMs);
  send();
  return {
    send,
    lastSentAt: () => lastProgressAt,
    end: () => {
      if (ticker) clearInterval(ticker);
    },
  };
}

/**
 * The clock the client waits on during a call: the call's clock, slept in pieces of at most
 * `intervalMs`, with a progress notification after a piece when none went out for that long, and
 * ending the call when its time is up (on the call's clock): `timeUp` ends it and gives the reason to throw.
 */
export function pacedClock(clock: ClientClock, call: { deadline: number; intervalMs: number; progress: CallProgress; timeUp: () => unknown }): ClientClock {
  const { deadline, intervalMs, progress, timeUp } = call;
  return {
    now: () => clock.now(),
    sleep: async (ms, sleepSignal) => {
      let left = ms;
      for (;;) {
        if (sleepSignal?.aborted) throw abortReason(sleepSignal);
        const untilDeadline = deadline - clock.now();
        if (untilDeadline <= 0) throw timeUp();
        if (left <= 0) return;
        const piece = Math.min(left, intervalMs, untilDeadline);
        await clock.sleep(piece, sleepSignal);
        left -= piece;
        if (clock.now() - progress.lastSentAt() >= intervalMs) progress.send();
      }
    },
  };
}
