import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { API_KEY_PATTERN, AUDIO_PATH_PREFIX } from '@agent-tts/contract/limits.js';
import type { AppEnv, Clock } from '@agent-tts/server';
import { SandboxClock } from './clock.js';
import { MAX_CLOCKS } from './public.js';

/** The id of the sandbox's default clock: every key the sandbox made at start, and every account it did not make for a test clock. */
export const GLOBAL_CLOCK_ID = 'global';

/** What the sandbox made for one test clock: the accounts and keys on it. */
export interface ClockMembers {
  accountIds: readonly string[];
  /** Public ids (the 8 hex digits after `tts_`) of its keys. */
  keyIds: readonly string[];
}

/**
 * The sandbox's clocks, and the `Clock` the server's parts read.
 *
 * Test clocks are objects, as Stripe's are: each owns the accounts (and keys) made for it, and every
 * time-dependent rule (rate-limit windows, the usage month, audio-URL expiry, retention, held jobs)
 * reads the clock of the account concerned. The server's parts are given one `Clock` (this object);
 * `now()` and `schedule()` answer with the clock of the work in progress, carried by an
 * AsyncLocalStorage:
 * - a request gets its clock from `clockMiddleware` (placed before authentication): its key's, or for
 *   an audio URL its job's account's; anything else is on the global clock;
 * - work that outlives its request carries its clock on: a held job's release is scheduled on the
 *   job's clock and runs inside it (`schedule`, `scheduleOn`), and the queue starts a job inside its
 *   account's clock (`runOn`), so a job's progress, completion and expiry are stamped on its clock;
 * - the timer of the rate limiter's sweep of idle buckets is started under `background` and reads the
 *   earliest clock, so that a bucket is dropped only once it is idle on every clock (only the limiter is
 *   made under it, sandbox.ts); any other read outside a request or a job reads the global clock.
 * Retention sweeps are made per clock, over the accounts of that clock (sandbox.ts).
 */
export class SandboxClocks implements Clock {
  readonly global = new SandboxClock(GLOBAL_CLOCK_ID);
  private readonly created = new Map<string, SandboxClock>();
  private readonly members = new Map<string, ClockMembers>();
  private readonly byKey = new Map<string, SandboxClock>();
  private readonly byAccount = new Map<string, SandboxClock>();
  private readonly current = new AsyncLocalStorage<SandboxClock | 'earliest'>();
  private readonly moveListeners: Array<(clock: SandboxClock, now: number) => Promise<void>> = [];
  /** Clocks being made (their keys are being created): they count against MAX_CLOCKS. */
  private pending = 0;

  constructor() {
    this.listen(this.global);
  }

  /** The clock of the work in progress (the global clock outside any). */
  clock(): SandboxClock {
    const current = this.current.getStore();
    return current instanceof SandboxClock ? current : this.global;
  }

  now(): number {
    if (this.current.getStore() === 'earliest') return Math.min(...this.all().map((c) => c.now()));
    return this.clock().now();
  }

  /** Work to run once the clock of the work in progress reaches `at`; it runs inside that clock. */
  schedule(at: number, fire: () => Promise<void>): void {
    this.scheduleOn(this.clock(), at, fire);
  }

  scheduleOn(clock: SandboxClock, at: number, fire: () => Promise<void>): void {
    clock.schedule(at, () => this.runOn(clock, fire));
  }

  /** Runs `fn` (and all the work it starts) on `clock`. */
  runOn<T>(clock: SandboxClock, fn: () => T): T {
    return this.current.run(clock, fn);
  }

  /** Runs `fn` so that the timers it starts read the earliest clock (see the class comment): only the rate limiter is made so. */
  background<T>(fn: () => T): T {
    return this.current.run('earliest', fn);
  }

  /** Runs after every move of any clock (present or future), once the work due on it has run. */
  onMove(listener: (clock: SandboxClock, now: number) => Promise<void>): void {
    this.moveListeners.push(listener);
  }

  private listen(clock: SandboxClock): void {
    clock.onMove(async (now) => {
      for (const listener of this.moveListeners) await listener(clock, now);
    });
  }

  /** The global clock, then the test clocks oldest first. */
  all(): SandboxClock[] {
    return [this.global, ...this.created.values()];
  }

  /** The global clock (`global`) or a test clock by its id. */
  get(id: string): SandboxClock | undefined {
    return id === GLOBAL_CLOCK_ID ? this.global : this.created.get(id);
  }

  /** Test clocks held, plus those being made. */
  get count(): number {
    return this.created.size + this.pending;
  }

  /**
   * Makes a test clock: `prepare` moves it and makes its accounts and keys (it counts against
   * MAX_CLOCKS meanwhile); the clock is known by its id, and routes its keys' requests, once it
   * resolves. `undefined` when MAX_CLOCKS are held.
   */
  async create<T extends ClockMembers>(prepare: (clock: SandboxClock) => Promise<T>): Promise<{ clock: SandboxClock; made: T } | undefined> {
    if (this.count >= MAX_CLOCKS) return undefined;
    this.pending++;
    const clock = new SandboxClock(`clk_${randomBytes(12).toString('hex')}`);
    try {
      const made = await prepare(clock);
      this.created.set(clock.id, clock);
      this.members.set(clock.id, made);
      for (const id of made.keyIds) this.byKey.set(id, clock);
      for (const id of made.accountIds) this.byAccount.set(id, clock);
      this.listen(clock);
      return { clock, made };
    } catch (error) {
      clock.close();
      throw error;
    } finally {
      this.pending--;
    }
  }

  /** What a test clock owns (its accounts and keys), or undefined for the global clock or an unknown id. */
  membersOf(id: string): ClockMembers | undefined {
    return this.members.get(id);
  }

  /**
   * Forgets a test clock (its keys' requests go to the global clock from now on) and stops its timers;
   * what it owned, or undefined. Revoke its keys first (`membersOf`): a key still valid once its clock
   * is forgotten would be served on the global clock.
   */
  remove(id: string): ClockMembers | undefined {
    const clock = this.created.get(id);
    const members = this.members.get(id);
    if (!clock || !members) return undefined;
    this.created.delete(id);
    this.members.delete(id);
    for (const key of members.keyIds) this.byKey.delete(key);
    for (const account of members.accountIds) this.byAccount.delete(account);
    clock.close();
    return members;
  }

  /** The accounts on a test clock; none for the global clock (it has every account not on a test clock). */
  accountsOf(clock: SandboxClock): readonly string[] {
    return this.members.get(clock.id)?.accountIds ?? [];
  }

  /** Every account on a test clock (those the global clock's retention sweep leaves alone). */
  accountsOnTestClocks(): string[] {
    return [...this.byAccount.keys()];
  }

  /** The clock of a key (by its public id) or of an account: the global clock unless the sandbox made it for a test clock. */
  ofKey(publicId: string): SandboxClock {
    return this.byKey.get(publicId) ?? this.global;
  }

  ofAccount(accountId: string): SandboxClock {
    return this.byAccount.get(accountId) ?? this.global;
  }

  /** Whether any account is on a test clock (else every request is on the global clock, without a lookup). */
  get anyOnTestClocks(): boolean {
    return this.byAccount.size > 0;
  }

  close(): void {
    for (const clock of this.all()) clock.close();
  }
}

/**
 * Runs each request on its clock, before authentication: the clock of its bearer key, or for an
 * audio URL (which carries no key) the clock of its job's account; the global clock otherwise.
 */
export function clockMiddleware(clocks: SandboxClocks, accountOfJob: (jobId: string) => Promise<string | undefined>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let clock = clocks.global;
    if (clocks.anyOnTestClocks) {
      const auth = c.req.header('authorization');
      const key = auth === undefined ? undefined : API_KEY_PATTERN.exec(auth.replace(/^Bearer\s+/i, '').trim())?.[1];
      if (key !== undefined) clock = clocks.ofKey(key);
      else if (c.req.path.startsWith(AUDIO_PATH_PREFIX)) {
        const job = /^([^/]+)\.mp3$/i.exec(c.req.path.slice(AUDIO_PATH_PREFIX.length))?.[1];
        const account = job !== undefined ? await accountOfJob(job.toLowerCase()).catch(() => undefined) : undefined;
        if (account !== undefined) clock = clocks.ofAccount(account);
      }
    }
    return clocks.runOn(clock, () => next());
  };
}
