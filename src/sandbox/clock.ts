import type { Clock } from '@agent-tts/server';
import { ClockError, type ClockState } from './public.js';

interface Timer {
  at: number;
  fire: () => Promise<void>;
}

/** The most one move (`advance`, `set`) may take the clock forward: 10 years. */
export const MAX_MOVE_SECONDS = 10 * 365 * 86_400;
/**
 * How far ahead of real time the clock may be: 100 years. Moves add up; far enough ahead, the times the
 * API derives from the clock (an audio URL's expiry, a retention date) leave what a date can hold.
 */
export const MAX_AHEAD_SECONDS = 100 * 365 * 86_400;

const iso = (ms: number) => new Date(ms).toISOString();
const years = (seconds: number) => `${(seconds / (365 * 86_400)).toFixed(1)} years`;

/**
 * The sandbox's test clock: real time plus an offset, or frozen at one moment. It only moves forward
 * (except `reset`, back to real time). Work scheduled on it (a job due at a sandbox time) runs when the
 * clock reaches that time, whether by real time passing or by `advance`/`set`; a move resolves once
 * that work has finished, so a caller sees its effects when the move returns.
 */
export class SandboxClock implements Clock {
  /** `id`: "global" for the sandbox's default clock, `clk_<hex>` for a test clock made on request (clocks.ts). */
  constructor(readonly id = 'global') {}

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

  /** Moves the clock `seconds` forward: at most MAX_MOVE_SECONDS, and to at most MAX_AHEAD_SECONDS ahead of real time. */
  async advance(seconds: number): Promise<void> {
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
      throw new ClockError(`advance_seconds must be a number from 0 to ${MAX_MOVE_SECONDS} (10 years); the clock only moves forward.`);
    }
    if (seconds > MAX_MOVE_SECONDS) {
      throw new ClockError(`advance_seconds may be at most ${MAX_MOVE_SECONDS} (10 years) in one move, not ${seconds}; move in several steps.`);
    }
    this.checkAhead(this.now() + seconds * 1000);
    this.moveBy(seconds * 1000);
    await this.moved();
  }

  /** Moves the clock to `at` (ms since the epoch): not before its time, at most MAX_MOVE_SECONDS after it, at most MAX_AHEAD_SECONDS ahead of real time. */
  async set(at: number): Promise<void> {
    if (typeof at !== 'number' || !Number.isFinite(at) || Number.isNaN(new Date(at).getTime())) {
      throw new ClockError('set must be an ISO 8601 date-time, e.g. 2030-01-01T00:00:00Z.');
    }
    const now = this.now();
    if (at < now) throw new ClockError(`The clock only moves forward: ${iso(at)} is before its time ${iso(now)} (use reset to return to real time).`);
    if (at - now > MAX_MOVE_SECONDS * 1000) {
      throw new ClockError(
        `set may move the clock at most 10 years (${MAX_MOVE_SECONDS} seconds) in one move, up to ${iso(now + MAX_MOVE_SECONDS * 1000)}: ${iso(at)} is ${years((at - now) / 1000)} after its time ${iso(now)}; move in several steps.`,
      );
    }
    this.checkAhead(at);
    this.moveBy(at - now);
    await this.moved();
  }

  private checkAhead(target: number): void {
    const limit = Date.now() + MAX_AHEAD_SECONDS * 1000;
    if (target > limit) {
      throw new ClockError(
        `The clock may be at most 100 years (${MAX_AHEAD_SECONDS} seconds) ahead of real time, until ${iso(limit)}: this move would take it to ${iso(target)}. Use reset to return to real time.`,
      );
    }
  }

  private moveBy(ms: number): void {
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offsetMs += ms;
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
