import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ConformanceFixturesT } from '../contract/fixtures.js';
import type { PlanId } from '../contract/plans.js';
import { voiceCatalog } from '../synth/index.js';
import { LocalAudioStorage } from '../server/adapters/local-audio-storage.js';
import { SqliteStore } from '../server/adapters/sqlite-store.js';
import { composeApi, type ApiServices } from '../server/compose.js';
import { loadConfig } from '../server/config.js';
import { AccountAdmin } from '../server/domain/accounts.js';
import { sweepExpiredJobs } from '../server/domain/retention.js';
import { createApiApp, createVoicesApp } from '../server/http/apps.js';
import type { AppEnv } from '../server/http/context.js';
import { createLogger, type Logger } from '../server/log.js';
import { seed, type SeedCounts } from '../server/seed.js';
import { SandboxClock } from './clock.js';
import { sandboxGuard } from './guard.js';
import { Journal, journalMiddleware } from './journal.js';
import { SandboxQueue } from './queue.js';
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
   * Settings of the reference server's configuration (README "Configuration"), e.g. RATE_POST_LIMIT;
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
}

export interface SandboxCore {
  app: OpenAPIHono<AppEnv>;
  voicesApp: OpenAPIHono<AppEnv>;
  /** What the API listener serves: `app.fetch`, with its answers checked when `validateResponses` is on. */
  fetch(request: Request): Response | Promise<Response>;
  /** What the voice catalog's listener serves, likewise. */
  voicesFetch(request: Request): Response | Promise<Response>;
  clock: SandboxClock;
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
    config.jobConcurrency = 10_000;
    const log = options.log ?? createLogger(config.logLevel, 'agent-tts-sandbox');
    const clock = new SandboxClock();
    const store = new SqliteStore(':memory:');
    const audio = new LocalAudioStorage(join(dir, 'audio'));
    const synth = new InstantSynthesizer(config.inlineWaitMs / 1000, config.synthThreads);
    const services = await composeApi(config, log, {
      clock,
      synth,
      storage: { store, audio, close: () => store.close() },
      wrapQueue: (queue) => new SandboxQueue(queue, store, synth, clock),
    });
    clock.onMove(async (now) => {
      await sweepExpiredJobs(store, audio, log, now).catch((error: unknown) => log.error({ err: error }, 'retention sweep failed'));
    });
    const sweeper = setInterval(() => void sweepExpiredJobs(store, audio, log, clock.now()).catch(() => undefined), 60_000);
    sweeper.unref();

    const keys = await createKeys(new AccountAdmin(store, clock), config.plans);
    const journal = new Journal(clock);
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
        middleware: [journalMiddleware(journal)],
        routes: (a) => registerSandboxRoutes(a, { clock, journal, keys }),
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
        violationLog.error({ method: v.method, path: v.path, status: v.status, violations: v.problems }, `answer violates the OpenAPI document: ${v.method} ${v.path} → ${v.status}: ${problems}`);
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
        clock.close();
        await services.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function createKeys(admin: AccountAdmin, plans: Record<PlanId, { monthlyMinutes: number }>): Promise<SandboxKeys> {
  const make = async (state: string, plan: PlanId, subscription: 'active' | 'inactive' = 'active') => {
    const account = await admin.createAccount(`sandbox ${state}`, plan, subscription);
    const { key, record } = await admin.createKey(account.id, `sandbox ${state}`);
    return { account, key, record };
  };
  const almost = await make('minutes_almost_used', 'free');
  await admin.setUsedMinutes(almost.account.id, Math.max(0, plans.free.monthlyMinutes - 1));
  const usedUp = await make('minutes_used_up', 'free');
  await admin.setUsedMinutes(usedUp.account.id, plans.free.monthlyMinutes);
  const revoked = await make('revoked', 'pro');
  await admin.revokeKey(revoked.record.publicId);
  return {
    active_free: (await make('active_free', 'free')).key,
    active_pro: (await make('active_pro', 'pro')).key,
    active_ultimate: (await make('active_ultimate', 'ultimate')).key,
    inactive_subscription: (await make('inactive_subscription', 'pro', 'inactive')).key,
    no_api_access: (await make('no_api_access', 'basic')).key,
    minutes_almost_used: almost.key,
    minutes_used_up: usedUp.key,
    revoked: revoked.key,
  };
}
