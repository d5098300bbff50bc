import type { KeyRepository } from '../ports/index.js';

/**
 * Keeps each key's call count and last-used time. Counted in memory and written once a second, so
 * the hot path (polling) does not pay a store write per request.
 */
export class KeyUsageRecorder {
  private readonly pending = new Map<string, { calls: number; lastUsedAt: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: Pick<KeyRepository, 'recordKeyUse'>,
    flushMs = 1000,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  record(publicId: string, at: number): void {
    const entry = this.pending.get(publicId);
    if (entry) {
      entry.calls++;
      entry.lastUsedAt = Math.max(entry.lastUsedAt, at);
    } else {
      this.pending.set(publicId, { calls: 1, lastUsedAt: at });
    }
  }

  async flush(): Promise<void> {
    const batch = [...this.pending];
    this.pending.clear();
    for (const [publicId, { calls, lastUsedAt }] of batch) {
      await this.store.recordKeyUse(publicId, calls, lastUsedAt).catch(() => {
        // Put it back; the next flush tries again.
        this.pending.set(publicId, { calls, lastUsedAt });
      });
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
