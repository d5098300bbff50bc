import type { PlanId } from '@agent-tts/contract/plans.js';
import { type Store, AccountAdmin, type Logger, type AudioStorage } from '@agent-tts/server';
import type { SandboxClock } from './clock.js';
import { GLOBAL_CLOCK_ID, type SandboxClocks } from './clocks.js';
import type { SandboxQueue } from './queue.js';
import { deleteJobsOf } from './retention.js';
import { ClockError, type SandboxKeys } from './public.js';
import { createKeys } from './test-keys.js';

/** A test clock made on request (`POST /sandbox/clocks`, `RunningSandbox.createClock`), with the keys of its own accounts. */
export interface TestClockRecord {
  clock: SandboxClock;
  keys: SandboxKeys;
}

/** The test clocks of one sandbox and their keys: made, found and deleted (SandboxCore's createClock, testClock, deleteClock). */
export interface TestClocks {
  create(options?: { set?: number; freeze?: boolean }): Promise<TestClockRecord | undefined>;
  get(id: string): TestClockRecord | undefined;
  delete(id: string): Promise<boolean>;
}

interface TestClockDeps {
  clocks: SandboxClocks;
  store: Store;
  audio: AudioStorage;
  log: Logger;
  /** The accounts' administration on the global clock. */
  admin: AccountAdmin;
  plans: Record<PlanId, { monthlyMinutes: number }>;
  /** The sandbox's queue, once composed. */
  queue: () => SandboxQueue | undefined;
}

export function testClocks({ clocks, store, audio, log, admin, plans, queue }: TestClockDeps): TestClocks {
  const testKeys = new Map<string, SandboxKeys>();
  const create: TestClocks['create'] = async (options = {}) => {
    const made = await clocks.create(async (on) => {
      // Frozen first, so that a frozen clock stands exactly at `set`.
      if (options.freeze) await on.freeze();
      if (options.set !== undefined) {
        const now = on.now();
        if (options.set < now) {
          throw new ClockError(
            `A test clock starts at real time (${new Date(now).toISOString()}) and only moves forward: set ${new Date(options.set).toISOString()} is before it.`,
          );
        }
        await on.set(options.set);
      }
      // Made on the test clock: the accounts' usage month (minutes_used_up's) is the clock's month.
      return createKeys(new AccountAdmin(store, on), plans, `sandbox ${on.id}`);
    });
    if (!made) return undefined;
    testKeys.set(made.clock.id, made.made.keys);
    return { clock: made.clock, keys: made.made.keys };
  };
  const get: TestClocks['get'] = (id) => {
    const on = id === GLOBAL_CLOCK_ID ? undefined : clocks.get(id);
    const keysOf = testKeys.get(id);
    return on && keysOf ? { clock: on, keys: keysOf } : undefined;
  };
  // Deleting a test clock deletes what it owns, as Stripe's does its customers: its keys answer 401
  // INVALID_KEY, its jobs and their audio are gone.
  const remove: TestClocks['delete'] = async (id) => {
    const on = get(id)?.clock;
    const members = on && clocks.membersOf(id);
    if (!on || !members) return false;
    testKeys.delete(id);
    // Its keys are revoked while the clock still routes them: a key is never valid on the global clock.
    for (const key of members.keyIds) await admin.revokeKey(key).catch(() => false);
    clocks.remove(id);
    queue()?.dropClock(on);
    await deleteJobsOf(members.accountIds, store, audio, log);
    return true;
  };
  return { create, get, delete: remove };
}
