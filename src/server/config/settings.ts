import { z } from 'zod';
import { LIMITS } from '@agent-tts/contract/limits.js';
import { PLANS } from '@agent-tts/contract/plans.js';
import { decimalNumber, portNumber, wholeNumber } from './rules.js';
import { hostIssue, httpUrl, publicUrl, redisUrlIssue, S3_CREDENTIALS, upstreamUrl } from './urls.js';

const port = portNumber();

/** Sent in a request to the speech server (a header, a JSON field): no control characters, no line breaks. */
const headerSafe = z.string().regex(/^[^\p{Cc}]*$/u, 'must be one line of printable characters (no line breaks or control characters)');
const minutes = decimalNumber(0, 1_000_000, 'minutes a month');
const days = decimalNumber(0, 3650, 'days, up to 10 years');

/**
 * Every setting, from environment variables. Names, defaults and ranges are documented in
 * docs/configuration.md; a bad value stops the start with a message naming the variable and its rule.
 * Every duration has an upper bound, under the 2^31 − 1 ms past which Node fires a timer at once.
 */
export const EnvSchema = z.object({
  HOST: z
    .string()
    .superRefine((value, ctx) => {
      const issue = hostIssue(value);
      if (issue) ctx.addIssue({ code: 'custom', message: issue });
    })
    .default('127.0.0.1'),
  PORT: port.default(8080),
  VOICES_PORT: port.default(8081),
  /** Operations endpoints (/healthz, /readyz, /metrics) on a listener of their own; unset: on PORT. */
  OPS_PORT: port.optional(),
  /** Origin clients use to reach the API; audio URLs are built on it. Default: http://HOST:PORT. */
  PUBLIC_BASE_URL: publicUrl,
  PUBLIC_VOICES_URL: publicUrl,
  /**
   * Host values the dashboard and the operations endpoints answer besides the loopback names, the bound
   * address and PUBLIC_BASE_URL's (name or name:port, comma-separated; `*` for any).
   */
  ALLOWED_HOSTS: z
    .string()
    .superRefine((value, ctx) => {
      const entries = value.split(',').map((h) => h.trim());
      entries.forEach((entry, i) => {
        if (entry === '' || entry === '*') return;
        const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(entry);
        const port = match?.[2] === undefined ? undefined : Number(match[2]);
        if (!match || (port !== undefined && (port < 1 || port > 65_535))) {
          ctx.addIssue({
            code: 'custom',
            message: `must be host names or addresses, each optionally with :port (1–65535), or * for any, separated by commas; entry ${i + 1} of ${entries.length} is not`,
          });
        }
      });
    })
    .default(''),
  DATA_DIR: z.string().min(1).default('./data'),
  INLINE_WAIT_MS: wholeNumber(0, 120_000, 'milliseconds').default(LIMITS.inlineWaitSeconds * 1000),
  RATE_POST_LIMIT: wholeNumber(1, 1_000_000_000, 'requests a window').default(LIMITS.postPerMinute),
  RATE_GET_LIMIT: wholeNumber(1, 1_000_000_000, 'requests a window').default(LIMITS.getPerMinute),
  RATE_WINDOW_SECONDS: wholeNumber(1, 3600, 'seconds').default(LIMITS.rateWindowSeconds),
  URL_SIGNING_SECRET: z.string().min(32).max(1024).optional(),
  AUDIO_URL_TTL_SECONDS: wholeNumber(1, 7 * 86_400, 'seconds, up to 7 days').default(3600),
  /** The first-party web origin(s), comma-separated; empty to allow none. */
  CORS_ORIGINS: z.string().default('http://localhost:3000'),
  /** Preview deployments, one `*` label; empty to allow none. */
  CORS_PREVIEW_PATTERN: z.string().default('https://*.preview.localhost'),
  /** Given to clients in USAGE_LIMIT_EXCEEDED answers: no credentials; a query is fine. */
  BILLING_URL: httpUrl({ base: false, credentials: 'clients are given this URL' }).default('https://tts.example.com/billing'),
  PLAN_MINUTES_FREE: minutes.default(PLANS.free.monthlyMinutes),
  PLAN_MINUTES_PRO: minutes.default(PLANS.pro.monthlyMinutes),
  PLAN_MINUTES_ULTIMATE: minutes.default(PLANS.ultimate.monthlyMinutes),
  RETENTION_DAYS_FREE: days.default(PLANS.free.retentionDays),
  RETENTION_DAYS_PRO: days.default(PLANS.pro.retentionDays),
  RETENTION_DAYS_ULTIMATE: days.default(PLANS.ultimate.retentionDays),
  RETENTION_SWEEP_SECONDS: wholeNumber(1, 86_400, 'seconds').default(300),
  SYNTH_THREADS: wholeNumber(1, 64).optional(),
  // Jobs share the synthesis pool chunk by chunk (each with a bounded window), so running several at
  // once costs little memory and keeps a short job from waiting behind long ones.
  JOB_CONCURRENCY: wholeNumber(1, 64).default(8),
  MAX_BODY_BYTES: wholeNumber(1, 1024 * 1024 * 1024, 'bytes, up to 1 GiB').default(8 * 1024 * 1024),
  TTS_ENGINE: z.enum(['espeak', 'openai-compatible']).default('espeak'),
  // The build of eSpeak NG and LAME the espeak engine runs (synth/native.ts): the system's libraries
  // when found (auto), or forced either way.
  SYNTH_ENGINE: z.enum(['auto', 'native', 'wasm']).default('auto'),
  VOICES_UNLISTED: z.enum(['substitute', 'refuse']).default('substitute'),
  UPSTREAM_KOKORO_URL: upstreamUrl,
  UPSTREAM_SUPERTONIC_URL: upstreamUrl,
  UPSTREAM_MODEL: headerSafe.optional(),
  UPSTREAM_API_KEY: headerSafe.optional(),
  UPSTREAM_TIMEOUT_MS: wholeNumber(1, 600_000, 'milliseconds').default(30_000),
  REDIS_URL: z
    .string()
    .superRefine((value, ctx) => {
      const issue = redisUrlIssue(value);
      if (issue) ctx.addIssue({ code: 'custom', message: issue });
    })
    .optional(),
  REDIS_PREFIX: z.string().min(1).max(256).default('agent-tts:'),
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
  S3_CONNECT_TIMEOUT_MS: wholeNumber(100, 60_000, 'milliseconds').optional(),
  /** Deadline of the object store's small requests, and the longest silence of an audio transfer. Default 10000. */
  S3_REQUEST_TIMEOUT_MS: wholeNumber(500, 300_000, 'milliseconds').optional(),
  /** How long a job whose audio is made waits for an unreachable audio store before it fails. */
  AUDIO_STORE_OUTAGE_BUDGET_SECONDS: wholeNumber(0, 3600, 'seconds').default(120),
  /** `false` runs an API process without synthesis workers (distributed mode, workers elsewhere). */
  LOCAL_WORKERS: z.enum(['true', 'false']).default('true'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_GRACE_MS: wholeNumber(1, 3_600_000, 'milliseconds, up to an hour').default(15_000),
});

/** The name of every setting, as docs/configuration.md lists them. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape);

/** The settings as parsed from the environment, before loadConfig turns them into a Config. */
export type EnvSettings = z.infer<typeof EnvSchema>;
