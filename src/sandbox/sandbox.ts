import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ConformanceFixturesT } from '@agent-tts/contract/fixtures.js';
import type { PlanId } from '@agent-tts/contract/plans.js';
import { voiceCatalog } from '@agent-tts/server/synth/index.js';
import { LocalAudioStorage } from '@agent-tts/server/adapters/local-audio-storage.js';
import { MemoryRateLimiter } from '@agent-tts/server/adapters/memory-rate-limiter.js';
import { SqliteStore } from '@agent-tts/server/adapters/sqlite-store.js';
import { composeApi, type ApiServices } from '@agent-tts/server/compose.js';
import { loadConfig } from '@agent-tts/server/config.js';
import { AccountAdmin } from '@agent-tts/server/domain/accounts.js';
import { sweepExpiredJobs } from '@agent-tts/server/domain/retention.js';
import { createApiApp, createVoicesApp } from '@agent-tts/server/http/apps.js';
import type { AppEnv } from '@agent-tts/server/http/context.js';
import { createLogger, type Logger } from '@agent-tts/server/log.js';
import { seed, type SeedCounts } from '@agent-tts/server/seed.js';
import { ClockError, type SandboxClock } from './clock.js';
import { clockMiddleware, GLOBAL_CLOCK_ID, SandboxClocks, type ClockMembers } from './clocks.js';
import { sandboxGuard } from './guard.js';
import { Journal, journalMiddleware } from './journal.js';
import { runOnAccountClock, SandboxQueue } from './queue.js';
import { registerSandboxRoutes } from './routes.js';
import { checkSettingNames } from './settings.js';
import { InstantSynthesizer } from './synthesizer.js';
import type { Violation } from './validation.js';

/** The header on every answer of the sandbox, so that it cannot be mistaken for a deployment. */
export const SANDBOX_HEADER = 'Agent-TTS-Sandbox';
const MARK = { [SANDBOX_HEADER]: '1' } as const;

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
  /** Jobs run at once (default 10,000: held jobs wait on the clock, not on a thread). For tests of the queue. */
  jobConcurrency?: number;
}

/** A test clock made on request (`POST /sandbox/clocks`, `RunningSandbox.createClock`), with the keys of its own accounts. */
interface TestClockRecord {
  clock: SandboxClock;
  keys: SandboxKeys;
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
 * by compose.ts) over in-memory state — SQLite `:memory:`, the in-process rate limiter and queue, audio
 * in a temporary directory removed on close — with an instant synthesizer, a test clock every
 * time-dependent rule reads, a request journal and test keys. Nothing here can be switched on in
 * `agent-tts-server`: this is a composition root of its own.
 */
export async function createSandbox(options: SandboxCoreOptions): Promise<SandboxCore> {
  checkSettingNames(options.env ?? {});
  const dir = mkdtempSync(join(tmpdir(), 'agent-tts-sandbox-'));
  try {
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
    const store = new SqliteStore(':memory:');
    const audio = new LocalAudioStorage(join(dir, 'audio'));
    const synth = new InstantSynthesizer(config.inlineWaitMs / 1000, config.synthThreads);
    let queue: SandboxQueue | undefined;
    // The rate limiter's sweep of idle buckets (a timer it starts when made) reads the earliest clock, so
    // that a bucket is dropped only once it is idle on every clock; its checks read the request's clock.
    // Nothing else runs under `background`: composeApi's own timers and chains read the clock of the
    // request or job at hand, the global clock outside any.
    const limiter = clocks.background(() => new MemoryRateLimiter(() => clocks.now()));
    // The server's parts read `clocks`: the clock of the request or job at hand (clocks.ts).
    const services = await composeApi(config, log, {
      clock: clocks,
      synth,
      limiter,
      storage: { store, audio, close: () => store.close() },
      // Each job runs on its account's clock, whichever run's chain the queue started it from.
      wrapRunner: (run) => runOnAccountClock(run, store, clocks),
      wrapQueue: (inner) => (queue = new SandboxQueue(inner, store, synth, clocks)),
    }).catch(async (error: unknown) => {
      await limiter.close();
      throw error;
    });
    // Retention, per clock: a clock judges the jobs of its own accounts only (the global clock, those of
    // every account not on a test clock), so a clock ahead or behind never deletes another's audio.
    const sweep = (on: SandboxClock, now = on.now()) =>
      sweepExpiredJobs(
        {
          deleteExpiredJobs: (at, limit) =>
            store.deleteExpiredJobs(at, limit, on === clock ? { ids: clocks.accountsOnTestClocks(), except: true } : { ids: clocks.accountsOf(on) }),
        },
        audio,
        log,
        now,
      );
    clocks.onMove(async (on, now) => {
      await sweep(on, now).catch((error: unknown) => log.error({ err: error }, 'retention sweep failed'));
    });
    const sweeper = setInterval(() => void Promise.all(clocks.all().map((on) => sweep(on).catch(() => undefined))), 60_000);
    sweeper.unref();

    const admin = new AccountAdmin(store, clock);
    const keys = (await createKeys(admin, config.plans)).keys;
    const testKeys = new Map<string, SandboxKeys>();
    const journal = new Journal(clocks, () => clocks.clock().id);

    const createClock: SandboxCore['createClock'] = async (options = {}) => {
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
        return createKeys(new AccountAdmin(store, on), config.plans, `sandbox ${on.id}`);
      });
      if (!made) return undefined;
      testKeys.set(made.clock.id, made.made.keys);
      return { clock: made.clock, keys: made.made.keys };
    };
    const testClock: SandboxCore['testClock'] = (id) => {
      const on = id === GLOBAL_CLOCK_ID ? undefined : clocks.get(id);
      const keysOf = testKeys.get(id);
      return on && keysOf ? { clock: on, keys: keysOf } : undefined;
    };
    // Deleting a test clock deletes what it owns, as Stripe's does its customers: its keys answer 401
    // INVALID_KEY, its jobs and their audio are gone.
    const deleteClock: SandboxCore['deleteClock'] = async (id) => {
      const on = testClock(id)?.clock;
      const members = on && clocks.membersOf(id);
      if (!on || !members) return false;
      testKeys.delete(id);
      // Its keys are revoked while the clock still routes them: a key is never valid on the global clock.
      for (const key of members.keyIds) await admin.revokeKey(key).catch(() => false);
      clocks.remove(id);
      queue?.dropClock(on);
      const end = Number.MAX_SAFE_INTEGER;
      await sweepExpiredJobs({ deleteExpiredJobs: (_at, limit) => store.deleteExpiredJobs(end, limit, { ids: members.accountIds }) }, audio, log, end);
      return true;
    };
    const shutdown = new AbortController();
    const app = createApiApp({
      services,
      log,
      shutdown: shutdown.signal,
      withOps: true,
      extend: {
        headers: MARK,
        // Its own origin, and the one clients reach it on (a proxy in front).
        guards: [sandboxGuard([options.baseUrl, config.publicBaseUrl])],
        // The clock first: the journal stamps an entry with the time of the request's clock.
        middleware: [clockMiddleware(clocks, async (id) => (await store.getJob(id))?.accountId), journalMiddleware(journal)],
        routes: (a) =>
          registerSandboxRoutes(a, {
            clock,
            journal,
            keys,
            testClocks: { all: () => clocks.all(), create: createClock, get: testClock, delete: deleteClock, current: () => clocks.clock() },
          }),
      },
    });
    const voicesApp = createVoicesApp(voiceCatalog(config.engine, config.upstream), log, config.cors, MARK);
    let fetch = (request: Request) => app.fetch(request);
    let voicesFetch = (request: Request) => voicesApp.fetch(request);
    if (options.validateResponses) {
      // Loaded only when asked for: ajv and the document's compiled validators cost a sandbox without them nothing.
      const { validatingFetch } = await import('./validation.js');
      // Loud by default, though the sandbox's log is silent: only LOG_LEVEL or a logger of the caller's quiet it.
      const violationLog = options.log || options.env?.LOG_LEVEL !== undefined ? log : log.child({}, { level: 'error' });
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
      fetch = validatingFetch(fetch, 'api', report);
      voicesFetch = validatingFetch(voicesFetch, 'voices', report);
    }
    let closed = false;
    return {
      app,
      voicesApp,
      fetch,
      voicesFetch,
      clock,
      clocks,
      createClock,
      testClock,
      deleteClock,
      journal,
      keys,
      services,
      async fixtures(counts) {
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
      },
      async close() {
        if (closed) return;
        closed = true;
        shutdown.abort();
        clearInterval(sweeper);
        clocks.close();
        await services.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The test keys on new accounts, with the accounts' ids and the keys' public ids; `label` prefixes their names. */
async function createKeys(
  admin: AccountAdmin,
  plans: Record<PlanId, { monthlyMinutes: number }>,
  label = 'sandbox',
): Promise<{ keys: SandboxKeys } & ClockMembers> {
  const accountIds: string[] = [];
  const keyIds: string[] = [];
  const make = async (state: string, plan: PlanId, subscription: 'active' | 'inactive' = 'active') => {
    const account = await admin.createAccount(`${label} ${state}`, plan, subscription);
    const { key, record } = await admin.createKey(account.id, `${label} ${state}`);
    accountIds.push(account.id);
    keyIds.push(record.publicId);
    return { account, key, record };
  };
  const almost = await make('minutes_almost_used', 'free');
  await admin.setUsedMinutes(almost.account.id, Math.max(0, plans.free.monthlyMinutes - 1));
  const usedUp = await make('minutes_used_up', 'free');
  await admin.setUsedMinutes(usedUp.account.id, plans.free.monthlyMinutes);
  const revoked = await make('revoked', 'pro');
  await admin.revokeKey(revoked.record.publicId);
  const keys: SandboxKeys = {
    active_free: (await make('active_free', 'free')).key,
    active_pro: (await make('active_pro', 'pro')).key,
    active_ultimate: (await make('active_ultimate', 'ultimate')).key,
    inactive_subscription: (await make('inactive_subscription', 'pro', 'inactive')).key,
    no_api_access: (await make('no_api_access', 'basic')).key,
    minutes_almost_used: almost.key,
    minutes_used_up: usedUp.key,
    revoked: revoked.key,
  };
  return { keys, accountIds, keyIds };
}
