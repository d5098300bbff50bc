import { AsyncLocalStorage } from 'node:async_hooks';
import { defined } from './defined.js';
import { SuiteError } from './outcome.js';

/**
 * The one place that decides how the suite lets time pass. Against a real deployment it sleeps; when
 * the fixtures carry a test clock (`clock.url`, the sandbox's `/sandbox/clock`) it moves that clock
 * forward instead, so a run that must wait out rate-limit windows, Retry-After and
 * retry_after_seconds takes seconds, not minutes. Every wait of the suite goes through `sleep`, and
 * every "when" the rules reason about (the rate model's windows, polling deadlines) through `now`.
 */
export interface Time {
  /** The deployment's time now, in ms since the epoch, as this machine reckons it. */
  now(): number;
  /** The deployment's time at the moment this machine's clock read `realMs` (e.g. an exchange's startedAt). */
  at(realMs: number): number;
  /** Lets `ms` of the deployment's time pass. */
  sleep(ms: number): Promise<void>;
  /**
   * Runs `fn` while no wait of another rule moves the time forward: for a sequence that must fall in
   * one rate-limit window (a POST and a second one at once; 31 GETs). `fn` must not wait for time.
   */
  steady<T>(fn: () => Promise<T>): Promise<T>;
  /** The test clock's URL and how far the run moved it, when there is one. */
  clock?: { url: string; advancedSeconds: number };
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** A real deployment: time passes by waiting. */
export const realTime: Time = {
  now: () => Date.now(),
  at: (realMs) => realMs,
  sleep: realSleep,
  steady: (fn) => fn(),
};

/** The test clock is unusable (unreachable, not 200, not its answer): the message names its URL. */
export class ClockError extends SuiteError {
  override name = 'ClockError';
}

interface Reading {
  /** This machine's time when the reading arrived. */
  real: number;
  /** The deployment's time it reported. */
  clock: number;
  frozen: boolean;
}

interface Sleeper {
  until: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * A deployment with a test clock: POST `{"advance_seconds": n}` to its URL moves its time n seconds
 * forward (and runs what that time triggers) and answers 200 `{ now, frozen, offset_seconds }`.
 *
 * Waits of concurrent rules share the moves: the clock is moved to the earliest time anyone waits
 * for, in whole seconds, those due wake, and so on, so it moves no further than the longest wait.
 * A move never happens while a `steady` section runs (one waits for the other).
 */
export class ClockTime implements Time {
  private readonly readings: Reading[] = [];
  private readonly sleepers: Sleeper[] = [];
  private pumping = false;
  private broken: ClockError | undefined;
  private advancedMs = 0;
  /** Open steady sections, and a move waiting for them to end. */
  private steadyCount = 0;
  private steadyEnded: (() => void)[] = [];
  private moving: Promise<void> | undefined;
  private readonly inSteady = new AsyncLocalStorage<true>();

  private constructor(
    readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  /** Reads the clock once (a move of 0 s), so an unusable URL stops the run before any rule. */
  static async open(url: string, timeoutMs: number): Promise<ClockTime> {
    const time = new ClockTime(url, timeoutMs);
    await time.move(0);
    return time;
  }

  get clock() {
    return { url: this.url, advancedSeconds: Math.round(this.advancedMs / 1000) };
  }

  now(): number {
    return this.at(Date.now());
  }

  at(realMs: number): number {
    // open() reads the clock once before the instance is handed out.
    let reading = defined(this.readings[0], 'the first reading of the test clock');
    for (const r of this.readings) if (r.real <= realMs) reading = r;
    return reading.frozen ? reading.clock : reading.clock + (realMs - reading.real);
  }

  sleep(ms: number): Promise<void> {
    if (this.inSteady.getStore()) {
      return Promise.reject(
        new SuiteError(
          `the suite had to wait ${Math.ceil(ms / 1000)} s inside a sequence that must not see time pass (the test clock ${this.url} is not moved there)`,
        ),
      );
    }
    if (this.broken) return Promise.reject(this.broken);
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.sleepers.push({ until: this.now() + ms, resolve, reject });
      // On the next turn, so the waits that other rules start meanwhile are counted in the first move.
      setImmediate(() => void this.pump());
    });
  }

  async steady<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inSteady.getStore()) return fn();
    while (this.moving) await this.moving;
    this.steadyCount++;
    try {
      return await this.inSteady.run(true, fn);
    } finally {
      if (--this.steadyCount === 0) for (const done of this.steadyEnded.splice(0)) done();
    }
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        const now = this.now();
        for (const sleeper of this.sleepers.filter((s) => s.until <= now)) {
          this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
          sleeper.resolve();
        }
        if (this.sleepers.length === 0) return;
        const until = Math.min(...this.sleepers.map((s) => s.until));
        let done!: () => void;
        this.moving = new Promise<void>((resolve) => (done = resolve));
        try {
          if (this.steadyCount > 0) await new Promise<void>((resolve) => this.steadyEnded.push(resolve));
          const seconds = Math.ceil((until - this.now()) / 1000);
          if (seconds > 0) await this.move(seconds);
        } catch (error) {
          this.broken = error as ClockError;
          for (const sleeper of this.sleepers.splice(0)) sleeper.reject(this.broken);
          return;
        } finally {
          this.moving = undefined;
          done();
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** POSTs one move; records the clock's answer as the latest reading. */
  private async move(seconds: number): Promise<void> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advance_seconds: seconds }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason =
        (error as Error).name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : (cause?.code ?? cause?.message ?? (error as Error).message);
      throw new ClockError(`cannot reach the test clock ${this.url} (fixtures clock.url): ${reason}`);
    }
    const text = await response.text().catch(() => '');
    if (response.status !== 200) {
      throw new ClockError(
        `the test clock ${this.url} (fixtures clock.url) answered HTTP ${response.status} to {"advance_seconds": ${seconds}}, not 200: ${text.slice(0, 200)}`,
      );
    }
    let body: { now?: unknown; frozen?: unknown } | undefined;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const clock = typeof body?.now === 'string' ? Date.parse(body.now) : NaN;
    if (!Number.isFinite(clock)) {
      throw new ClockError(`the test clock ${this.url} (fixtures clock.url) answered without its time ("now", an ISO 8601 date-time): ${text.slice(0, 200)}`);
    }
    this.readings.push({ real: Date.now(), clock, frozen: body?.frozen === true });
    this.advancedMs += seconds * 1000;
  }
}

/** The time of a run against this target: its test clock when the fixtures name one. */
export function timeFor(clockUrl: string | undefined, timeoutMs: number): Promise<Time> {
  return clockUrl === undefined ? Promise.resolve(realTime) : ClockTime.open(clockUrl, timeoutMs);
}
