import { ConfigError, CONFIG_VARIABLES } from '@agent-tts/server';

/**
 * The sandbox's settings: the reference server's configuration variables (docs/configuration.md) that
 * mean something here, each read from the environment by `agent-tts-sandbox` and given as a flag named
 * after it (`RATE_POST_LIMIT` → `--rate-post-limit`; the flag wins), or passed to `startSandbox({ env })`.
 * Values are parsed and checked as the server checks them (`loadConfig`), with its messages.
 */
export interface SandboxSetting {
  /** The variable, as the server names it. */
  name: string;
  /** What --help shows as the value, e.g. `<url>`. */
  value: string;
  /** The sandbox's default (the server's, but for the listeners). */
  default: string;
  meaning: string;
}

export const SANDBOX_SETTINGS: readonly SandboxSetting[] = [
  { name: 'HOST', value: '<address>', default: '127.0.0.1', meaning: 'address to listen on; a loopback address unless --allow-remote is given' },
  { name: 'PORT', value: '<port>', default: '0', meaning: 'API port (0: any free port; the URL is printed)' },
  { name: 'VOICES_PORT', value: '<port>', default: '0', meaning: 'voice-catalog port (0: any free port)' },
  {
    name: 'PUBLIC_BASE_URL',
    value: '<url>',
    default: 'the API listener',
    meaning: 'origin clients reach the API on, e.g. a proxy in front: audio URLs, the fixtures and the printed URL use it',
  },
  { name: 'PUBLIC_VOICES_URL', value: '<url>', default: 'the catalog listener', meaning: 'origin clients reach the voice catalog on' },
  {
    name: 'ALLOWED_HOSTS',
    value: '<names>',
    default: 'none',
    meaning:
      'Host values the API answers besides localhost, 127.0.0.1, [::1], the address it listens on and PUBLIC_BASE_URL’s (name or name:port, comma-separated; * for any); others are refused 403',
  },
  { name: 'RATE_POST_LIMIT', value: '<n>', default: '1', meaning: 'POSTs per key per window' },
  { name: 'RATE_GET_LIMIT', value: '<n>', default: '30', meaning: 'GETs per key per window' },
  { name: 'RATE_WINDOW_SECONDS', value: '<s>', default: '60', meaning: 'the rate limits’ rolling window (1-3600), on the sandbox clock' },
  { name: 'PLAN_MINUTES_FREE', value: '<min>', default: '30', meaning: 'monthly minutes of the free plan (and of minutes_almost_used, minutes_used_up)' },
  { name: 'PLAN_MINUTES_PRO', value: '<min>', default: '600', meaning: 'monthly minutes of the pro plan' },
  { name: 'PLAN_MINUTES_ULTIMATE', value: '<min>', default: '3000', meaning: 'monthly minutes of the ultimate plan' },
  { name: 'RETENTION_DAYS_FREE', value: '<days>', default: '1', meaning: 'job and audio retention of the free plan, on the sandbox clock' },
  { name: 'RETENTION_DAYS_PRO', value: '<days>', default: '7', meaning: 'retention of the pro plan' },
  { name: 'RETENTION_DAYS_ULTIMATE', value: '<days>', default: '30', meaning: 'retention of the ultimate plan' },
  { name: 'INLINE_WAIT_MS', value: '<ms>', default: '10000', meaning: 'a text estimated to take longer answers 202 (0-120000)' },
  { name: 'SYNTH_THREADS', value: '<n>', default: 'cores', meaning: 'synthesis threads the estimate assumes (1-64)' },
  { name: 'AUDIO_URL_TTL_SECONDS', value: '<s>', default: '3600', meaning: 'audio URL lifetime, on the sandbox clock' },
  { name: 'CORS_ORIGINS', value: '<origins>', default: 'http://localhost:3000', meaning: 'browser origins allowed, comma-separated; empty for none' },
  { name: 'CORS_PREVIEW_PATTERN', value: '<pattern>', default: 'https://*.preview.localhost', meaning: 'preview origins, one * DNS label; empty for none' },
  { name: 'BILLING_URL', value: '<url>', default: 'https://tts.example.com/billing', meaning: 'upgrade_url of USAGE_LIMIT_EXCEEDED' },
  { name: 'MAX_BODY_BYTES', value: '<n>', default: '8388608', meaning: 'larger POST bodies are refused (TEXT_TOO_LONG)' },
  { name: 'LOG_LEVEL', value: '<level>', default: 'silent', meaning: 'the server’s JSON log on stdout: fatal, error, warn, info, debug, trace or silent' },
];

/** Settings of the server that mean nothing in the sandbox, and why. */
const NOT_FOR_THE_SANDBOX: Readonly<Record<string, string>> = (() => {
  const reasons: [string[], string][] = [
    [['OPS_PORT'], 'the sandbox serves /healthz, /readyz and /metrics on its API port'],
    [['DATA_DIR'], 'its state is in memory and its audio in a temporary directory removed on stop'],
    [['URL_SIGNING_SECRET'], 'audio URLs are signed with a secret made at each start'],
    [['RETENTION_SWEEP_SECONDS'], 'expired jobs are swept whenever the sandbox clock moves, and every minute'],
    [['JOB_CONCURRENCY'], 'jobs wait on the sandbox clock, any number at once'],
    [
      ['TTS_ENGINE', 'SYNTH_ENGINE', 'UPSTREAM_KOKORO_URL', 'UPSTREAM_SUPERTONIC_URL', 'UPSTREAM_MODEL', 'UPSTREAM_API_KEY', 'UPSTREAM_TIMEOUT_MS'],
      'the sandbox has no speech engine: its audio is silence and its voice catalog the embedded engine’s',
    ],
    [['REDIS_URL', 'REDIS_PREFIX', 'LOCAL_WORKERS'], 'the distributed mode’s; the sandbox’s store, queue and rate limiter are in-process'],
    [
      ['AUDIO_STORE', 'S3_ENDPOINT', 'S3_REGION', 'S3_FORCE_PATH_STYLE', 'S3_CONNECT_TIMEOUT_MS', 'S3_REQUEST_TIMEOUT_MS', 'AUDIO_STORE_OUTAGE_BUDGET_SECONDS'],
      'the object store’s; the sandbox keeps audio in a temporary directory',
    ],
    [['SHUTDOWN_GRACE_MS'], 'the sandbox stops at once'],
    [
      ['VOICES_UNLISTED'],
      'the sandbox follows the API’s letter: an unlisted voice id of the pattern is spoken by the closest listed voice; refusing it is a departure of a deployment',
    ],
  ];
  return Object.fromEntries(reasons.flatMap(([names, why]) => names.map((name) => [name, why])));
})();

const READ = new Set(SANDBOX_SETTINGS.map((s) => s.name));

/** `RATE_POST_LIMIT` → `rate-post-limit`. */
export const flagOf = (name: string): string => name.toLowerCase().replaceAll('_', '-');

/** Why a server setting does not apply to the sandbox; undefined for one it reads, or a name that is no setting. */
export function notForTheSandbox(name: string): string | undefined {
  return NOT_FOR_THE_SANDBOX[name];
}

/** Every setting of the server is either read by the sandbox or refused with a reason (a test holds this). */
export function unclassifiedSettings(): string[] {
  return CONFIG_VARIABLES.filter((name) => !READ.has(name) && NOT_FOR_THE_SANDBOX[name] === undefined);
}

/**
 * Refuses (ConfigError) the names of given settings the sandbox does not read: a setting of the server
 * that does not apply here (saying why), or a name that is no setting at all. Given explicitly
 * (`startSandbox({ env })`), they would otherwise be silently ignored.
 */
export function checkSettingNames(env: Readonly<Record<string, string | undefined>>): void {
  const problems = Object.keys(env)
    .filter((name) => !READ.has(name))
    .map((name) => {
      const why = NOT_FOR_THE_SANDBOX[name];
      return why ? `  ${name}: does not apply to the sandbox (${why})` : `  ${name}: not a setting of the sandbox (nor of the reference server)`;
    });
  if (problems.length === 0) return;
  throw new ConfigError(
    `Settings the sandbox does not read:\n${problems.join('\n')}\nIt reads: ${SANDBOX_SETTINGS.map((s) => s.name).join(', ')} (docs/sandbox.md, "Sandbox settings").`,
  );
}

/**
 * The settings the sandbox reads from a process's environment, and one warning line per setting of the
 * server set there that does not apply (ignored: a shell set up for the server still starts a sandbox).
 */
export function settingsFromEnvironment(env: NodeJS.ProcessEnv): { settings: Record<string, string>; warnings: string[] } {
  const settings: Record<string, string> = {};
  const warnings: string[] = [];
  for (const name of CONFIG_VARIABLES) {
    const value = env[name];
    if (value === undefined) continue;
    if (READ.has(name)) settings[name] = value;
    else warnings.push(`${name} is set in the environment but does not apply to the sandbox (${NOT_FOR_THE_SANDBOX[name]}): ignored.`);
  }
  return { settings, warnings };
}

/** A listener's port: 0-65535 (0: any free port). `name` is what the message calls it, `--port` or `PORT`. */
export function parsePort(name: string, value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) throw new ConfigError(`${name}: expected a port 0-65535, got "${value}"`);
  return Number(value);
}
