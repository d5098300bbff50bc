import { parseArgs } from 'node:util';
import { LIMITS } from '../contract/limits.js';
import { renameOldFlags } from '../contract/flag-names.js';
import { UsageError } from './errors.js';
import {
  type MixEntry,
  type Stage,
  parseLengths,
  parseMix,
  parseRate,
  parseShare,
  parseSpeeds,
  parseStages,
  parseVoices,
  positiveDuration,
  positiveInt,
} from './flag-values.js';
import { parseThreshold, type Threshold } from './thresholds.js';

export interface LoadSettings {
  fixturesPath?: string;
  baseUrl?: string;
  /** The arrival-rate profile; a plain `--rate R --duration D` is one flat stage. */
  stages: Stage[];
  /** Rate at the start of the first stage (only meaningful with `--stages`). */
  startRate: number;
  maxRequests?: number;
  mix: MixEntry[];
  voices: string[];
  speeds: number[];
  language?: string;
  /** The share of submissions that ask for word timings (`timestamps: "word"`), spread evenly. */
  timingsShare: number;
  /**
   * Open the `stream_url` of every job answered 202 (docs/api-rules.md#streaming-audio) and time its
   * first audio byte. Off by default: each stream is one more connection and request per job, which a
   * run without it does not make, so figures stay comparable with runs before it.
   */
  stream: boolean;
  postLimit: number;
  rateWindowSeconds: number;
  allow429: boolean;
  requestTimeoutMs: number;
  jobTimeoutMs: number;
  thresholds: Threshold[];
  outDir?: string;
  seed: number;
  quiet: boolean;
  help: boolean;
}

const OPTIONS = {
  fixtures: { type: 'string' },
  'base-url': { type: 'string' },
  rate: { type: 'string' },
  duration: { type: 'string' },
  stages: { type: 'string' },
  'start-rate': { type: 'string' },
  'max-requests': { type: 'string' },
  mix: { type: 'string' },
  length: { type: 'string', multiple: true },
  voices: { type: 'string' },
  speeds: { type: 'string' },
  language: { type: 'string' },
  'timings-share': { type: 'string' },
  stream: { type: 'boolean' },
  'post-limit': { type: 'string' },
  'rate-window': { type: 'string' },
  'allow-429': { type: 'boolean' },
  'request-timeout': { type: 'string' },
  'job-timeout': { type: 'string' },
  threshold: { type: 'string', multiple: true },
  'out-dir': { type: 'string' },
  seed: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Flags renamed when the package's flags were named alike (docs/configuration.md, "Flag names"): still read, with a notice. */
const FORMER_NAMES = { out: 'out-dir' } as const;

/**
 * Reads the command line. Throws UsageError (exit 2) with one line naming the flag at fault. A former
 * flag name is read as its new one, and `notice` gets a line saying so.
 */
export function readSettings(argv: readonly string[], notice: (line: string) => void = () => {}): LoadSettings {
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; strict: true; allowPositionals: false }>>['values'];
  try {
    ({ values } = parseArgs({ args: renameOldFlags(argv, FORMER_NAMES, notice), options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? '');
  }
  const help = values.help ?? false;
  const base = {
    help,
    quiet: values.quiet ?? false,
    fixturesPath: values.fixtures,
    baseUrl: values['base-url'],
    outDir: values['out-dir'],
  };
  if (help) return { ...defaults(), ...base };
  if (!values.fixtures) throw new UsageError('--fixtures <file> is required: the fixtures file of the deployment (same schema as the conformance suite)');

  let stages: Stage[];
  /** The one rate of --rate, which is also the rate the run starts at; none with --stages. */
  let steadyRate: number | undefined;
  if (values.stages !== undefined) {
    if (values.rate !== undefined || values.duration !== undefined) throw new UsageError('give either --stages or --rate with --duration, not both');
    stages = parseStages(values.stages);
  } else {
    if (values.rate === undefined) throw new UsageError('no arrival rate: give --rate <requests per second> (with --duration) or --stages');
    const rate = parseRate(values.rate, '--rate');
    if (!(rate > 0)) throw new UsageError('--rate must be above 0');
    const durationMs = positiveDuration(values.duration ?? '60s', '--duration');
    stages = [{ durationMs, target: rate }];
    steadyRate = rate;
  }
  const startRate = values['start-rate'] !== undefined ? parseRate(values['start-rate'], '--start-rate') : (steadyRate ?? 0);
  if (values.stages !== undefined && Math.max(startRate, ...stages.map((s) => s.target)) <= 0)
    throw new UsageError('--stages: every rate is 0, so nothing would be sent');
  const lengths = parseLengths(values.length ?? []);
  const mix = parseMix(values.mix ?? 'short=80,long=20', lengths);
  const postLimit = values['post-limit'] !== undefined ? positiveInt(values['post-limit'], '--post-limit') : LIMITS.postPerMinute;
  const rateWindowMs = values['rate-window'] !== undefined ? positiveDuration(values['rate-window'], '--rate-window') : LIMITS.rateWindowSeconds * 1000;
  const thresholds = (values.threshold ?? []).map(parseThreshold);
  const seed = values.seed !== undefined ? positiveInt(values.seed, '--seed') : 1;
  return {
    ...base,
    stages,
    startRate,
    maxRequests: values['max-requests'] !== undefined ? positiveInt(values['max-requests'], '--max-requests') : undefined,
    mix,
    voices: parseVoices(values.voices ?? 'af_heart'),
    speeds: parseSpeeds(values.speeds ?? String(LIMITS.speedDefault)),
    language: values.language,
    timingsShare: values['timings-share'] !== undefined ? parseShare(values['timings-share'], '--timings-share') : 0,
    stream: values.stream ?? false,
    postLimit,
    rateWindowSeconds: rateWindowMs / 1000,
    allow429: values['allow-429'] ?? false,
    requestTimeoutMs: values['request-timeout'] !== undefined ? positiveDuration(values['request-timeout'], '--request-timeout') : 60_000,
    jobTimeoutMs: values['job-timeout'] !== undefined ? positiveDuration(values['job-timeout'], '--job-timeout') : 300_000,
    thresholds,
    seed,
  };
}

function defaults(): LoadSettings {
  return {
    stages: [],
    startRate: 0,
    mix: [],
    voices: [],
    speeds: [],
    timingsShare: 0,
    stream: false,
    postLimit: LIMITS.postPerMinute,
    rateWindowSeconds: LIMITS.rateWindowSeconds,
    allow429: false,
    requestTimeoutMs: 60_000,
    jobTimeoutMs: 300_000,
    thresholds: [],
    seed: 1,
    quiet: false,
    help: false,
  };
}

export function helpText(): string {
  return `agent-tts-load: drives a deployment of the Text-to-Speech Job API at an open-loop arrival rate and
reports what its users would feel (time to audio, share answered inline, statuses, errors).

Usage:
  agent-tts-load --fixtures fixtures.json --rate 2 --duration 60s [--out-dir DIR] [--threshold EXPR ...]
  agent-tts-load --fixtures fixtures.json --stages 30s:2,60s:10,30s:0 --mix short=80,long=20

Target:
  --fixtures FILE        The deployment's fixtures file (schema of the conformance suite): base_url and
                         keys.active are used. Required.
  --base-url URL         Overrides base_url of the fixtures file.

Workload (open loop: request i is sent on schedule whatever happened to the earlier ones):
  --rate R               Requests per second (2, 0.5, 120/m), for --duration (default 60s).
  --duration D           500ms, 30s, 2m, 1m30s.
  --stages LIST          Instead of --rate: D:R stages; each ramps linearly from the previous rate
                         (--start-rate, default 0) to R over D, as k6's ramping arrival rate.
  --max-requests N       Send at most N submissions.
  --mix LIST             Text classes and weights (default short=80,long=20). A class is short (100
                         characters), medium (1,000), long (5,000) or a number of characters.
  --length CLASS=N       Length of a named class (repeatable): --length long=20000.
  --voices LIST          Voices, drawn in turn (default af_heart).
  --speeds LIST          Speeds, drawn in turn (default 1.2).
  --language CODE        language field of every submission (for st_* voices; default: not sent).
  --timings-share S      Share of submissions that ask for word timings (timestamps: "word", an
                         extension beyond the base API): 0.2 or 20%, spread evenly (default 0). The
                         report counts them and whether their completed answers carried timings.
  --stream               For each job answered 202, open its stream_url (the audio while it is made,
                         an extension beyond the base API) and time its first audio byte from the
                         POST; the stream is closed at that byte. Off by default.
  --seed N               Seed of the text-class draws (default 1): the same seed sends the same texts.

Rate limits (docs/api-rules.md#limits: 1 POST per 60 s per key):
  --post-limit N         POSTs per window per key that the deployment allows (default 1).
  --rate-window D        The window (default 60s).
  --allow-429            Run even when the rate exceeds what the keys allow, to measure the refusals
                         (429 answers are counted, never treated as failures of the tool).
  Submissions are spread over keys.active; with N keys the rate they allow is N x limit / window.

Bounds:
  --request-timeout D    One HTTP exchange (default 60s; the inline wait is about 10 s).
  --job-timeout D        From submission to downloaded audio (default 5m); the run ends at most this
                         long after the last submission. Ctrl-C stops at once with a partial report.

Output:
  --out-dir DIR          Writes results.json, report.md and report.html (charts, works offline).
                         Formerly --out, still read with a notice.
  --quiet, -q            No progress line and no summary, only threshold failures and errors.
  A progress line is redrawn on a terminal; elsewhere a plain line every 5 s.

Thresholds (repeatable; all must hold):
  --threshold 'inline_share>=0.9' --threshold 'time_to_audio_p95<15s' --threshold 'error_rate<0.01'
  Operators < <= > >= == !=. Times take ms, s or m (a bare number is ms); shares take a number or a
  percentage (1%). A threshold on a metric with no samples fails. Metrics:
    time_to_audio_*, time_to_audio_inline_*, time_to_audio_job_*, submit_latency_*, download_time_*,
    stream_first_byte_* (each with p50 p90 p95 p99 max mean min), inline_share, error_rate, rate_limited_rate,
    success_rate, submissions, completed, polls_per_job_mean, polls_per_job_max, achieved_rate,
    rate_shortfall, generator_lag_p99, generator_lag_max, audio_seconds_per_second, timings_asked,
    timings_missing.

Exit codes:
  0    the run ended and every threshold held (or none was given)
  1    a threshold failed
  2    unusable settings: bad flag or value, unreadable fixtures, unknown threshold metric, a rate the
       keys do not allow (without --allow-429), unwritable --out, a deployment that does not answer or
       refuses the keys
  3    the tool itself failed (a bug): the message says where
  130  interrupted (Ctrl-C): the partial report is written, thresholds are not judged

API keys appear in every output only as tts_<public_id>.`;
}
