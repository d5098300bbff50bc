/**
 * A first-come, first-served counting semaphore. Jobs share it so that the chunks in flight across all
 * of them stay bounded (memory does not grow with the number of jobs) and a short job's chunks queue
 * between a long job's rather than behind all of them.
 */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<{ grant: () => void }> = [];

  constructor(readonly capacity: number) {}

  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.active < this.capacity) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(entry);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
    return this.releaser();
  }

  /** Chunks waiting for a slot, across all jobs. */
  get queued(): number {
    return this.waiting.length;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `active` stays the same.
      if (next) next.grant();
      else this.active--;
    };
  }
}
