import { z } from 'zod';
import { LIMITS } from '@agent-tts/contract/limits.js';
import { PLANS } from '@agent-tts/contract/plans.js';
import { httpUrl, publicUrl, redisUrlIssue, S3_CREDENTIALS, upstreamUrl } from './urls.js';

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().min(1);

/**
 * Every setting, from environment variables. Names and defaults are documented in docs/configuration.md;
 * a bad value stops the start with a message naming the variable.
 */
export const EnvSchema = z.object({
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

/** The settings as parsed from the environment, before loadConfig turns them into a Config. */
export type EnvSettings = z.infer<typeof EnvSchema>;
