/**
 * One bad value for every setting of the server (docs/configuration.md), for the tests that show each
 * refused with its variable named, its rule said and its value not repeated: in process
 * (src/server/config.test.ts) and by the server, the worker and the admin
 * (test/settings-redaction.test.ts). Each value holds MARK where it can, so that a message repeating
 * it is caught; `shown` values (DATA_DIR, a path and no secret) are named in the message on purpose.
 */
const MARK = 'zq9x';

export interface BadSetting {
  name: string;
  /** The bad value, and what else the case needs (a valid AUDIO_STORE for an S3_* value, say). */
  env: Record<string, string>;
  /**
   * Cases of one group are refused by one check that names every bad value at once (the settings
   * table, the distributed mode's table), so a process can be started once for all of them; a case
   * without a group is refused by a check of its own.
   */
  group?: 'table' | 'distributed';
  /** The value may appear in the message (a path). */
  shown?: boolean;
}

const table = (name: string, value: string, extra: Record<string, string> = {}): BadSetting => ({ name, env: { ...extra, [name]: value }, group: 'table' });
const alone = (name: string, value: string): BadSetting => ({ name, env: { [name]: value } });
const distributed = (name: string, value: string): BadSetting => ({ name, env: { ...REDIS, [name]: value }, group: 'distributed' });
const S3 = { AUDIO_STORE: 's3://audio-bucket/x' };
/** The distributed mode's settings are read when REDIS_URL is set; nothing connects before they are checked. */
const REDIS = { REDIS_URL: 'redis://127.0.0.1:1/0' };

export const BAD_SETTINGS: readonly BadSetting[] = [
  table('HOST', `bad host ${MARK}`),
  table('PORT', MARK),
  table('VOICES_PORT', '70001'),
  table('OPS_PORT', '1.5'),
  table('PUBLIC_BASE_URL', `https://${MARK}:hunter2@api.example.com`),
  table('PUBLIC_VOICES_URL', `ftp://${MARK}.example.com`),
  table('ALLOWED_HOSTS', `tts.example.com,${MARK}/path:99999`),
  { ...alone('DATA_DIR', `/nonexistent-${MARK}/data`), shown: true },
  table('INLINE_WAIT_MS', '120001'),
  table('RATE_POST_LIMIT', '-777'),
  table('RATE_GET_LIMIT', `thirty${MARK}`),
  table('RATE_WINDOW_SECONDS', '3601'),
  table('URL_SIGNING_SECRET', `short-secret-${MARK}-0123456789ab`),
  table('AUDIO_URL_TTL_SECONDS', '604801'),
  alone('CORS_ORIGINS', `https://app.example.com,https://u:${MARK}@app2.example.com`),
  alone('CORS_PREVIEW_PATTERN', `https://${MARK}.example.com`),
  table('BILLING_URL', `javascript:${MARK}`),
  table('PLAN_MINUTES_FREE', '1000001'),
  table('PLAN_MINUTES_PRO', '-5.5'),
  table('PLAN_MINUTES_ULTIMATE', `lots${MARK}`),
  table('RETENTION_DAYS_FREE', '3651'),
  table('RETENTION_DAYS_PRO', `week${MARK}`),
  table('RETENTION_DAYS_ULTIMATE', ''),
  table('RETENTION_SWEEP_SECONDS', '86401'),
  table('SYNTH_THREADS', '65'),
  table('JOB_CONCURRENCY', '0.5'),
  table('MAX_BODY_BYTES', `8MB${MARK}`),
  table('TTS_ENGINE', `festival${MARK}`),
  table('SYNTH_ENGINE', `gpu${MARK}`),
  table('VOICES_UNLISTED', `ignore${MARK}`),
  table('UPSTREAM_KOKORO_URL', `https://tts.example.com/?key=${MARK}`),
  table('UPSTREAM_SUPERTONIC_URL', MARK),
  table('UPSTREAM_MODEL', `model\n${MARK}`),
  table('UPSTREAM_API_KEY', `sk-${MARK}\r\nX-Injected: 1`),
  table('UPSTREAM_TIMEOUT_MS', '600001'),
  table('REDIS_URL', `redis://u:pa%ZZ${MARK}@127.0.0.1:6379/0`),
  table('REDIS_PREFIX', ''),
  alone('AUDIO_STORE', `s3://${MARK}_Bad/x`),
  table('S3_ENDPOINT', `http://${MARK}.example.com:9000/path`, S3),
  table('S3_REGION', `US East ${MARK}`, S3),
  table('S3_FORCE_PATH_STYLE', `yes${MARK}`, S3),
  table('S3_CONNECT_TIMEOUT_MS', '99', S3),
  table('S3_REQUEST_TIMEOUT_MS', '300001', S3),
  table('AUDIO_STORE_OUTAGE_BUDGET_SECONDS', '3601'),
  table('LOCAL_WORKERS', `no${MARK}`),
  table('LOG_LEVEL', `loud${MARK}`),
  table('SHUTDOWN_GRACE_MS', '3600001'),
  // The distributed mode's own table, read once REDIS_URL is valid.
  distributed('REDIS_COMMAND_TIMEOUT_MS', `NaN${MARK}`),
  distributed('QUEUE_LOCK_MS', '499'),
  distributed('QUEUE_STALLED_CHECK_MS', '600001'),
  distributed('QUEUE_MAX_STALLED', '101'),
  distributed('QUEUE_ATTEMPTS', '0.25'),
  distributed('QUEUE_RECONCILE_SECONDS', ''),
  distributed('WORKER_OPS_PORT', '65536'),
];

/** Whether `message` repeats the bad value of `setting` (values too short or too plain to tell apart are judged by MARK). */
export function repeatsValue(setting: BadSetting, message: string): boolean {
  const value = setting.env[setting.name]!;
  if (setting.shown) return false;
  if (message.includes(MARK)) return true;
  return value.length >= 3 && message.includes(value);
}
