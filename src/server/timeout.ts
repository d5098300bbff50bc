/** Probes (readiness, queue figures) give up after this, so they answer even when a backend hangs. */
export const PROBE_TIMEOUT_MS = 3_000;

export class TimeoutError extends Error {}

/** Rejects after `ms`; the underlying call may still finish later, so callers must tolerate that. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
