import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ConformanceFixturesT } from '@agent-tts/contract/fixtures.js';
import {
  AccountAdmin,
  type ApiServices,
  type AppEnv,
  type Config,
  createApi,
  createLogger,
  hostGuard,
  JobFiles,
  LocalBlobStorage,
  type Logger,
  loadConfig,
  MemoryRateLimiter,
  MemoryStore,
  seed,
  type SeedCounts,
  type Store,
} from '@agent-tts/server';
import type { SandboxClock } from './clock.js';
import { clockMiddleware, SandboxClocks } from './clocks.js';
import { sandboxGuard } from './guard.js';
import { Journal } from './journal.js';
import { journalMiddleware } from './journal-middleware.js';
import { runOnAccountClock, SandboxQueue } from './queue.js';
import { registerSandboxRoutes } from './routes.js';
import { checkSettingNames } from './settings.js';
import { sweepPerClock } from './retention.js';
import { InstantSynthesizer } from './synthesizer.js';
import { type TestClockRecord, type TestClocks, testClocks } from './test-clocks.js';
import { SANDBOX_HEADER, type SandboxKeys } from './public.js';
import { createKeys } from './test-keys.js';
import type { Violation } from './validation.js';

const MARK = { [SANDBOX_HEADER]: '1' } as const;

export interface SandboxCoreOptions {
  /** Origin clients reach the API on (audio URLs are built on it). */
  baseUrl: string;
  /** Origin of the voice catalog's listener. */
  voicesUrl: string;
  /**
   * Settings of the reference server's configuration (docs/configuration.md), e.g. RATE_POST_LIMIT;
   * only those the sandbox reads (settings.ts), any other name is refused. PUBLIC_BASE_URL replaces
   * `baseUrl` where clients are sent (audio URLs, the fixtures).
   */
  env?: Record<string, string>;
  log?: Logger;
  /**
   * Check every answer to an operation of the OpenAPI document against it (validation.ts); a violation
   * is a RESPONSE_VIOLATES_DOCUMENT flag in the journal and an error line in the log (at level error
   * unless LOG_LEVEL or `log` say otherwise), and the answer goes out unchanged.
   */
  validateResponses?: boolean;
  /**
   * Host values the API answers besides the loopback names, `baseUrl`'s, PUBLIC_BASE_URL's and
   * ALLOWED_HOSTS': URLs, `name:port`, or bare names (any port). Any other Host is refused 403 (a
   * DNS-rebinding page must not read the test keys or the journal; docs/sandbox.md).
   */
  allowedHosts?: readonly string[];
  /** Jobs run at once (default 10,000: held jobs wait on the clock, not on a thread). For tests of the queue. */
  jobConcurrency?: number;
}

export interface SandboxCore {
  app: OpenAPIHono<AppEnv>;
  voicesApp: OpenAPIHono<AppEnv>;
  /** What the API listener serves: `app.fetch`, with its answers checked when `validateResponses` is on. */
  fetch(request: Request): Response | Promise<Response>;
  /** What the voice catalog's listener serves, likewise. */
  voicesFetch(request: Request): Response | Promise<Response>;
  /** The global clock: the clock of the keys made at start and of every account not on a test clock. */
  clock: SandboxClock;
  /** Every clock: the global one and the test clocks (clocks.ts). */
  clocks: SandboxClocks;
  /**
   * Makes a test clock, moved to `set` (ms since the epoch) and frozen if asked, with fresh keys on new
   * accounts; `undefined` when MAX_CLOCKS are held. Throws ClockError for a `set` it cannot take.
   */
  createClock(options?: { set?: number; freeze?: boolean }): Promise<TestClockRecord | undefined>;
  /** A test clock and its keys, by id. */
  testClock(id: string): TestClockRecord | undefined;
  /** Deletes a test clock: its keys are revoked, its jobs and their audio deleted. False when there is none of that id. */
  deleteClock(id: string): Promise<boolean>;
  journal: Journal;
  keys: SandboxKeys;
  services: ApiServices;
  /** Seeds accounts for the conformance suite (agent-tts-admin seed's, on the sandbox's store) and returns its fixtures. */
  fixtures(counts?: SeedCounts): Promise<ConformanceFixturesT>;
  close(): Promise<void>;
}

/**
 * The sandbox: the reference server's own API (its app, routes, domain rules and adapters, assembled
 * by compose.ts) over in-memory state — the memory store (MemoryStore), the in-process rate limiter
 * and queue, audio in a temporary directory removed on close — with an instant synthesizer, a test
 * clock every time-dependent rule reads, a request journal and test keys. Nothing here can be switched
 * on in `agent-tts-server`: this is a composition root of its own.
 */
export async function createSandbox(options: SandboxCoreOptions): Promise<SandboxCore> {
  checkSettingNames(options.env ?? {});
  const dir = mkdtempSync(join(tmpdir(), 'agent-tts-sandbox-'));
  try {
    const { config, log, clocks, store, audio, api, shutdown, sandbox } = await composeSandbox(options, dir);
    const { app, voicesApp, services } = api;
    const { clock, keys, journal, tests } = sandbox;
    const sweeps = await sweepPerClock(clocks, store, audio, log);
    const { fetch, voicesFetch } = options.validateResponses
      ? // Loud by default, though the sandbox's log is silent: only LOG_LEVEL or a logger of the caller's quiet it.
        await validatedFetches(app, voicesApp, journal, options.log || options.env?.LOG_LEVEL !== undefined ? log : log.child({}, { level: 'error' }))
      : { fetch: (request: Request) => app.fetch(request), voicesFetch: (request: Request) => voicesApp.fetch(request) };
    let closed = false;
    return {
      app,
      voicesApp,
      fetch,
      voicesFetch,
      clock,
      clocks,
      createClock: tests.create,
      testClock: tests.get,
      deleteClock: tests.delete,
      journal,
      keys,
      services,
      fixtures: (counts) => sandboxFixtures(store, audio, config, clock, counts),
      async close() {
        if (closed) return;
        closed = true;
        shutdown.abort();
        sweeps.stop();
        clocks.close();
        await api.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The listeners' fetch functions with every answer checked against the OpenAPI document
 * (validation.ts, loaded only when asked for: ajv and the compiled validators cost a sandbox without
 * them nothing). A violation is flagged in the journal and logged at error on `violationLog`.
 */
async function validatedFetches(app: OpenAPIHono<AppEnv>, voicesApp: OpenAPIHono<AppEnv>, journal: Journal, violationLog: Logger) {
  const { validatingFetch } = await import('./validation.js');
  const report = (request: Request, v: Violation) => {
    const problems = v.problems.join('; ');
    journal.flagAnswer(request, v.status, {
      code: 'RESPONSE_VIOLATES_DOCUMENT',
      message: `The sandbox's answer (HTTP ${v.status}) breaks the OpenAPI document (openapi/openapi.json): ${problems}. A defect of the sandbox, not of the client; the answer went out unchanged.`,
    });
    violationLog.error(
      { method: v.method, path: v.path, status: v.status, violations: v.problems },
      `answer violates the OpenAPI document: ${v.method} ${v.path} → ${v.status}: ${problems}`,
    );
  };
  return {
    fetch: validatingFetch((request: Request) => app.fetch(request), 'api', report),
    voicesFetch: validatingFetch((request: Request) => voicesApp.fetch(request), 'voices', report),
  };
}

/**
 * The server's API (createApi) over in-memory state, on the sandbox's clocks: the sandbox's store,
 * audio directory under `dir`, instant synthesizer, rate limiter and queue, with its mark, guards,
 * clock and journal middleware and routes added to the API app.
 */
async function composeSandbox(options: SandboxCoreOptions, dir: string) {
  const config = loadConfig({
    DATA_DIR: dir,
    URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
    PUBLIC_BASE_URL: options.baseUrl,
    PUBLIC_VOICES_URL: options.voicesUrl,
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  // Held jobs wait on the clock, not on a thread: any number may run at once.
  config.jobConcurrency = options.jobConcurrency ?? 10_000;
  const log = options.log ?? createLogger(config.logLevel, 'agent-tts-sandbox');
  const clocks = new SandboxClocks();
  const clock = clocks.global;
  const store = new MemoryStore();
  const audio = new JobFiles(new LocalBlobStorage(join(dir, 'audio')));
  const synth = new InstantSynthesizer(config.inlineWaitMs / 1000, config.synthThreads);
  let queue: SandboxQueue | undefined;
  let sandbox: SandboxParts | undefined;
  const shutdown = new AbortController();
  // The rate limiter's sweep of idle buckets (a timer it starts when made) reads the earliest clock, so
  // that a bucket is dropped only once it is idle on every clock; its checks read the request's clock.
  // Nothing else runs under `background`: the server's own timers and chains read the clock of the
  // request or job at hand, the global clock outside any.
  const limiter = clocks.background(() => new MemoryRateLimiter(() => clocks.now()));
  // The server's parts read `clocks`: the clock of the request or job at hand (clocks.ts).
  const api = await createApi({
    config,
    log,
    withOps: true,
    shutdown: shutdown.signal,
    clock: clocks,
    synth,
    limiter,
    storage: { store, audio, close: () => store.close() },
    // Each job runs on its account's clock, whichever run's chain the queue started it from.
    wrapRunner: (run) => runOnAccountClock(run, store, clocks),
    wrapQueue: (inner) => (queue = new SandboxQueue(inner, store, synth, clocks)),
    extend: async () => {
      const admin = new AccountAdmin(store, clock);
      const keys = (await createKeys(admin, config.plans)).keys;
      const journal = new Journal(clocks, () => clocks.clock().id);
      const tests = testClocks({ clocks, store, audio, log, admin, plans: config.plans, queue: () => queue });
      sandbox = { clock, keys, journal, tests };
      return {
        headers: MARK,
        // Its own origin, and the one clients reach it on (a proxy in front).
        // Every path, reads included: GET /sandbox holds every full test key (docs/sandbox.md, "Host names").
        hostGuard: hostGuard({
          allowed: [options.baseUrl, config.publicBaseUrl, ...(options.allowedHosts ?? []), ...config.allowedHosts],
          subject: 'this sandbox',
          remedy: 'start it with --allowed-hosts <name> (ALLOWED_HOSTS)',
        }),
        guards: [sandboxGuard([options.baseUrl, config.publicBaseUrl])],
        // The clock first: the journal stamps an entry with the time of the request's clock.
        middleware: [clockMiddleware(clocks, async (id) => (await store.getJob(id))?.accountId), journalMiddleware(journal)],
        routes: (a) =>
          registerSandboxRoutes(a, {
            clock,
            journal,
            keys,
            testClocks: { all: () => clocks.all(), create: tests.create, get: tests.get, delete: tests.delete, current: () => clocks.clock() },
          }),
      };
    },
  }).catch(async (error: unknown) => {
    await limiter.close();
    throw error;
  });
  // createApi calls extend before it returns.
  if (!sandbox) throw new Error('createApi returned without calling extend');
  return { config, log, clocks, store, audio, api, shutdown, sandbox };
}

/** What the sandbox adds to the server's parts: its global clock, test keys, journal and test clocks. */
interface SandboxParts {
  clock: SandboxClock;
  keys: SandboxKeys;
  journal: Journal;
  tests: TestClocks;
}

/** agent-tts-admin seed's accounts on the sandbox's store, with the conformance fixtures the sandbox adds. */
async function sandboxFixtures(store: Store, audio: JobFiles, config: Config, clock: SandboxClock, counts?: SeedCounts): Promise<ConformanceFixturesT> {
  const fixtures = await seed(store, audio, config, counts, clock);
  return {
    ...fixtures,
    clock: { url: `${config.publicBaseUrl}/sandbox/clock` },
    // Magic inputs for the outcomes the suite cannot otherwise provoke on demand (outcomes.ts).
    outcomes: {
      inline_text: 'sandbox:inline=2 A job that takes two seconds of real time and completes inside the inline wait.',
      async_text: 'sandbox:async=5 A job that outlasts the inline wait: it completes five seconds later on the sandbox clock.',
      provider_error_text: 'sandbox:provider_error A job the speech engine fails inside the inline wait.',
      internal_error_text: 'sandbox:internal_error A request the sandbox answers with an internal error.',
    },
  };
}
