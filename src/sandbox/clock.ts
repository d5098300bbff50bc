import type { Clock } from '../server/ports.js';

interface Timer {
  at: number;
  fire: () => Promise<void>;
}

export interface ClockState {
  now: string;
  frozen: boolean;
  offset_seconds: number;
}

export class ClockError extends Error {}

/**
 * The sandbox's test clock: real time plus an offset, or frozen at one moment. It only moves forward
 * (except `reset`, back to real time). Work scheduled on it (a job due at a sandbox time) runs when the
 * clock reaches that time, whether by real time passing or by `advance`/`set`; a move resolves once
 * that work has finished, so a caller sees its effects when the move returns.
 */
export class SandboxClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | undefined;
  private timers: Timer[] = [];
  private realTimer: NodeJS.Timeout | undefined;
  private readonly listeners: Array<(now: number) => Promise<void>> = [];

  now(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  state(): ClockState {
    const now = this.now();
    return { now: new Date(now).toISOString(), frozen: this.frozenAt !== undefined, offset_seconds: Math.round((now - Date.now()) / 1000) };
  }

  /** Work to run once the clock reaches `at` (sandbox time). */
  schedule(at: number, fire: () => Promise<void>): void {
    this.timers.push({ at, fire });
    this.timers.sort((a, b) => a.at - b.at);
    this.armRealTimer();
  }

  /** Runs after every move, once the work due has run (e.g. the retention sweep). */
  onMove(listener: (now: number) => Promise<void>): void {
    this.listeners.push(listener);
  }

  async advance(seconds: number): Promise<void> {
    if (!Number.isFinite(seconds) || seconds < 0) throw new ClockError('advance_seconds must be a number ≥ 0 (the clock only moves forward).');
    if (this.frozenAt !== undefined) this.frozenAt += seconds * 1000;
    else this.offsetMs += seconds * 1000;
    await this.moved();
  }

  async set(at: number): Promise<void> {
    if (!Number.isFinite(at)) throw new ClockError('set must be an ISO 8601 date-time, e.g. 2030-01-01T00:00:00Z.');
    const now = this.now();
    if (at < now) throw new ClockError(`The clock only moves forward: ${new Date(at).toISOString()} is before its time ${new Date(now).toISOString()} (use reset to return to real time).`);
    await this.advance((at - now) / 1000);
  }

  async freeze(): Promise<void> {
    this.frozenAt ??= this.now();
    await this.moved();
  }

  async unfreeze(): Promise<void> {
    if (this.frozenAt !== undefined) {
      this.offsetMs = this.frozenAt - Date.now();
      this.frozenAt = undefined;
    }
    await this.moved();
  }

  /** Back to real time, not frozen. */
  async reset(): Promise<void> {
    this.offsetMs = 0;
    this.frozenAt = undefined;
    await this.moved();
  }

  private async moved(): Promise<void> {
    await this.runDue();
    const now = this.now();
    for (const listener of this.listeners) await listener(now);
  }

  /** Runs (and awaits) the work due at the clock's time, including work that work schedules. */
  async runDue(): Promise<void> {
    for (;;) {
      const now = this.now();
      const due = this.timers.filter((t) => t.at <= now);
      if (due.length === 0) break;
      this.timers = this.timers.filter((t) => t.at > now);
      await Promise.all(due.map((t) => t.fire().catch(() => undefined)));
    }
    this.armRealTimer();
  }

  /** While the clock runs with real time, the next timer also fires when real time reaches it. */
  private armRealTimer(): void {
    clearTimeout(this.realTimer);
    this.realTimer = undefined;
    const next = this.timers[0];
    if (!next || this.frozenAt !== undefined) return;
    const delay = Math.min(2 ** 31 - 1, Math.max(0, next.at - this.now()));
    this.realTimer = setTimeout(() => void this.runDue(), delay);
    this.realTimer.unref();
  }

  close(): void {
    clearTimeout(this.realTimer);
    this.timers = [];
  }
}
