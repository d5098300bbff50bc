import { parseArgs } from 'node:util';
import { renameOldFlags } from '../src/contract/flag-names.js';

const PROFILES = ['full', 'mock'] as const;
export type Profile = (typeof PROFILES)[number];

/** How the run treats the API's extensions (extensions.ts): checked when offered, required, or left out. */
const EXTENSION_MODES = ['optional', 'required', 'none'] as const;
export type ExtensionMode = (typeof EXTENSION_MODES)[number];

/** What a run certifies (rule.ts, Basis): the API alone, or the API and the decisions of docs/api-rules.md. */
const LEVELS = ['api', 'document'] as const;
export type Level = (typeof LEVELS)[number];

export interface Settings {
  fixturesPath?: string;
  baseUrl?: string;
  voicesUrl?: string;
  outputDir: string;
  profile: Profile;
  only: string[];
  skip: string[];
  /** A fixed length, or `auto`: start at 40,000 characters and triple while the server still answers 200. */
  longTextChars: number | 'auto';
  failingVoice?: string;
  requestTimeoutMs: number;
  jobTimeoutSeconds: number;
  concurrency: number;
  postLimit: number;
  getLimit: number;
  rateWindowSeconds: number;
  list: boolean;
  help: boolean;
  quiet: boolean;
  /** Certification: a skipped or disabled rule makes the run fail (exit 1). */
  strict: boolean;
  /** The extensions beyond the base API (word timings): optional (skipped as not supported when ignored), required, or none (left out of the run). */
  extensions: ExtensionMode;
  /** api: the rules of the document's own decisions run and are reported, advisory; document: they are binding. */
  level: Level;
  /** Requests the generated rules draw from the document (0: the generated group is skipped). */
  generate: number;
  /** The generated rules' seed; drawn per run (and printed) when not given. */
  seed?: number;
}

type Kind = 'string' | 'int' | 'int-or-auto' | 'list' | 'bool';
interface SettingSpec {
  key: keyof Settings;
  flag: string;
  env?: string;
  kind: Kind;
  defaultValue?: string;
  description: string;
  /** The names it had before the package's flags were named alike (docs/configuration.md, "Flag names"); still read, with a notice. */
  formerly?: { flag: string; env?: string };
}

/**
 * Every setting, as data: a command-line flag and (except the purely interactive ones) an environment
 * variable, so the suite runs the same from a shell, a CI job or a container. A flag wins over its
 * variable. The README's settings table and `--help` are both printed from this list.
 */
export const SETTINGS: readonly SettingSpec[] = [
  {
    key: 'fixturesPath',
    flag: 'fixtures',
    env: 'TTS_CONFORMANCE_FIXTURES',
    kind: 'string',
    description: 'Path of the fixtures file (base_url, keys, legacy job, CORS origins). Required for profile full.',
  },
  {
    key: 'baseUrl',
    flag: 'base-url',
    env: 'TTS_CONFORMANCE_BASE_URL',
    kind: 'string',
    description: 'Service origin; overrides base_url of the fixtures file (required for profile mock without a fixtures file).',
  },
  {
    key: 'voicesUrl',
    flag: 'voices-url',
    env: 'TTS_CONFORMANCE_VOICES_URL',
    kind: 'string',
    description: 'Voice-catalog origin; overrides voices_url of the fixtures file.',
  },
  {
    key: 'outputDir',
    flag: 'out-dir',
    env: 'TTS_CONFORMANCE_OUT_DIR',
    kind: 'string',
    defaultValue: 'conformance-results',
    description: 'Where results.json, junit.xml and report.html are written.',
    formerly: { flag: 'output-dir', env: 'TTS_CONFORMANCE_OUTPUT_DIR' },
  },
  {
    key: 'profile',
    flag: 'profile',
    env: 'TTS_CONFORMANCE_PROFILE',
    kind: 'string',
    defaultValue: 'full',
    description: 'full: any deployment, every rule. mock: a stateless mock (Prism); stateful rules are skipped.',
  },
  {
    key: 'only',
    flag: 'only',
    env: 'TTS_CONFORMANCE_ONLY',
    kind: 'list',
    description: 'Run only rules whose id matches one of these patterns: ids or globs (* any characters, ? one), comma-separated or repeated.',
  },
  { key: 'skip', flag: 'skip', env: 'TTS_CONFORMANCE_SKIP', kind: 'list', description: 'Disable rules whose id matches one of these patterns.' },
  {
    key: 'longTextChars',
    flag: 'long-text-chars',
    env: 'TTS_CONFORMANCE_LONG_TEXT_CHARS',
    kind: 'int-or-auto',
    defaultValue: 'auto',
    description:
      'Length of the text that must outlast the inline wait (202). auto: 40,000 characters, tripled (up to 500,000) while the deployment still answers 200.',
  },
  {
    key: 'failingVoice',
    flag: 'failing-voice',
    env: 'TTS_CONFORMANCE_FAILING_VOICE',
    kind: 'string',
    description: 'A voice id whose synthesis this deployment fails (e.g. its upstream engine is down); enables the failed-job rules.',
  },
  {
    key: 'requestTimeoutMs',
    flag: 'request-timeout-ms',
    env: 'TTS_CONFORMANCE_REQUEST_TIMEOUT_MS',
    kind: 'int',
    defaultValue: '30000',
    description: 'Timeout of one HTTP exchange (the inline wait is about 10 s).',
  },
  {
    key: 'jobTimeoutSeconds',
    flag: 'job-timeout-seconds',
    env: 'TTS_CONFORMANCE_JOB_TIMEOUT_SECONDS',
    kind: 'int',
    defaultValue: '300',
    description: 'How long to poll a processing job before the rule fails.',
  },
  {
    key: 'concurrency',
    flag: 'concurrency',
    env: 'TTS_CONFORMANCE_CONCURRENCY',
    kind: 'int',
    defaultValue: '32',
    description: 'Rules run at the same time (each still holds its API keys exclusively).',
  },
  {
    key: 'postLimit',
    flag: 'post-limit',
    env: 'TTS_CONFORMANCE_POST_LIMIT',
    kind: 'int',
    defaultValue: '1',
    description: 'POST requests per window per key (docs/api-rules.md#limits: 1 per minute).',
  },
  {
    key: 'getLimit',
    flag: 'get-limit',
    env: 'TTS_CONFORMANCE_GET_LIMIT',
    kind: 'int',
    defaultValue: '30',
    description: 'GET requests per window per key (docs/api-rules.md#limits: 30 per minute).',
  },
  {
    key: 'rateWindowSeconds',
    flag: 'rate-window-seconds',
    env: 'TTS_CONFORMANCE_RATE_WINDOW_SECONDS',
    kind: 'int',
    defaultValue: '60',
    description: 'Rate-limit window in seconds (docs/api-rules.md#limits: a minute).',
  },
  { key: 'quiet', flag: 'quiet', env: 'TTS_CONFORMANCE_QUIET', kind: 'bool', description: 'Print only the summary.' },
  {
    key: 'strict',
    flag: 'strict',
    env: 'TTS_CONFORMANCE_STRICT',
    kind: 'bool',
    description: 'Certification run: any rule skipped (or disabled by --only/--skip) makes the exit code 1, as a failure does.',
  },
  {
    key: 'extensions',
    flag: 'extensions',
    env: 'TTS_CONFORMANCE_EXTENSIONS',
    kind: 'string',
    defaultValue: 'optional',
    description:
      'Extensions beyond the base API (word timings and captions). optional: checked when the deployment offers them, skipped as "extension not supported" when it ignores them (which --strict fails). required: ignoring them fails. none: their rules are left out of the run, so --strict certifies the base API alone.',
  },
  {
    key: 'level',
    flag: 'level',
    env: 'TTS_CONFORMANCE_LEVEL',
    kind: 'string',
    defaultValue: 'api',
    description:
      "What the run certifies. api: the API itself; the rules of this project's own decisions (basis document, docs/api-rules.md) still run and are reported, but are advisory: they never fail the run, nor do their skips fail --strict. document: those rules are binding too, as the reference server follows them.",
  },
  {
    key: 'generate',
    flag: 'generate',
    env: 'TTS_CONFORMANCE_GENERATE',
    kind: 'int',
    defaultValue: '30',
    description:
      'Requests the generated rules (generated.*) draw from the OpenAPI document, plus one followed job per 15 of them; 0 turns the group off (a skip, which --strict fails).',
  },
  {
    key: 'seed',
    flag: 'seed',
    env: 'TTS_CONFORMANCE_SEED',
    kind: 'int',
    description: 'Seed of the generated rules, to repeat a run: a failure prints the seed it came from. Drawn per run when not given.',
  },
  { key: 'list', flag: 'list', kind: 'bool', description: 'Print the rule catalog and exit.' },
  { key: 'help', flag: 'help', kind: 'bool', description: 'Print this help and exit.' },
];

export class SettingsError extends Error {}

function convert(spec: SettingSpec, raw: string | boolean | (string | boolean)[]): unknown {
  switch (spec.kind) {
    case 'bool':
      return raw === true || raw === 'true' || raw === '1';
    case 'list':
      return (Array.isArray(raw) ? raw : [raw])
        .flatMap((item) => String(item).split(','))
        .map((item) => item.trim())
        .filter(Boolean);
    case 'int-or-auto':
    case 'int': {
      if (spec.kind === 'int-or-auto' && raw === 'auto') return 'auto';
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 0) throw new SettingsError(`--${spec.flag} must be a whole number, got "${String(raw)}"`);
      return n;
    }
    default:
      return String(raw);
  }
}

/**
 * Reads flags from argv and variables from env; flags win. Throws SettingsError for bad values. A
 * former flag or variable name is read as its new one, and `notice` gets a line saying so.
 */
export function readSettings(argv: string[], env: NodeJS.ProcessEnv, notice: (line: string) => void = () => {}): Settings {
  const options = Object.fromEntries(SETTINGS.map((s) => [s.flag, { type: s.kind === 'bool' ? 'boolean' : 'string', multiple: s.kind === 'list' } as const]));
  const renamed = Object.fromEntries(SETTINGS.flatMap((s) => (s.formerly ? [[s.formerly.flag, s.flag]] : [])));
  env = { ...env };
  for (const s of SETTINGS) {
    const old = s.formerly?.env;
    if (!old || !s.env || env[old] === undefined || env[old] === '') continue;
    notice(`${old} is now ${s.env}; the old name still works for now.`);
    if (env[s.env] === undefined || env[s.env] === '') env[s.env] = env[old];
  }
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({ args: renameOldFlags(argv, renamed, notice), options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new SettingsError((error as Error).message);
  }
  const settings: Record<string, unknown> = {};
  for (const spec of SETTINGS) {
    const fromFlag = values[spec.flag];
    const fromEnv = spec.env ? env[spec.env] : undefined;
    const raw = fromFlag ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined) ?? spec.defaultValue;
    if (raw !== undefined) settings[spec.key] = convert(spec, raw);
  }
  settings.only ??= [];
  settings.skip ??= [];
  settings.list ??= false;
  settings.help ??= false;
  settings.quiet ??= false;
  settings.strict ??= false;
  if (!(PROFILES as readonly string[]).includes(settings.profile as string)) {
    throw new SettingsError(`--profile must be one of ${PROFILES.join(', ')}, got "${String(settings.profile)}"`);
  }
  if (!(EXTENSION_MODES as readonly string[]).includes(settings.extensions as string)) {
    throw new SettingsError(`--extensions must be one of ${EXTENSION_MODES.join(', ')}, got "${String(settings.extensions)}"`);
  }
  if (!(LEVELS as readonly string[]).includes(settings.level as string)) {
    throw new SettingsError(`--level must be one of ${LEVELS.join(', ')}, got "${String(settings.level)}"`);
  }
  return settings as unknown as Settings;
}
