import type { Server } from 'node:http';
import { isIPv6 } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { ConformanceFixturesT } from '@agent-tts/contract/fixtures.js';
import { ConfigError } from '@agent-tts/server/config.js';
import { closeServer, listen } from '@agent-tts/server/http/listen.js';
import type { Logger } from '@agent-tts/server/log.js';
import type { SeedCounts } from '@agent-tts/server/seed.js';
import type { ClientClock } from '@agent-tts/client/clock.js';
import { clientClockFor } from '@agent-tts/client/sandbox-clock.js';
import { ClockError, type ClockState, type SandboxClock } from './clock.js';
import { MAX_CLOCKS } from './clocks.js';
import type { FlaggedRequest, JournalEntry, JournalFilter } from './journal.js';
import { journalClientError, type Journal } from './journal.js';
import { SANDBOX_HEADER, createSandbox, type SandboxCore, type SandboxKeys } from './sandbox.js';
import { checkSettingNames, parsePort } from './settings.js';

export { MAGIC_INPUTS, type MagicInput } from './outcomes.js';
export { SANDBOX_HEADER, type SandboxKeys } from './sandbox.js';
export { ClockError, type ClockState } from './clock.js';
export { MAX_CLOCKS } from './clocks.js';
export { SandboxClockError, clientClockFor, remoteClientClock, type MovableClock } from '@agent-tts/client/sandbox-clock.js';
export type { ClientClock } from '@agent-tts/client/clock.js';
export type { Flag, FlaggedRequest, JournalEntry, JournalFilter } from './journal.js';

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
  log?: Logger;
  /**
   * Check every answer to an operation of the OpenAPI document against the document: a violation is a
   * RESPONSE_VIOLATES_DOCUMENT flag in the journal (so `journal.expectNoFlags()` throws) and an error
   * line in the log; the answer still goes out unchanged. Default false.
   */
  validateResponses?: boolean;
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
  if (!options.allowRemote && !isLoopbackHost(host)) {
    throw new ConfigError(
      `host ${JSON.stringify(host)} is not a loopback address: the sandbox would hand its test keys (GET /sandbox), its clock and its request journal to every machine that can reach it. ` +
        'Listen on 127.0.0.1, ::1 or localhost, or pass allowRemote: true to listen there anyway.',
    );
  }
  const notReady = () => new Response(null, { status: 503 });
  let api: (req: Request) => Response | Promise<Response> = notReady;
  let voices: (req: Request) => Response | Promise<Response> = notReady;
  // Requests the HTTP parser refuses are answered by the listener: marked too, and journaled.
  let journalOf: Journal | undefined;
  const mark = { [SANDBOX_HEADER]: '1' };
  const servers: Server[] = [];
  try {
    servers.push(
      await listen((req) => api(req), options.port ?? (PORT === undefined ? 0 : parsePort('PORT', PORT)), host, '--port', {
        headers: mark,
        onClientError: ({ requestLine }) => journalOf && journalClientError(journalOf, requestLine),
      }),
    );
    servers.push(
      await listen((req) => voices(req), options.voicesPort ?? (VOICES_PORT === undefined ? 0 : parsePort('VOICES_PORT', VOICES_PORT)), host, '--voices-port', {
        headers: mark,
      }),
    );
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
  const [port, voicesPort] = servers.map((s) => (s.address() as { port: number }).port) as [number, number];
  // On a wildcard address the API is reached (and audio URLs point) on this machine's loopback.
  const urlHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : isIPv6(host) ? `[${host}]` : host;
  const ownUrl = `http://${urlHost}:${port}`;
  const ownVoicesUrl = `http://${urlHost}:${voicesPort}`;
  const listening = { host, port, voicesPort, urls: reachableUrls(host, ownUrl, port) };
  let core;
  try {
    core = await createSandbox({ baseUrl: ownUrl, voicesUrl: ownVoicesUrl, env, log: options.log, validateResponses: options.validateResponses });
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
  const { clock, journal } = core;
  // Where clients are sent: the listeners' own origins unless PUBLIC_BASE_URL / PUBLIC_VOICES_URL name others.
  const { publicBaseUrl: baseUrl, publicVoicesUrl: voicesUrl } = core.services.config;
  journalOf = journal;
  api = (req) => core.fetch(req);
  voices = (req) => core.voicesFetch(req);
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

/**
 * The controls of a sandbox clock (the global one or a test clock): each move resolves with the clock's
 * state once the work it made due has run, or rejects when `check` throws (a deleted test clock).
 */
function controlsOf(clock: SandboxClock, check: () => void = () => {}): ClockControls {
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
async function testClockOf(core: SandboxCore, options: CreateClockOptions = {}): Promise<TestClock> {
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

/** Whether listening on `host` keeps the sandbox on this machine: 127.0.0.0/8, ::1 (or ::ffff:127.x.y.z) and localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost') return true;
  let hostname: string;
  try {
    // WHATWG URL writes an address one way: 127.1 → 127.0.0.1, 0:0:0:0:0:0:0:1 → [::1], ::ffff:127.0.0.1 → [::ffff:7f00:1].
    hostname = new URL(`http://${isIPv6(bare) ? `[${bare}]` : bare}`).hostname;
  } catch {
    return false;
  }
  return /^127\.\d+\.\d+\.\d+$/.test(hostname) || hostname === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname);
}

/** The URLs of the API: on a wildcard address one per address of this machine's interfaces, else `baseUrl`. */
function reachableUrls(host: string, baseUrl: string, port: number): string[] {
  if (host !== '0.0.0.0' && host !== '::') return [baseUrl];
  const urls: string[] = [];
  for (const address of Object.values(networkInterfaces()).flat()) {
    if (!address) continue;
    if (address.family === 'IPv4') urls.push(`http://${address.address}:${port}`);
    // Link-local IPv6 addresses need a zone to be reached; they are left out.
    else if (host === '::' && !address.address.toLowerCase().startsWith('fe80:')) urls.push(`http://[${address.address}]:${port}`);
  }
  return urls.length > 0 ? urls : [baseUrl];
}
