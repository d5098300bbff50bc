/**
 * The names of the sandbox's public API (index.ts) that its other modules share, defined here where
 * nothing of @agent-tts/server is named: the published declarations reach this module, and the server is
 * not installed with the sandbox (its code is bundled in: scripts/build-sandbox.mjs).
 */
import type { Logger as PinoLogger } from 'pino';
import type { ClientClock } from '@agent-tts/client/clock.js';

/**
 * A logger for `startSandbox({ log })`: a pino logger (the server writes its request lines through pino's
 * own stream). pino is a dependency of the sandbox.
 */
export type SandboxLogger = PinoLogger;

/** How many accounts `fixtures()` seeds beside the test keys, for the conformance suite. */
export interface SeedCounts {
  /** Active keys (each its own account) for the rules that create and compare jobs. Default 8. */
  active?: number;
  /** Keys (each its own account) for the acceptance rules' boundary POSTs, one per window each. Default 64. */
  acceptance?: number;
}

/** The header on every answer of the sandbox, so that it cannot be mistaken for a deployment. */
export const SANDBOX_HEADER = 'Agent-TTS-Sandbox';

/** Test clocks one sandbox holds at once (the global clock not counted): each has its own accounts and keys. */
export const MAX_CLOCKS = 1_000;

/** A clock's state, as its moves resolve with it and GET /sandbox/clock answers it. */
export interface ClockState {
  now: string;
  frozen: boolean;
  offset_seconds: number;
}

/** A move of a sandbox clock that cannot be made (backwards, too far, on a deleted test clock), or one test clock too many. */
export class ClockError extends Error {}

/** The test keys, one per account state; fresh on every start. */
export interface SandboxKeys {
  /** Active, API access, on the free plan (30 minutes a month by default). */
  active_free: string;
  /** Active on the pro plan (600 minutes a month). */
  active_pro: string;
  /** Active on the ultimate plan (3,000 minutes a month). */
  active_ultimate: string;
  /** 403 INACTIVE_SUBSCRIPTION. */
  inactive_subscription: string;
  /** 403 NO_API_ACCESS (the basic plan). */
  no_api_access: string;
  /** Free plan with one minute of the month left: a long text gets USAGE_LIMIT_EXCEEDED, a short one passes. */
  minutes_almost_used: string;
  /** Free plan with the month's minutes all used: USAGE_LIMIT_EXCEEDED until the month turns on the sandbox clock. */
  minutes_used_up: string;
  /** 401 INVALID_KEY, as any revoked key. */
  revoked: string;
}

/** Which journal entries `journal.list`, `count`, `flags` and `expectNoFlags` keep; every field given must match. */
export interface JournalFilter {
  method?: string;
  path?: string;
  status?: number;
  key?: string;
  /** Entries at or after this sandbox time (ISO 8601). */
  since?: string;
  /** Entries of requests on this clock (`global` or a test clock's id). */
  clock?: string;
}

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
