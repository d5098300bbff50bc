/** The values of the load tool's flags: durations, rates, stages, the text mix and lengths, voices, speeds and counts, each refused with a UsageError saying what is allowed. */
import { LIMITS } from '../contract/limits.js';
import { UsageError } from './errors.js';

/** One stage of the arrival rate: over `durationMs` the rate moves linearly to `target` requests per second. */
export interface Stage {
  durationMs: number;
  target: number;
}

/** One class of text in the mix: how often it is drawn and how long it is. */
export interface MixEntry {
  name: string;
  weight: number;
  chars: number;
}

/** Default lengths (characters) of the named text classes; a mix entry may also be a plain number. */
const DEFAULT_LENGTHS: Readonly<Record<string, number>> = { short: 100, medium: 1_000, long: 5_000 };

/**
 * A duration: a number with a unit, `ms`, `s`, `m` or `h`, or several glued together (`1m30s`).
 * A bare number is seconds. Returns milliseconds.
 */
export function parseDuration(text: string, what: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let rest = trimmed;
  if (rest === '') throw new UsageError(`${what}: a duration is needed, such as 30s, 2m or 1m30s`);
  while (rest.length > 0) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)/.exec(rest);
    if (!m) throw new UsageError(`${what}: ${JSON.stringify(text)} is not a duration (use e.g. 500ms, 30s, 2m, 1m30s)`);
    const [, amount, unitName = ''] = m;
    const factor = unit[unitName];
    if (factor === undefined) throw new UsageError(`${what}: ${JSON.stringify(unitName)} is not a unit of duration (ms, s, m or h)`);
    total += Number(amount) * factor;
    rest = rest.slice(m[0].length);
  }
  return total;
}

export function positiveDuration(text: string, what: string): number {
  const ms = parseDuration(text, what);
  if (!(ms > 0)) throw new UsageError(`${what} must be longer than 0, got ${JSON.stringify(text)}`);
  return ms;
}

/** A rate in requests per second: a non-negative number, optionally written `2/s` or `120/m`. */
export function parseRate(text: string, what: string): number {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(?:\/\s*(s|m|min|h))?\s*$/.exec(text);
  if (!m) throw new UsageError(`${what}: ${JSON.stringify(text)} is not a rate (requests per second, e.g. 2, 0.5 or 120/m)`);
  const per = m[2] === undefined || m[2] === 's' ? 1 : m[2] === 'h' ? 3600 : 60;
  return Number(m[1]) / per;
}

/** `30s:2,60s:10,30s:0`: each stage ramps linearly from the previous target to its own over its duration. */
export function parseStages(text: string): Stage[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) throw new UsageError('--stages: no stage given (e.g. --stages 30s:2,60s:10,30s:0)');
  return parts.map((part) => {
    const m = /^([^:]+):(.+)$/.exec(part);
    if (!m) throw new UsageError(`--stages: ${JSON.stringify(part)} is not <duration>:<rate> (e.g. 30s:2)`);
    const [, duration = '', rate = ''] = m;
    return { durationMs: positiveDuration(duration, `--stages ${part}`), target: parseRate(rate, `--stages ${part}`) };
  });
}

/** A whole number of characters ≥ 1 and within the API's text limit. */
function parseChars(text: string, what: string): number {
  const n = Number(text.replace(/_/g, ''));
  if (!/^\d[\d_]*$/.test(text.trim()) || !Number.isSafeInteger(n) || n < LIMITS.textMinChars || n > LIMITS.textMaxChars) {
    throw new UsageError(
      `${what}: a length is a whole number of characters from ${LIMITS.textMinChars} to ${LIMITS.textMaxChars}, got ${JSON.stringify(text)}`,
    );
  }
  return n;
}

/**
 * `--mix short=80,long=20`: weights of text classes. A class is `short`, `medium`, `long` (lengths
 * from `lengths`) or a number of characters (`300=50`).
 */
export function parseMix(text: string, lengths: Readonly<Record<string, number>>): MixEntry[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) throw new UsageError('--mix: no class given (e.g. --mix short=80,long=20)');
  const entries = parts.map((part) => {
    const m = /^([^=]+)=(.+)$/.exec(part);
    if (!m) throw new UsageError(`--mix: ${JSON.stringify(part)} is not <class>=<weight> (e.g. short=80)`);
    const [, className = '', weightText] = m;
    const name = className.trim();
    const weight = Number(weightText);
    if (!Number.isFinite(weight) || weight < 0) throw new UsageError(`--mix: the weight of ${name} must be a number ≥ 0, got ${JSON.stringify(weightText)}`);
    const named = lengths[name];
    let chars: number;
    if (/^\d+$/.test(name)) chars = parseChars(name, `--mix ${part}`);
    else if (named !== undefined) chars = named;
    else throw new UsageError(`--mix: unknown class ${JSON.stringify(name)} (use ${Object.keys(lengths).join(', ')} or a number of characters)`);
    return { name, weight, chars };
  });
  const names = new Set<string>();
  for (const e of entries) {
    if (names.has(e.name)) throw new UsageError(`--mix: ${e.name} is given twice`);
    names.add(e.name);
  }
  if (!entries.some((e) => e.weight > 0)) throw new UsageError('--mix: at least one weight must be above 0');
  return entries;
}

/** `--length long=20000` (repeatable, or comma-separated): the length of a named class. */
export function parseLengths(values: readonly string[]): Record<string, number> {
  const lengths: Record<string, number> = { ...DEFAULT_LENGTHS };
  for (const part of values
    .flatMap((v) => v.split(','))
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const m = /^([a-z][a-z0-9-]*)=(.+)$/i.exec(part);
    if (!m) throw new UsageError(`--length: ${JSON.stringify(part)} is not <class>=<characters> (e.g. long=20000)`);
    const [, name = '', chars = ''] = m;
    lengths[name] = parseChars(chars, `--length ${part}`);
  }
  return lengths;
}

const VOICE = /^(?:[abefhijpz][fm]_[a-z][a-z0-9]{0,31}|st_[fm][1-5])$/;

export function parseVoices(text: string): string[] {
  const voices = text
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (voices.length === 0) throw new UsageError('--voices: no voice given (e.g. --voices af_heart,st_m1)');
  for (const v of voices) if (!VOICE.test(v)) throw new UsageError(`--voices: ${JSON.stringify(v)} is not a voice id (e.g. af_heart, bf_emma, st_m1)`);
  return voices;
}

export function parseSpeeds(text: string): number[] {
  const speeds = text
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '')
    .map(Number);
  if (speeds.length === 0 || speeds.some((s) => !Number.isFinite(s) || s < LIMITS.speedMin || s > LIMITS.speedMax)) {
    throw new UsageError(`--speeds: numbers from ${LIMITS.speedMin} to ${LIMITS.speedMax}, comma-separated, got ${JSON.stringify(text)}`);
  }
  return speeds;
}

/** A share from 0 to 1, written as a fraction (`0.2`) or a percentage (`20%`). */
export function parseShare(text: string, what: string): number {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)\s*$/.exec(text);
  const share = m ? Number(m[1]) / (m[2] ? 100 : 1) : Number.NaN;
  if (!(share >= 0 && share <= 1)) throw new UsageError(`${what} must be a share from 0 to 1 (0.2) or a percentage (20%), got ${JSON.stringify(text)}`);
  return share;
}

export function positiveInt(text: string, what: string): number {
  const n = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`${what} must be a whole number ≥ 1, got ${JSON.stringify(text)}`);
  return n;
}
