import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { LIMITS } from '@agent-tts/contract/limits.js';
import { PLANS, type PlanId } from '@agent-tts/contract/plans.js';
import type { PlanSettings } from './ports/index.js';
import { NOT_A_URL, redactText, redactUrl } from './redact.js';

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().min(1);

/**
 * What is wrong with an http(s) URL setting, if anything; never the value itself (it may hold a
 * password). `base`: paths are appended to it, so a query or fragment cannot work.
 */
function httpUrlIssue(value: string, options: { base: boolean; credentials: string }): string | undefined {
  if (!URL.canParse(value)) return 'expected an http(s) URL such as https://tts.example.com';
  const url = new URL(value);
  // Credentials in a URL would end up in logs and error messages (and fetch refuses such URLs).
  if (url.username !== '' || url.password !== '') return `must not contain a user name or password (${options.credentials})`;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'expected an http(s) URL such as https://tts.example.com';
  if (options.base && (url.search !== '' || url.hash !== '')) return 'must not have a query (?…) or fragment (#…): paths are appended to it';
  return undefined;
}

const httpUrl = (options: { base: boolean; credentials: string }) =>
  z.string().superRefine((value, ctx) => {
    const issue = httpUrlIssue(value, options);
    if (issue) ctx.addIssue({ code: 'custom', message: issue });
  });

/** A base URL of the API or the voice catalog, given to clients. */
const publicUrl = httpUrl({ base: true, credentials: 'clients are given this URL' })
  .transform((u) => u.replace(/\/+$/, ''))
  .optional();
/** A speech server's base URL; its key has a variable of its own. */
const upstreamUrl = httpUrl({ base: true, credentials: 'give an upstream key as UPSTREAM_API_KEY' })
  .transform((u) => u.replace(/\/+$/, ''))
  .optional();

// Written without `scheme://user:password@`, which redaction would mask in the message.
const REDIS_URL_FORMS =
  'redis://host[:port][/db], rediss://host[:port][/db] (TLS) or unix:///path/to/socket[?db=N], with user:password@ after the // if Redis wants them';

/** What node-redis would refuse in a REDIS_URL (or cannot connect with), checked at start; never the value. */
function redisUrlIssue(value: string): string | undefined {
  const expected = `expected ${REDIS_URL_FORMS}`;
  if (value.startsWith('unix:')) {
    // node-redis's own grammar for a socket path (WHATWG URL cannot parse user info without a host).
    const m = /^unix:\/\/(?:[^:@/]*(?::[^@/]*)?@)?(\/[^?#]*)(?:\?([^#]*))?(?:#.*)?$/.exec(value);
    if (!m || m[1] === '/') return `${expected}; this unix: URL has no socket path`;
    const db = m[2] === undefined ? null : new URLSearchParams(m[2]).get('db');
    if (db !== null && !/^\d+$/.test(db)) return `the db query parameter must be a database number; ${expected}`;
    return undefined;
  }
  if (!URL.canParse(value)) return `${expected}; the value is not a URL`;
  const url = new URL(value);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return `${expected}; the scheme is not redis: or rediss:`;
  if (url.hostname === '') return `${expected}; the URL has no host`;
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d+$/.test(url.pathname)) return `the path must be a database number (/0, /1…); ${expected}`;
  return undefined;
}

/** Where the SDK's credentials come from: never a URL (see the README). */
const S3_CREDENTIALS = 'S3 credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or a role';

/**
 * Every setting, from environment variables. Names and defaults are documented in docs/configuration.md;
 * a bad value stops the start with a message naming the variable.
 */
const EnvSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(8080),
  VOICES_PORT: port.default(8081),
  /** Operations endpoints (/healthz, /readyz, /metrics) on a listener of their own; unset: on PORT. */
  OPS_PORT: port.optional(),
  /** Origin clients use to reach the API; audio URLs are built on it. Default: http://HOST:PORT. */
  PUBLIC_BASE_URL: publicUrl,
  PUBLIC_VOICES_URL: publicUrl,
  DATA_DIR: z.string().min(1).default('./data'),
  INLINE_WAIT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(120_000)
    .default(LIMITS.inlineWaitSeconds * 1000),
  RATE_POST_LIMIT: positiveInt.default(LIMITS.postPerMinute),
  RATE_GET_LIMIT: positiveInt.default(LIMITS.getPerMinute),
  RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(LIMITS.rateWindowSeconds),
  URL_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  AUDIO_URL_TTL_SECONDS: positiveInt.max(7 * 86_400).default(3600),
  /** The first-party web origin(s), comma-separated; empty to allow none. */
  CORS_ORIGINS: z.string().default('http://localhost:3000'),
  /** Preview deployments, one `*` label; empty to allow none. */
  CORS_PREVIEW_PATTERN: z.string().default('https://*.preview.localhost'),
  /** Given to clients in USAGE_LIMIT_EXCEEDED answers: no credentials; a query is fine. */
  BILLING_URL: httpUrl({ base: false, credentials: 'clients are given this URL' }).default('https://tts.example.com/billing'),
  PLAN_MINUTES_FREE: z.coerce.number().min(0).default(PLANS.free.monthlyMinutes),
  PLAN_MINUTES_PRO: z.coerce.number().min(0).default(PLANS.pro.monthlyMinutes),
  PLAN_MINUTES_ULTIMATE: z.coerce.number().min(0).default(PLANS.ultimate.monthlyMinutes),
  RETENTION_DAYS_FREE: z.coerce.number().min(0).default(PLANS.free.retentionDays),
  RETENTION_DAYS_PRO: z.coerce.number().min(0).default(PLANS.pro.retentionDays),
  RETENTION_DAYS_ULTIMATE: z.coerce.number().min(0).default(PLANS.ultimate.retentionDays),
  RETENTION_SWEEP_SECONDS: positiveInt.default(300),
  SYNTH_THREADS: positiveInt.max(64).optional(),
  // Jobs share the synthesis pool chunk by chunk (each with a bounded window), so running several at
  // once costs little memory and keeps a short job from waiting behind long ones.
  JOB_CONCURRENCY: positiveInt.max(64).default(8),
  MAX_BODY_BYTES: positiveInt.default(8 * 1024 * 1024),
  TTS_ENGINE: z.enum(['espeak', 'openai-compatible']).default('espeak'),
  UPSTREAM_KOKORO_URL: upstreamUrl,
  UPSTREAM_SUPERTONIC_URL: upstreamUrl,
  UPSTREAM_MODEL: z.string().optional(),
  UPSTREAM_API_KEY: z.string().optional(),
  UPSTREAM_TIMEOUT_MS: positiveInt.default(30_000),
  REDIS_URL: z
    .string()
    .superRefine((value, ctx) => {
      const issue = redisUrlIssue(value);
      if (issue) ctx.addIssue({ code: 'custom', message: issue });
    })
    .optional(),
  REDIS_PREFIX: z.string().min(1).default('agent-tts:'),
  /** Where audio is kept: unset = `<DATA_DIR>/audio`; `s3://bucket/prefix` = an object store. */
  AUDIO_STORE: z.string().optional(),
  S3_ENDPOINT: z
    .string()
    .superRefine((value, ctx) => {
      const url = URL.canParse(value) ? new URL(value) : undefined;
      const issue =
        url && (url.username !== '' || url.password !== '')
          ? `must not contain a user name or password (${S3_CREDENTIALS})`
          : !url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search !== '' || url.hash !== ''
            ? 'expected an http(s) origin such as http://127.0.0.1:9000'
            : undefined;
      if (issue) ctx.addIssue({ code: 'custom', message: issue });
    })
    .optional(),
  S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]+$/, 'expected a region name such as us-east-1')
    .optional(),
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('false'),
  /** Connecting to the object store gives up after this. Default 3000. */
  S3_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).optional(),
  /** Deadline of the object store's small requests, and the longest silence of an audio transfer. Default 10000. */
  S3_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(500).max(300_000).optional(),
  /** How long a job whose audio is made waits for an unreachable audio store before it fails. */
  AUDIO_STORE_OUTAGE_BUDGET_SECONDS: z.coerce.number().int().min(0).max(3600).default(120),
  /** `false` runs an API process without synthesis workers (distributed mode, workers elsewhere). */
  LOCAL_WORKERS: z.enum(['true', 'false']).default('true'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_GRACE_MS: positiveInt.default(15_000),
});

/** The name of every setting, as docs/configuration.md lists them. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape);

export interface Config {
  host: string;
  port: number;
  voicesPort: number;
  opsPort?: number;
  publicBaseUrl: string;
  publicVoicesUrl: string;
  dataDir: string;
  inlineWaitMs: number;
  rateLimits: { post: number; get: number; windowMs: number };
  urlSigningSecret: string;
  audioUrlTtlSeconds: number;
  cors: { origins: string[]; previewPattern?: RegExp; previewPatternText?: string };
  billingUrl: string;
  plans: Record<PlanId, PlanSettings>;
  retentionSweepMs: number;
  synthThreads?: number;
  jobConcurrency: number;
  maxBodyBytes: number;
  engine: 'espeak' | 'openai-compatible';
  upstream: { baseUrls: { kokoro?: string; supertonic?: string }; model?: string; apiKey?: string; timeoutMs: number };
  redisUrl?: string;
  redisPrefix: string;
  /** Set when audio is kept in an object store (AUDIO_STORE=s3://…); otherwise `<dataDir>/audio`. */
  s3?: { bucket: string; prefix: string; endpoint?: string; region: string; forcePathStyle: boolean; connectTimeoutMs: number; requestTimeoutMs: number };
  /** How long a run waits for an unreachable audio store once the job's audio is made (AUDIO_STORE_OUTAGE_BUDGET_SECONDS). */
  audioStoreOutageBudgetMs: number;
  localWorkers: boolean;
  logLevel: string;
  shutdownGraceMs: number;
}

export class ConfigError extends Error {}

/** `https://*.preview.example.com` → a RegExp matching exactly one DNS label in place of `*`. */
function previewPatternToRegExp(pattern: string): RegExp {
  const url = /^(https?):\/\/([a-z0-9*.-]+)(:\d+)?$/i.exec(pattern);
  if (!url?.[2].includes('*')) {
    throw new ConfigError(`CORS_PREVIEW_PATTERN: expected an origin with one "*" label, e.g. https://*.preview.example.com; got "${redactText(pattern)}"`);
  }
  const host = url[2]
    .split('.')
    .map((label) => (label === '*' ? '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?' : label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('\\.');
  return new RegExp(`^${url[1]}://${host}${(url[3] ?? '').replace(':', '\\:')}$`, 'i');
}

function signingSecret(dataDir: string, fromEnv?: string): string {
  if (fromEnv) return fromEnv;
  // Generated once and kept in the data directory, so URLs stay valid across restarts.
  const file = join(dataDir, 'url-signing-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('hex');
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    // Another process sharing the data directory wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw error;
  }
}

export interface S3Location {
  bucket: string;
  /** Key prefix without leading or trailing slash ('' for the bucket's root). */
  prefix: string;
}

/** `s3://bucket/some/prefix` → { bucket, prefix }; undefined when it is not such a URL. */
export function parseS3Url(url: string): S3Location | undefined {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) return undefined;
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((p) => p === '.' || p === '..') || /\/\//.test(prefix)) return undefined;
  return { bucket: m[1]!, prefix };
}

function s3Settings(e: z.infer<typeof EnvSchema>, env: NodeJS.ProcessEnv): Config['s3'] {
  if (e.AUDIO_STORE === undefined || e.AUDIO_STORE === '') {
    const stray = (['S3_ENDPOINT', 'S3_REGION', 'S3_CONNECT_TIMEOUT_MS', 'S3_REQUEST_TIMEOUT_MS'] as const).find((name) => e[name] !== undefined);
    if (stray)
      throw new ConfigError(
        `${stray}: set, but AUDIO_STORE is not an s3:// URL (audio stays in DATA_DIR/audio); set AUDIO_STORE=s3://bucket/prefix or unset ${stray}`,
      );
    return undefined;
  }
  const location = parseS3Url(e.AUDIO_STORE);
  if (!location) {
    const url = URL.canParse(e.AUDIO_STORE) ? new URL(e.AUDIO_STORE) : undefined;
    if (url && (url.username !== '' || url.password !== '')) {
      throw new ConfigError(`AUDIO_STORE: must not contain a user name or password (${S3_CREDENTIALS}); expected s3://bucket/prefix`);
    }
    // Shown only as redactUrl shows it: a malformed value may still hold a secret.
    const shown = redactUrl(e.AUDIO_STORE);
    const got = shown === NOT_A_URL ? 'a value that is not a URL' : `"${shown}"`;
    throw new ConfigError(`AUDIO_STORE: expected s3://bucket/prefix (a bucket name of 3-63 lower-case letters, digits, dots and hyphens); got ${got}`);
  }
  return {
    ...location,
    endpoint: e.S3_ENDPOINT?.replace(/\/$/, ''),
    region: e.S3_REGION ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    forcePathStyle: e.S3_FORCE_PATH_STYLE === 'true',
    connectTimeoutMs: e.S3_CONNECT_TIMEOUT_MS ?? 3_000,
    requestTimeoutMs: e.S3_REQUEST_TIMEOUT_MS ?? 10_000,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  // Every value is checked before anything is created on disk.
  const s3 = s3Settings(e, env);
  const origins = e.CORS_ORIGINS.split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  for (const origin of origins) {
    if (!/^https?:\/\/[^/\s@?#]+$/i.test(origin)) throw new ConfigError(`CORS_ORIGINS: "${redactText(origin)}" is not an origin like https://app.example.com`);
  }
  const previewPattern = e.CORS_PREVIEW_PATTERN ? previewPatternToRegExp(e.CORS_PREVIEW_PATTERN) : undefined;
  const dataDir = resolve(e.DATA_DIR);
  try {
    mkdirSync(join(dataDir, 'audio'), { recursive: true, mode: 0o700 });
    accessSync(dataDir, constants.R_OK | constants.W_OK);
  } catch (error) {
    throw new ConfigError(
      `DATA_DIR: cannot use "${dataDir}" as the data directory (${(error as NodeJS.ErrnoException).code ?? String(error)}); it must be a writable directory`,
    );
  }
  const hostForUrl = e.HOST === '0.0.0.0' || e.HOST === '::' ? '127.0.0.1' : e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST;
  return {
    host: e.HOST,
    port: e.PORT,
    voicesPort: e.VOICES_PORT,
    opsPort: e.OPS_PORT,
    publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://${hostForUrl}:${e.PORT}`,
    publicVoicesUrl: e.PUBLIC_VOICES_URL ?? `http://${hostForUrl}:${e.VOICES_PORT}`,
    dataDir,
    inlineWaitMs: e.INLINE_WAIT_MS,
    rateLimits: { post: e.RATE_POST_LIMIT, get: e.RATE_GET_LIMIT, windowMs: e.RATE_WINDOW_SECONDS * 1000 },
    urlSigningSecret: signingSecret(dataDir, e.URL_SIGNING_SECRET),
    audioUrlTtlSeconds: e.AUDIO_URL_TTL_SECONDS,
    cors: {
      origins,
      previewPattern,
      previewPatternText: e.CORS_PREVIEW_PATTERN || undefined,
    },
    billingUrl: e.BILLING_URL,
    plans: {
      free: { apiAccess: true, retentionDays: e.RETENTION_DAYS_FREE, monthlyMinutes: e.PLAN_MINUTES_FREE },
      pro: { apiAccess: true, retentionDays: e.RETENTION_DAYS_PRO, monthlyMinutes: e.PLAN_MINUTES_PRO },
      ultimate: { apiAccess: true, retentionDays: e.RETENTION_DAYS_ULTIMATE, monthlyMinutes: e.PLAN_MINUTES_ULTIMATE },
      basic: { ...PLANS.basic },
    },
    retentionSweepMs: e.RETENTION_SWEEP_SECONDS * 1000,
    synthThreads: e.SYNTH_THREADS,
    jobConcurrency: e.JOB_CONCURRENCY,
    maxBodyBytes: e.MAX_BODY_BYTES,
    engine: e.TTS_ENGINE,
    upstream: {
      baseUrls: { kokoro: e.UPSTREAM_KOKORO_URL, supertonic: e.UPSTREAM_SUPERTONIC_URL },
      model: e.UPSTREAM_MODEL,
      apiKey: e.UPSTREAM_API_KEY,
      timeoutMs: e.UPSTREAM_TIMEOUT_MS,
    },
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    s3,
    audioStoreOutageBudgetMs: e.AUDIO_STORE_OUTAGE_BUDGET_SECONDS * 1000,
    localWorkers: e.LOCAL_WORKERS === 'true',
    logLevel: e.LOG_LEVEL,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
  };
}
