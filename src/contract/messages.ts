import { LANGUAGE_CODES } from './languages.js';
import { API_PATH, LIMITS, VOICES_PATH } from './limits.js';
import { CURATED_VOICES, VOICE_PATTERN } from './voices.js';

/**
 * The messages of 400 INVALID_REQUEST, written for people: each names what was wrong, the allowed
 * range or set, and where to look (for a voice: the closest ids the deployment offers and its voice
 * catalog). The reference server, the sandbox (the same app) and the mock's examples use them, so the
 * three speak alike. No message quotes a schema's regular expression or a validator's own wording.
 */

/** What a message about a voice can point at: the deployment's voice catalog. */
export interface VoiceCatalogRef {
  /** Every voice id the deployment offers, in catalog order (curated voices first). */
  ids: readonly string[];
  /** The catalog's address, e.g. `http://127.0.0.1:8081/api/v1/voices`. */
  url: string;
}

/** A validation issue as zod reports it; only what the messages use. */
export interface ValidationIssue {
  path: readonly PropertyKey[];
  code?: string;
  params?: { reason?: string };
  minimum?: unknown;
  maximum?: unknown;
  values?: readonly unknown[];
  expected?: unknown;
}

const fmt = (n: number) => n.toLocaleString('en-US');
const TEXT_RULE = `a string of ${fmt(LIMITS.textMinChars)} to ${fmt(LIMITS.textMaxChars)} characters`;
const SPEED_RULE = `a number from ${LIMITS.speedMin} to ${LIMITS.speedMax}`;
const LANGUAGE_LIST = LANGUAGE_CODES.join(', ');
const ID_EXAMPLE = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
/** Longest piece of a client's value quoted back (a full API key, 61 characters, never fits). */
const QUOTE_MAX = 40;

/** A client's value, quoted for a message: strings in JSON quotes, cut at QUOTE_MAX characters. */
function quote(value: string): string {
  const chars = [...value];
  return JSON.stringify(chars.length > QUOTE_MAX ? `${chars.slice(0, QUOTE_MAX).join('')}…` : value);
}

/** What a value is, in words: `the string "fast"`, `the number 9`, `an array`. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return value === '' ? 'an empty string' : `the string ${quote(value)}`;
    case 'number':
      return Number.isFinite(value) ? `the number ${value}` : 'a number too large to represent';
    case 'boolean':
      return String(value);
    default:
      return 'an object';
  }
}

/** Levenshtein distance, on at most the first 64 characters of each side (voice ids are shorter). */
function editDistance(a: string, b: string): number {
  const s = a.slice(0, 64);
  const t = b.slice(0, 64);
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    for (let j = 1; j <= t.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[t.length]!;
}

/** The `count` ids of `ids` closest to `id` by edit distance (case ignored); ties keep the catalog's order. */
export function closestVoiceIds(id: string, ids: readonly string[], count = 3): string[] {
  const wanted = id.trim().toLowerCase();
  return ids
    .map((candidate, index) => ({ candidate, index, distance: editDistance(wanted, candidate) }))
    .filter(({ candidate }) => candidate !== wanted)
    .sort((a, b) => a.distance - b.distance || a.index - b.index)
    .slice(0, count)
    .map(({ candidate }) => candidate);
}

/** Where the voices are listed: the deployment's catalog, or the catalog's path when its origin is unknown here. */
function catalogPointer(id: string | undefined, catalog: VoiceCatalogRef | undefined): string {
  const ids = catalog?.ids ?? CURATED_VOICES.map((v) => v.id);
  const closest = id === undefined ? [] : closestVoiceIds(id, ids);
  const where = catalog ? catalog.url : `GET ${VOICES_PATH} on the deployment's voice-catalog origin`;
  return `${closest.length ? ` The closest voices offered: ${closest.join(', ')}.` : ''} Every voice offered is listed at ${where} (or run \`agent-tts voices\`).`;
}

const VOICE_ID_FORM = 'a voice id is a language letter, f or m, an underscore and a name (af_heart, bf_emma), or st_f1 to st_f5 or st_m1 to st_m5';

/** Why a voice was refused, for unknownVoiceMessage. */
export type VoiceRefusal =
  /** The id has no voice-id form at all. */
  | { kind: 'malformed' }
  /** The id has the form, but the deployment's catalog does not list it. */
  | { kind: 'unlisted' }
  /** The deployment has no engine for the id's family. */
  | { kind: 'family'; family: string };

/** The message for a voice the deployment does not offer, naming the closest ids it does and its catalog. */
export function unknownVoiceMessage(id: string, refusal: VoiceRefusal, catalog?: VoiceCatalogRef): string {
  const what =
    refusal.kind === 'malformed'
      ? `voice ${quote(id)} is not a voice id: ${VOICE_ID_FORM}.`
      : refusal.kind === 'family'
        ? `Voice ${quote(id)} is not available on this deployment: no speech server is configured for its ${refusal.family} voices.`
        : `voice ${quote(id)} is not offered by this deployment: it is not in the deployment's voice catalog, and nothing is synthesized or charged for it.`;
  return `${what}${catalogPointer(id, catalog)}`;
}

/** The message for a `voice` field that is not a string at all. */
function voiceTypeMessage(value: unknown, catalog?: VoiceCatalogRef): string {
  return `voice must be a string, a voice id such as af_heart or st_m1; it is ${describeValue(value)}.${catalogPointer(undefined, catalog)}`;
}

function textMessage(value: unknown): string {
  if (value === undefined) return `text is missing: send the text to speak as ${TEXT_RULE}.`;
  if (typeof value !== 'string') return `text must be ${TEXT_RULE}; it is ${describeValue(value)}.`;
  return `text is empty or only white space: send ${fmt(LIMITS.textMinChars)} to ${fmt(LIMITS.textMaxChars)} characters, at least one of them not white space.`;
}

export function speedMessage(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) {
    return `speed ${value} is out of range: send ${SPEED_RULE}, or leave speed out for ${LIMITS.speedDefault}.`;
  }
  return `speed must be ${SPEED_RULE} (leave it out for ${LIMITS.speedDefault}); it is ${describeValue(value)}.`;
}

function languageMessage(value: unknown, catalog?: VoiceCatalogRef): string {
  const listed = catalog ? ` Each voice's languages are listed at ${catalog.url}.` : '';
  if (typeof value === 'string') {
    return `language ${quote(value)} is not a supported language code: send one of ${LANGUAGE_LIST}, or leave it out for en. It sets the language of st_* voices; Kokoro voices speak the language of their id.${listed}`;
  }
  return `language must be a string, one of ${LANGUAGE_LIST}; it is ${describeValue(value)}.${listed}`;
}

function idempotencyKeyMessage(value: unknown): string {
  const rule = `send 1 to ${LIMITS.idempotencyKeyMaxLength} printable ASCII characters (space to ~; a random UUID is a good key), or leave the header out`;
  if (typeof value !== 'string') return `The Idempotency-Key header is not valid: ${rule}.`;
  if (value === '') return `The Idempotency-Key header is empty: ${rule}.`;
  const length = [...value].length;
  if (length > LIMITS.idempotencyKeyMaxLength) return `The Idempotency-Key header has ${fmt(length)} characters: ${rule}.`;
  const bad = [...value].find((ch) => ch < ' ' || ch > '~');
  const code = bad === undefined ? '' : `U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return `The Idempotency-Key header contains ${code || 'a character'}, which is not printable ASCII: ${rule}.`;
}

function userAgentMessage(value: unknown): string {
  const what =
    typeof value === 'string' && value.trim() === '' ? 'it is blank' : `it has ${typeof value === 'string' ? fmt([...value].length) : 'no usable'} characters`;
  return `The User-Agent header must be 1 to 512 characters, not only white space, such as my-app/1.0: ${what}.`;
}

export function jobIdMessage(value: unknown): string {
  if (value === undefined) return `The id query parameter is missing: poll GET ${API_PATH}?id=<job_id>, with the job_id (a UUID) of the POST answer.`;
  if (Array.isArray(value)) return `The id query parameter is given ${value.length} times: give it once, GET ${API_PATH}?id=<job_id>.`;
  if (value === '') return `The id query parameter is empty: poll GET ${API_PATH}?id=<job_id>, with the job_id (a UUID) of the POST answer.`;
  const shown = typeof value === 'string' ? quote(value) : describeValue(value);
  return `id ${shown} is not a job id: a job id is a UUID such as ${ID_EXAMPLE}, the job_id of the POST answer.`;
}

/**
 * The message of a 429: the policy the request ran into, in its own terms (the method, its quota and
 * window), and the wait, the number sent as Retry-After.
 */
export function rateLimitedMessage(method: 'GET' | 'POST', limit: number, windowSeconds: number, waitSeconds: number): string {
  return `Too many ${method} requests for this API key (${limit} per ${windowSeconds} s). Wait ${waitSeconds} seconds (Retry-After).`;
}

/**
 * A malformed or cut-short audio URL: `expires` or `sig` missing or not of the issued form. Answered
 * 404 NOT_FOUND like every other refusal of an audio URL (docs/api-rules.md#audio-urls), with this
 * message naming the part at fault.
 */
export function audioUrlMessage(problems: { expires?: unknown; sig?: unknown }): string {
  const parts: string[] = [];
  if ('expires' in problems) {
    parts.push(problems.expires === undefined ? 'its expires parameter is missing' : 'expires must be a Unix time in seconds (1 to 12 digits)');
  }
  if ('sig' in problems) {
    parts.push(problems.sig === undefined ? 'its sig parameter is missing' : 'sig must be the 43-character base64url signature it was issued with');
  }
  return `This audio URL is malformed: ${parts.join(', and ') || 'its query is not the one it was issued with'}. Use audio_url exactly as the job's answer gave it, or GET the job again for a fresh audio_url.`;
}

export const MALFORMED_JSON_MESSAGE = 'The request body is not valid JSON: send a JSON object such as {"text": "Hello."}.';

function bodyMessage(value: unknown): string {
  return `The request body must be a JSON object with a text field, such as {"text": "Hello."}; it is ${describeValue(value)}.`;
}

/** Any other field: said from the issue alone, in the same words. */
function genericMessage(where: string, field: string, issue: ValidationIssue, value: unknown): string {
  let rule = 'in the documented form';
  if (issue.code === 'too_big' && typeof issue.maximum !== 'undefined') rule = `at most ${String(issue.maximum)}`;
  else if (issue.code === 'too_small' && typeof issue.minimum !== 'undefined') rule = `at least ${String(issue.minimum)}`;
  else if (issue.code === 'invalid_value' && issue.values) rule = `one of ${issue.values.map(String).join(', ')}`;
  else if (issue.code === 'invalid_type' && typeof issue.expected === 'string') rule = `a ${issue.expected}`;
  return `The ${where} ${field} is not valid: it must be ${rule}; it is ${describeValue(value)}.`;
}

const valueAt = (input: unknown, key: PropertyKey | undefined): unknown => {
  if (key === undefined) return input;
  return input !== null && typeof input === 'object' ? (input as Record<PropertyKey, unknown>)[key] : undefined;
};

/**
 * The message of a request that failed the contract's schemas: one sentence per field at fault (at
 * most five), in the order the issues name them. `target` is where the values came from (`json` body,
 * `header`, `query`, `param`), `input` the values as received.
 */
export function describeInvalidRequest(target: string, issues: readonly ValidationIssue[], input: unknown, catalog?: VoiceCatalogRef): string {
  const byField = new Map<string, ValidationIssue>();
  for (const issue of issues) {
    const field = issue.path.length ? String(issue.path[0]) : '';
    if (!byField.has(field)) byField.set(field, issue);
  }
  const sentences: string[] = [];
  const audio: { expires?: unknown; sig?: unknown } = {};
  let audioFaults = false;
  for (const [field, issue] of byField) {
    const value = valueAt(input, field === '' ? undefined : field);
    if (target === 'json') {
      if (field === '') sentences.push(bodyMessage(value));
      else if (field === 'text') sentences.push(textMessage(value));
      else if (field === 'speed') sentences.push(speedMessage(value));
      else if (field === 'language') sentences.push(languageMessage(value, catalog));
      else if (field === 'voice') {
        sentences.push(
          typeof value === 'string'
            ? unknownVoiceMessage(value, VOICE_PATTERN.test(value) ? { kind: 'unlisted' } : { kind: 'malformed' }, catalog)
            : voiceTypeMessage(value, catalog),
        );
      } else sentences.push(genericMessage('field', field, issue, value));
    } else if (target === 'header') {
      const name = field.toLowerCase();
      if (name === 'idempotency-key') sentences.push(idempotencyKeyMessage(value));
      else if (name === 'user-agent') sentences.push(userAgentMessage(value));
      else sentences.push(genericMessage('header', field, issue, value));
    } else if (target === 'query' && field === 'id') {
      sentences.push(jobIdMessage(value));
    } else if (target === 'query' && (field === 'expires' || field === 'sig')) {
      audio[field] = value;
      audioFaults = true;
    } else {
      sentences.push(genericMessage(target === 'query' ? 'query parameter' : target === 'param' ? 'path parameter' : target, field || 'value', issue, value));
    }
  }
  if (audioFaults) sentences.push(audioUrlMessage(audio));
  const shown = sentences.slice(0, 5);
  if (sentences.length > shown.length) shown.push(`(${sentences.length - shown.length} more problems not listed.)`);
  return shown.join(' ');
}
