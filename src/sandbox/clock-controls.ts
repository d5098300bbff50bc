/** The controls of the sandbox's clocks as `startSandbox` hands them out: the global clock and test clocks. */
import type { ClientClock } from '@agent-tts/client/clock.js';
import { clientClockFor } from '@agent-tts/client/sandbox-clock.js';
import { ClockError, type ClockState, type SandboxClock } from './clock.js';
import { MAX_CLOCKS } from './clocks.js';
import type { SandboxCore } from './sandbox.js';
import type { SandboxKeys } from './test-keys.js';

/** Moves a sandbox clock (the global one or a test clock); each move resolves with the clock's state once the work it made due has run. */
export interface ClockControls {
  advance(seconds: number): Promise<ClockState>;
  set(at: Date | string): Promise<ClockState>;
  freeze(): Promise<ClockState>;
  unfreeze(): Promise<ClockState>;
  reset(): Promise<ClockState>;
  now(): Date;
  /**
   * For the clients' `clock` option (`new AgentTtsClient({ ..., clock: sandbox.clock.client })`): its
   * time is this clock's, and a wait advances this clock instead of passing real time.
   */
  client: ClientClock;
}

/**
 * A test clock made with `createClock`: a clock of its own, with fresh test keys (the states of
 * `SandboxKeys`, on new accounts) whose requests, jobs, rate-limit windows, usage months, audio-URL
 * expiry and retention are on it alone. Moves as `RunningSandbox.clock` does.
 */
export interface TestClock extends ClockControls {
  /** `clk_` and 24 hex digits; its HTTP form is `/sandbox/clocks/<id>`. */
  id: string;
  keys: SandboxKeys;
  /** Deletes the clock: its keys are revoked (401 INVALID_KEY), its jobs and their audio deleted. */
  delete(): Promise<void>;
}

export interface CreateClockOptions {
  /** Start at this time (not before real time) instead of real time. */
  set?: Date | string;
  /** Start frozen. */
  freeze?: boolean;
}

/**
 * The controls of a sandbox clock (the global one or a test clock): each move resolves with the clock's
 * state once the work it made due has run, or rejects when `check` throws (a deleted test clock).
 */
export function controlsOf(clock: SandboxClock, check: () => void = () => {}): ClockControls {
  const after = async (move: () => Promise<void>) => {
    check();
    await move();
    return clock.state();
  };
  const advance = (seconds: number) => after(() => clock.advance(seconds));
  return {
    advance,
    set: (at) => after(() => clock.set(new Date(at).getTime())),
    freeze: () => after(() => clock.freeze()),
    unfreeze: () => after(() => clock.unfreeze()),
    reset: () => after(() => clock.reset()),
    now: () => new Date(clock.now()),
    client: clientClockFor({ now: () => clock.now(), advance }),
  };
}

/** Makes a test clock on the sandbox and the handle `createClock` gives; its moves refuse once it is deleted. */
export async function testClockOf(core: SandboxCore, options: CreateClockOptions = {}): Promise<TestClock> {
  const set = options.set === undefined ? undefined : new Date(options.set).getTime();
  if (set !== undefined && Number.isNaN(set))
    throw new ClockError(`set must be a Date or an ISO 8601 date-time, e.g. 2030-01-01T00:00:00Z; got ${JSON.stringify(String(options.set))}.`);
  const made = await core.createClock({ ...(set === undefined ? {} : { set }), ...(options.freeze === undefined ? {} : { freeze: options.freeze }) });
  if (!made)
    throw new ClockError(
      `The sandbox already holds ${MAX_CLOCKS} test clocks, the most it keeps: delete those of finished tests (clock.delete()) before making more.`,
    );
  const { clock, keys } = made;
  const live = () => {
    if (!core.testClock(clock.id)) throw new ClockError(`Test clock ${clock.id} was deleted: make another with createClock().`);
  };
  return {
    id: clock.id,
    keys,
    ...controlsOf(clock, live),
    async delete() {
      await core.deleteClock(clock.id);
    },
  };
}
