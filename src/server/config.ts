import { PLANS, type PlanId } from '@agent-tts/contract/plans.js';
import type { PlanSettings } from './ports/index.js';
import { corsSettings, type CorsSettings } from './config/cors.js';
import { dataDirectory, signingSecret } from './config/data-dir.js';
import { type DistributedSettings, loadDistributedSettings } from './config/distributed.js';
import { ConfigError, settingProblemLines } from './config/error.js';
import { s3Settings, type S3Settings } from './config/s3.js';
import { EnvSchema, type EnvSettings } from './config/settings.js';

/**
 * The configuration of every process kind, and the one place that reads the environment: the settings
 * table is config/settings.ts (docs/configuration.md documents it), its checks are under config/.
 */

export interface Config {
  host: string;
  port: number;
  voicesPort: number;
  opsPort?: number;
  publicBaseUrl: string;
  publicVoicesUrl: string;
  /** ALLOWED_HOSTS: Host values answered besides the loopback names, the bound address and PUBLIC_BASE_URL's (host-guard.ts). */
  allowedHosts: string[];
  /** Which settings made publicBaseUrl: PUBLIC_BASE_URL itself, HOST or PORT set, or neither (the defaults). */
  publicBaseUrlFrom: 'PUBLIC_BASE_URL' | 'HOST and PORT' | 'defaults';
  dataDir: string;
  /** True when this start created DATA_DIR (its parent existed): the process says so. */
  dataDirCreated: boolean;
  inlineWaitMs: number;
  rateLimits: { post: number; get: number; windowMs: number };
  urlSigningSecret: string;
  audioUrlTtlSeconds: number;
  cors: CorsSettings;
  billingUrl: string;
  plans: Record<PlanId, PlanSettings>;
  retentionSweepMs: number;
  synthThreads?: number;
  jobConcurrency: number;
  maxBodyBytes: number;
  engine: 'espeak' | 'openai-compatible';
  /** SYNTH_ENGINE: the espeak engine's build; `auto` runs the system's eSpeak NG and LAME when found. */
  synthEngine: 'auto' | 'native' | 'wasm';
  /** A voice id of the pattern that the catalog does not list: spoken by the closest listed voice (the API's §2.3), or refused (a departure). */
  voicesUnlisted: 'substitute' | 'refuse';
  upstream: { baseUrls: { kokoro?: string; supertonic?: string }; model?: string; apiKey?: string; timeoutMs: number };
  redisUrl?: string;
  redisPrefix: string;
  /** The distributed mode's own settings (config/distributed.ts): read when REDIS_URL is set. */
  distributed?: DistributedSettings;
  /** Set when audio is kept in an object store (AUDIO_STORE=s3://…); otherwise `<dataDir>/audio`. */
  s3?: S3Settings;
  /** How long a run waits for an unreachable audio store once the job's audio is made (AUDIO_STORE_OUTAGE_BUDGET_SECONDS). */
  audioStoreOutageBudgetMs: number;
  localWorkers: boolean;
  logLevel: string;
  shutdownGraceMs: number;
}

/** The plans' settings: the API's plans with this deployment's minutes and retention. */
function planSettings(e: EnvSettings): Record<PlanId, PlanSettings> {
  return {
    free: { apiAccess: true, retentionDays: e.RETENTION_DAYS_FREE, monthlyMinutes: e.PLAN_MINUTES_FREE },
    pro: { apiAccess: true, retentionDays: e.RETENTION_DAYS_PRO, monthlyMinutes: e.PLAN_MINUTES_PRO },
    ultimate: { apiAccess: true, retentionDays: e.RETENTION_DAYS_ULTIMATE, monthlyMinutes: e.PLAN_MINUTES_ULTIMATE },
    basic: { ...PLANS.basic },
  };
}

/**
 * The configuration from `env` (the process's environment unless given): every value checked, the data
 * directory created; a bad setting throws a ConfigError naming the variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(`Invalid configuration:\n${settingProblemLines(parsed.error.issues).join('\n')}`);
  }
  const e = parsed.data;
  // Every value is checked before anything is created on disk.
  const s3 = s3Settings(e, env);
  const cors = corsSettings(e.CORS_ORIGINS, e.CORS_PREVIEW_PATTERN);
  const distributed = e.REDIS_URL ? loadDistributedSettings(env) : undefined;
  const { path: dataDir, created: dataDirCreated } = dataDirectory(e.DATA_DIR);
  const hostForUrl = e.HOST === '0.0.0.0' || e.HOST === '::' ? '127.0.0.1' : e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST;
  return {
    host: e.HOST,
    port: e.PORT,
    voicesPort: e.VOICES_PORT,
    opsPort: e.OPS_PORT,
    publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://${hostForUrl}:${e.PORT}`,
    publicVoicesUrl: e.PUBLIC_VOICES_URL ?? `http://${hostForUrl}:${e.VOICES_PORT}`,
    allowedHosts: e.ALLOWED_HOSTS.split(',')
      .map((h) => h.trim())
      .filter((h) => h !== ''),
    publicBaseUrlFrom: e.PUBLIC_BASE_URL ? 'PUBLIC_BASE_URL' : env.HOST !== undefined || env.PORT !== undefined ? 'HOST and PORT' : 'defaults',
    dataDir,
    dataDirCreated,
    inlineWaitMs: e.INLINE_WAIT_MS,
    rateLimits: { post: e.RATE_POST_LIMIT, get: e.RATE_GET_LIMIT, windowMs: e.RATE_WINDOW_SECONDS * 1000 },
    urlSigningSecret: signingSecret(dataDir, e.URL_SIGNING_SECRET),
    audioUrlTtlSeconds: e.AUDIO_URL_TTL_SECONDS,
    cors,
    billingUrl: e.BILLING_URL,
    plans: planSettings(e),
    retentionSweepMs: e.RETENTION_SWEEP_SECONDS * 1000,
    synthThreads: e.SYNTH_THREADS,
    jobConcurrency: e.JOB_CONCURRENCY,
    maxBodyBytes: e.MAX_BODY_BYTES,
    engine: e.TTS_ENGINE,
    synthEngine: e.SYNTH_ENGINE,
    voicesUnlisted: e.VOICES_UNLISTED,
    upstream: {
      baseUrls: { kokoro: e.UPSTREAM_KOKORO_URL, supertonic: e.UPSTREAM_SUPERTONIC_URL },
      model: e.UPSTREAM_MODEL,
      apiKey: e.UPSTREAM_API_KEY,
      timeoutMs: e.UPSTREAM_TIMEOUT_MS,
    },
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    distributed,
    s3,
    audioStoreOutageBudgetMs: e.AUDIO_STORE_OUTAGE_BUDGET_SECONDS * 1000,
    localWorkers: e.LOCAL_WORKERS === 'true',
    logLevel: e.LOG_LEVEL,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
  };
}
