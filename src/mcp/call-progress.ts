/** The progress notifications of one call, sent while it waits when the request carries a progressToken. */
import type { ClientClock } from '@agent-tts/client/clock.js';
import { abortReason } from '@agent-tts/client/retry.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** What the SDK hands a tool call besides its arguments. */
export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What the call is doing, for the progress notifications and for the answer when time runs out. */
export interface CallState {
  jobId?: string;
  percent?: number;
  nextPollAt?: number;
  waitingUntil?: number;
  waitingFor?: string;
}

export interface CallProgress {
  /** Sends a notification now (nothing without a progressToken, or once the call is over). */
  send: () => void;
  /** When the last notification went out, on the call's clock. */
  lastSentAt: () => number;
  /** Stops the periodic notifications. */
  end: () => void;
}

/**
 * Starts the notifications of a call: one at once, then one every `intervalMs` in real time (for the
 * requests in flight; the call's clock keeps the pace during its waits). Each says what the call is
 * doing and counts seconds of the call, so that progress increases with every notification.
 */
export function startProgress(
  extra: CallExtra,
  call: { clock: ClientClock; startedAt: number; signal: AbortSignal; state: CallState; intervalMs: number },
): CallProgress {
  const { clock, startedAt, signal, state, intervalMs } = call;
  const progressToken = extra._meta?.progressToken;
  let lastProgress = 0;
  let lastProgressAt = startedAt;
  const describe = (now: number): string => {
    const elapsed = `${Math.round((now - startedAt) / 1000)} s elapsed`;
    if (state.waitingUntil !== undefined && now < state.waitingUntil) {
      return `${state.waitingFor}: waiting ${Math.ceil((state.waitingUntil - now) / 1000)} s more before retrying (${elapsed})`;
    }
    if (state.jobId) return `job ${state.jobId}: processing${state.percent !== undefined ? `, ${state.percent}%` : ''} (${elapsed})`;
    return `submitting (${elapsed})`;
  };
  const send = () => {
    if (progressToken === undefined || signal.aborted) return;
    const now = clock.now();
    lastProgressAt = now;
    // MCP: progress must increase with every notification; it counts seconds of the call.
    const progress = Math.max(Math.round((now - startedAt) / 100) / 10, lastProgress + 0.1);
    lastProgress = progress;
    void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message: describe(now) } }).catch(() => undefined); // progress is best effort; the result still comes
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
