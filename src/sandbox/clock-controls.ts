/** The controls of the sandbox's clocks as `startSandbox` hands them out: the global clock and test clocks. */
import { clientClockFor } from '@agent-tts/client/sandbox-clock.js';
import type { SandboxClock } from './clock.js';
import { ClockError, type ClockControls, type CreateClockOptions, MAX_CLOCKS, type TestClock } from './public.js';
import type { SandboxCore } from './sandbox.js';

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
