import { defined } from './defined.js';
import { UsageError } from './errors.js';

/**
 * CI thresholds in the k6 manner: `metric<op>value`, e.g. `time_to_audio_p95<15s`. Every metric has a
 * kind, which says what a value may be written as: times in ms/s/m (a bare number is ms), shares as a
 * number or a percentage, others as plain numbers.
 */
export type MetricKind = 'time' | 'share' | 'number';

const STATS = ['p50', 'p90', 'p95', 'p99', 'max', 'mean', 'min'] as const;
const TIME_FAMILIES = ['time_to_audio', 'time_to_audio_inline', 'time_to_audio_job', 'submit_latency', 'download_time', 'stream_first_byte'] as const;

/** Every metric a threshold may name, with its kind and what it means (for --help and the reports). */
export const METRICS: Readonly<Record<string, { kind: MetricKind; description: string }>> = Object.freeze({
  ...Object.fromEntries(
    TIME_FAMILIES.flatMap((family) =>
      STATS.map((stat) => [`${family}_${stat}`, { kind: 'time' as const, description: `${stat} of ${family.replace(/_/g, ' ')} (ms)` }]),
    ),
  ),
  inline_share: { kind: 'share', description: 'accepted submissions answered 200 inline, of all accepted (200 + 202)' },
  error_rate: { kind: 'share', description: 'submissions that ended in an error (not 429, not interrupted), of all sent' },
  rate_limited_rate: { kind: 'share', description: 'submissions refused with 429, of all sent' },
  success_rate: { kind: 'share', description: 'submissions whose audio was downloaded, of all sent' },
  submissions: { kind: 'number', description: 'submissions sent' },
  completed: { kind: 'number', description: 'submissions whose audio was downloaded' },
  polls_per_job_mean: { kind: 'number', description: 'status GETs per 202 job, mean' },
  polls_per_job_max: { kind: 'number', description: 'status GETs per 202 job, most' },
  achieved_rate: { kind: 'number', description: 'submissions sent per second of the sending window' },
  rate_shortfall: { kind: 'share', description: '1 - achieved / scheduled rate: how far the generator fell short' },
  generator_lag_p99: { kind: 'time', description: 'p99 of how late the generator sent a submission (ms)' },
  generator_lag_max: { kind: 'time', description: 'the latest the generator sent a submission (ms)' },
  audio_seconds_per_second: { kind: 'number', description: 'seconds of audio delivered per second of the run' },
  timings_asked: { kind: 'number', description: 'submissions sent that asked for word timings (--timings-share)' },
  timings_missing: { kind: 'number', description: 'completed answers to submissions that asked for word timings that carried none' },
});

type Operator = '<' | '<=' | '>' | '>=' | '==' | '!=';

export interface Threshold {
  /** As given on the command line. */
  expression: string;
  metric: string;
  op: Operator;
  /** In the metric's unit: ms for times, a fraction for shares. */
  value: number;
}

export interface ThresholdResult extends Threshold {
  /** The measured value; null when the metric has no samples (the threshold then fails). */
  actual: number | null;
  pass: boolean;
}

export class ThresholdSyntaxError extends UsageError {}

/** Parses one `--threshold` expression; throws ThresholdSyntaxError with one line saying what is wrong. */
export function parseThreshold(expression: string): Threshold {
  const m = /^\s*([a-z0-9_]+)\s*(<=|>=|==|!=|<|>)\s*(.+?)\s*$/i.exec(expression);
  if (!m)
    throw new ThresholdSyntaxError(`--threshold ${JSON.stringify(expression)}: expected <metric><op><value>, e.g. time_to_audio_p95<15s (op: < <= > >= == !=)`);
  const [, name = '', op, valueText = ''] = m;
  const metric = name.toLowerCase();
  const def = METRICS[metric];
  if (!def)
    throw new ThresholdSyntaxError(`--threshold ${JSON.stringify(expression)}: unknown metric ${JSON.stringify(metric)} (agent-tts-load --help lists them)`);
  return { expression, metric, op: op as Operator, value: parseValue(valueText, def.kind, expression) };
}

function parseValue(text: string, kind: MetricKind, expression: string): number {
  const m = /^(-?\d+(?:\.\d+)?|-?\.\d+)\s*(ms|s|m|%)?$/.exec(text);
  const bad = (why: string) => new ThresholdSyntaxError(`--threshold ${JSON.stringify(expression)}: ${why}`);
  if (!m)
    throw bad(`${JSON.stringify(text)} is not a number${kind === 'time' ? ' with an optional unit ms, s or m' : kind === 'share' ? ' or a percentage' : ''}`);
  const n = Number(m[1]);
  const unit = m[2];
  if (kind === 'time') {
    if (unit === '%') throw bad('a time takes ms, s or m, not %');
    return n * (unit === 's' ? 1000 : unit === 'm' ? 60_000 : 1);
  }
  if (unit === '%' && kind === 'share') return n / 100;
  if (unit !== undefined) throw bad(`this metric is not a time: ${JSON.stringify(unit)} does not apply`);
  return n;
}

function holds(actual: number, op: Operator, value: number): boolean {
  switch (op) {
    case '<':
      return actual < value;
    case '<=':
      return actual <= value;
    case '>':
      return actual > value;
    case '>=':
      return actual >= value;
    case '==':
      return actual === value;
    case '!=':
      return actual !== value;
  }
}

/** Judges each threshold against the run's flat metrics. A metric without samples fails: a gate never passes on nothing. */
export function evaluateThresholds(thresholds: readonly Threshold[], metrics: Readonly<Record<string, number | null>>): ThresholdResult[] {
  return thresholds.map((t) => {
    const actual = metrics[t.metric] ?? null;
    return { ...t, actual, pass: actual !== null && Number.isFinite(actual) && holds(actual, t.op, t.value) };
  });
}

/** `time_to_audio_p95 < 15000 ms: 812 ms ✓` — for the console and the reports. */
export function describeResult(r: ThresholdResult): string {
  const { kind } = defined(METRICS[r.metric], `the metric ${r.metric}`);
  const fmt = (v: number) => (kind === 'time' ? `${round(v)} ms` : String(round(v, 4)));
  const actual = r.actual === null ? 'no samples' : fmt(r.actual);
  return `${r.pass ? 'pass' : 'FAIL'}  ${r.expression.trim()}  (${r.metric} ${r.op} ${fmt(r.value)}; measured ${actual})`;
}

function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
