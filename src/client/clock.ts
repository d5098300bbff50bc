import { sleep } from './retry.js';

/**
 * The time the client waits in and measures with: every wait between polls and before a retry
 * (Retry-After included), and every elapsed time and deadline of a wait (`timeoutMs` of a poll, the
 * `elapsedMs` of progress). A test passes one that moves a test clock instead of waiting, such as
 * the sandbox's `sandbox.clock.client`. The limit of one request in flight (`requestTimeoutMs`,
 * `downloadTimeoutMs`) stays in real time: a request takes real time whatever a clock says.
 */
export interface ClientClock {
  /** Milliseconds since the epoch, on this clock. */
  now(): number;
  /**
   * Resolves once `ms` have passed on this clock; rejects with the signal's reason as soon as it
   * aborts (and at once when it already has).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Real time: `Date.now()` and timers. The default of the client, the CLI and the MCP server. */
export const systemClock: ClientClock = Object.freeze({
  now: () => Date.now(),
  sleep: (ms: number, signal?: AbortSignal) => sleep(ms, signal),
});
