import type { Store } from '../ports/index.js';
import { assembled } from './assembled.js';
import { memoryAccounts, memoryKeys } from './memory/accounts.js';
import { memoryIdempotency, memoryJobs, memoryUsage } from './memory/jobs.js';
import { memorySessions } from './memory/sessions.js';
import { emptyState } from './memory/state.js';

/** The repositories over one empty in-memory state, one module per aggregate under memory/. */
function openRepositories(): Store {
  const state = emptyState();
  let closed = false;
  return {
    ...memoryAccounts(state),
    ...memoryKeys(state),
    ...memoryIdempotency(state),
    ...memoryUsage(state),
    ...memoryJobs(state),
    ...memorySessions(state),
    async ping() {
      if (closed) throw new Error('The memory store is closed.');
    },
    async close() {
      closed = true;
    },
  };
}

/**
 * The store in this process's memory, for tests and the sandbox: the same behaviour as SqliteStore
 * (the same contract suites run against both), nothing written anywhere, everything gone when the
 * process ends. Each method does its whole work without awaiting, so an operation SQLite runs in a
 * transaction (creating a job with its reservation and its Idempotency-Key, settling it, deleting
 * expired jobs) is atomic here too. Memory is bounded only by what retention deletes
 * (deleteExpiredJobs) and what the sessions and sign-in tokens drop as they expire: not a store for a
 * server that runs for long with real traffic.
 */
export class MemoryStore extends assembled<Store>() implements Store {
  constructor() {
    super(openRepositories());
  }
}
