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
import { InstantSynthesizer } from './synthesizer.js';

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
  /** Settings of the reference server's configuration (README "Configuration"), e.g. RATE_POST_LIMIT. */
  env?: Record<string, string>;
  log?: Logger;
}

export interface SandboxCore {
  app: OpenAPIHono<AppEnv>;
  voicesApp: OpenAPIHono<AppEnv>;
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
        guards: [sandboxGuard(options.baseUrl)],
        middleware: [journalMiddleware(journal)],
        routes: (a) => registerSandboxRoutes(a, { clock, journal, keys }),
      },
    });
    const voicesApp = createVoicesApp(voiceCatalog(config.engine, config.upstream), log, config.cors, MARK);
    let closed = false;
    return {
      app,
      voicesApp,
      clock,
      journal,
      keys,
      services,
      async fixtures(counts) {
        const fixtures = await seed(store, audio, config, counts, clock);
        return {
          ...fixtures,
          clock: { url: `${options.baseUrl}/sandbox/clock` },
          // Magic inputs for the outcomes the suite cannot otherwise provoke on demand (outcomes.ts).
          outcomes: {
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
