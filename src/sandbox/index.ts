import type { ConformanceFixturesT } from '@agent-tts/contract/fixtures.js';
import { closeServer, isLoopbackHost as serverIsLoopbackHost } from '@agent-tts/server';
import { controlsOf, testClockOf } from './clock-controls.js';
import type { FlaggedRequest, JournalEntry } from './journal-entry.js';
import { checkHost, notReadyRouting, openListeners, originsOf } from './listeners.js';
import { createSandbox } from './sandbox.js';
import type { ClockControls, CreateClockOptions, JournalFilter, SandboxKeys, SandboxLogger, SeedCounts, TestClock } from './public.js';
import { checkSettingNames, parsePort } from './settings.js';

export { MAGIC_INPUTS, type MagicInput } from './outcomes.js';
export {
  SANDBOX_HEADER,
  type SandboxKeys,
  ClockError,
  type ClockState,
  MAX_CLOCKS,
  type JournalFilter,
  type ClockControls,
  type CreateClockOptions,
  type TestClock,
  type SandboxLogger,
  type SeedCounts,
} from './public.js';
export { SandboxClockError, clientClockFor, remoteClientClock, type MovableClock } from '@agent-tts/client/sandbox-clock.js';
export type { ClientClock } from '@agent-tts/client/clock.js';
export type { Flag, FlaggedRequest, JournalEntry } from './journal-entry.js';

/** Whether `host` names this machine's loopback: 127.0.0.0/8, ::1 (or ::ffff:127.x.y.z) and localhost. */
export function isLoopbackHost(host: string): boolean {
  return serverIsLoopbackHost(host);
}

export interface StartSandboxOptions {
  /**
   * Default 127.0.0.1. Another loopback address (127.0.0.0/8, ::1) or `localhost` is taken as it is;
   * any other host (0.0.0.0, ::, an interface's address, a name) needs `allowRemote`.
   */
  host?: string;
  /**
   * Listen on a host that is not a loopback address. Everyone who can reach it then gets the test keys
   * (GET /sandbox), the clock and the request journal: for a network you trust only. Default false.
   */
  allowRemote?: boolean;
  /** Default 0: any free port. */
  port?: number;
  /** The voice catalog's listener; default 0: any free port. */
  voicesPort?: number;
  /**
   * The origin clients reach the API on, when it is not the listener's own (a proxy in front): audio
   * URLs, `baseUrl` and the fixtures use it. As PUBLIC_BASE_URL in `env`; this wins.
   */
  publicBaseUrl?: string;
  /** The origin clients reach the voice catalog on (PUBLIC_VOICES_URL); `voicesUrl` is it. */
  publicVoicesUrl?: string;
  /**
   * Settings of the reference server's configuration (docs/sandbox.md, "Sandbox settings"), e.g.
   * `{ RATE_POST_LIMIT: '5' }`, parsed as the server parses them; HOST, PORT and VOICES_PORT stand for
   * the options above (which win). A setting the sandbox does not read (REDIS_URL, DATA_DIR…) or a bad
   * value rejects with a ConfigError saying what is allowed. No environment variable is read.
   */
  env?: Record<string, string>;
  /** Where the sandbox logs (a pino logger); default: its own, silent unless LOG_LEVEL in `env` says otherwise. */
  log?: SandboxLogger;
  /**
   * Check every answer to an operation of the OpenAPI document against the document: a violation is a
   * RESPONSE_VIOLATES_DOCUMENT flag in the journal (so `journal.expectNoFlags()` throws) and an error
   * line in the log; the answer still goes out unchanged. Default false.
   */
  validateResponses?: boolean;
}

export interface RunningSandbox {
  /** The API's origin as clients reach it, e.g. http://127.0.0.1:41234 (`publicBaseUrl` when given). */
  baseUrl: string;
  /** The voice catalog's origin as clients reach it. */
  voicesUrl: string;
  /**
   * Where the API listens: the address and port it is bound to (e.g. 0.0.0.0 with `allowRemote`), and
   * the URLs it can be reached on (on a wildcard address, one per address of this machine's interfaces).
   */
  listening: { host: string; port: number; voicesPort: number; urls: string[] };
  keys: SandboxKeys;
  /** The global clock, which every key of `keys` is on. */
  clock: ClockControls;
  journal: {
    list(filter?: JournalFilter): JournalEntry[];
    /** How many requests the filter keeps, e.g. `count({ method: 'POST' })`. */
    count(filter?: JournalFilter): number;
    /** Every flag of the requests the filter keeps, with the request that earned it. */
    flags(filter?: JournalFilter): FlaggedRequest[];
    /**
     * Throws an Error listing each flag (request, method, path, flag and what was wrong) when there is
     * any: the client's mistakes, and with `validateResponses` answers that break the OpenAPI document.
     */
    expectNoFlags(filter?: JournalFilter): void;
    clear(): void;
  };
  /**
   * Makes a test clock with its own keys (docs/sandbox.md, "Test clocks"): tests that each make one
   * share a sandbox without sharing time. Rejects with a ClockError for a `set` before real time, or
   * when the sandbox already holds MAX_CLOCKS (1,000) test clocks.
   */
  createClock(options?: CreateClockOptions): Promise<TestClock>;
  /** Seeds the accounts the conformance suite needs and returns its fixtures (with `clock`). */
  fixtures(counts?: SeedCounts): Promise<ConformanceFixturesT>;
  stop(): Promise<void>;
}

/**
 * Starts a sandbox in this process (no child process), for the tests of client code: the reference
 * server's API over in-memory state, with test keys, a test clock and a request journal.
 *
 * ```ts
 * const sandbox = await startSandbox();
 * // … point the client at sandbox.baseUrl with sandbox.keys.active_pro; sandbox.clock.advance(3) …
 * await sandbox.stop();
 * ```
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const { HOST, PORT, VOICES_PORT, ...env } = options.env ?? {};
  if (options.publicBaseUrl !== undefined) env.PUBLIC_BASE_URL = options.publicBaseUrl;
  if (options.publicVoicesUrl !== undefined) env.PUBLIC_VOICES_URL = options.publicVoicesUrl;
  checkSettingNames(env);
  const host = options.host ?? HOST ?? '127.0.0.1';
  checkHost(host, options.allowRemote);
  const routing = notReadyRouting();
  const servers = await openListeners(
    host,
    {
      api: () => options.port ?? (PORT === undefined ? 0 : parsePort('PORT', PORT)),
      voices: () => options.voicesPort ?? (VOICES_PORT === undefined ? 0 : parsePort('VOICES_PORT', VOICES_PORT)),
    },
    routing,
  );
  const { ownUrl, ownVoicesUrl, listening } = originsOf(host, servers);
  let core;
  try {
    core = await createSandbox({
      baseUrl: ownUrl,
      voicesUrl: ownVoicesUrl,
      // The addresses it listens on, each with the API's port (ALLOWED_HOSTS in `env` adds names).
      allowedHosts: listening.urls,
      env,
      log: options.log,
      validateResponses: options.validateResponses,
    });
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
  const { clock, journal } = core;
  // Where clients are sent: the listeners' own origins unless PUBLIC_BASE_URL / PUBLIC_VOICES_URL name others.
  const { publicBaseUrl: baseUrl, publicVoicesUrl: voicesUrl } = core.services.config;
  routing.journal = journal;
  routing.api = (req) => core.fetch(req);
  routing.voices = (req) => core.voicesFetch(req);
  let stopped = false;
  return {
    baseUrl,
    voicesUrl,
    listening,
    keys: core.keys,
    clock: controlsOf(clock),
    journal: {
      list: (filter) => journal.list(filter),
      count: (filter) => journal.count(filter),
      flags: (filter) => journal.flagged(filter),
      expectNoFlags: (filter) => {
        const flagged = journal.flagged(filter);
        if (flagged.length > 0) throw new Error(describeFlags(flagged));
      },
      clear: () => journal.clear(),
    },
    createClock: (clockOptions) => testClockOf(core, clockOptions),
    fixtures: (counts) => core.fixtures(counts),
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map(closeServer));
      await core.close();
    },
  };
}

/** The message of expectNoFlags: one line per flag, in the order the requests were made. */
export function describeFlags(flagged: FlaggedRequest[]): string {
  const lines = flagged.map((f) => `  #${f.id} ${f.method} ${f.path} (${f.at}): ${f.code}: ${f.message}`);
  // An answer that breaks the document (validateResponses) is the sandbox's defect, not the client's mistake.
  const broken = flagged.filter((f) => f.code === 'RESPONSE_VIOLATES_DOCUMENT').length;
  const mistakes = flagged.length - broken;
  const what = [
    ...(mistakes === 0 ? [] : [mistakes === 1 ? 'a mistake of the client' : `${mistakes} mistakes of the client`]),
    ...(broken === 0 ? [] : [broken === 1 ? 'an answer that breaks the OpenAPI document' : `${broken} answers that break the OpenAPI document`]),
  ];
  return `The sandbox's journal shows ${what.join(' and ')}:\n${lines.join('\n')}`;
}
