/**
 * The time every time-dependent rule reads (rate-limit windows, audio URL expiry, retention, the usage
 * month, job timestamps), in milliseconds since the epoch. The server runs on `systemClock`; the sandbox
 * injects a test clock it can move. Real-time waits (the inline wait, idempotency claims, timeouts) do not use it.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
