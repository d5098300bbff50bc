import { LANGUAGE_CODES } from '../../src/contract/languages.js';
import { LIMITS } from '../../src/contract/limits.js';
import { CURATED_VOICES, DEFAULT_SUPERTONIC_LANGUAGE, KOKORO_LANGUAGE_BY_LETTER } from '../../src/contract/voices.js';
import { UUID_PATTERN, must, mustAnswer, mustJson } from '../assertions.js';
import { defined } from '../defined.js';
import { type Exchange, type JsonObject, describe } from '../exchange.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { newIdempotencyKey } from '../scenarios.js';
import { catalogIds, unlistedVoiceId } from './voices.js';

/**
 * Acceptance at every boundary: a deployment that refuses a valid value fails here, where the refusal
 * rules cannot see it. Each value is proven by one POST that is accepted (200 completed or 202
 * processing); the suite does not wait for a 202 job, and a 200 must report what was asked. The texts
 * are short and speak for well under a second, and the longest is almost all spaces, so a whole run
 * spends about half a minute of audio (see conformance/README.md: acceptance budget).
 */
interface AcceptanceCase {
  label: string;
  body: JsonObject;
  /** What audio must report when the job completed inside the inline wait. */
  expect?: { voice?: string; speed?: number; language?: string };
}

const WORD = 'Yes.';
const ASTRAL = '\u{1F600}'; // 😀: one code point, two UTF-16 units

/**
 * Exactly `LIMITS.textMaxChars` code points, one of them outside the Basic Multilingual Plane, so the
 * UTF-16 length is one more than the limit: a server that counts UTF-16 units (JavaScript's
 * `length`) refuses it, one that counts code points as the API says accepts it. Spaces make up the
 * rest, so the deployment speaks a few words, not hours.
 */
function maxLengthText(): string {
  const head = 'Boundary. ';
  const tail = ` ${ASTRAL} end.`;
  const text = head + ' '.repeat(LIMITS.textMaxChars - [...head].length - [...tail].length) + tail;
  return text;
}

function maxLengthCases(): AcceptanceCase[] {
  return [{ label: `${LIMITS.textMaxChars.toLocaleString('en')} code points (${LIMITS.textMaxChars + 1} UTF-16 units)`, body: { text: maxLengthText() } }];
}

function shortestCases(): AcceptanceCase[] {
  return [
    { label: 'one character', body: { text: 'A' } },
    { label: 'one character outside the BMP', body: { text: ASTRAL } },
  ];
}

function speedCases(): AcceptanceCase[] {
  return [LIMITS.speedMin, LIMITS.speedMax].map((speed) => ({ label: `speed ${speed}`, body: { text: WORD, speed }, expect: { speed } }));
}

const SUPERTONIC = ['f', 'm'].flatMap((g) => [1, 2, 3, 4, 5].map((n) => `st_${g}${n}`));

/** Every st_* voice without a language (default en), and every §4.5 language on some st_* voice. */
function supertonicCases(): AcceptanceCase[] {
  const withoutLanguage = SUPERTONIC.map((voice) => ({
    label: `${voice}, no language`,
    body: { text: WORD, voice },
    expect: { voice, language: DEFAULT_SUPERTONIC_LANGUAGE },
  }));
  const withLanguage = LANGUAGE_CODES.map((language, i) => {
    const voice = defined(SUPERTONIC[i % SUPERTONIC.length], `Supertonic voice ${i % SUPERTONIC.length}`);
    return { label: `${voice}, language ${language}`, body: { text: WORD, voice, language }, expect: { voice, language } };
  });
  return [...withoutLanguage, ...withLanguage];
}

/** A voice of the Kokoro pattern for every language letter and both genders (the curated voices of §4.4). */
function kokoroCases(): AcceptanceCase[] {
  const seen = new Set<string>();
  const cases: AcceptanceCase[] = [];
  for (const v of CURATED_VOICES) {
    if (v.family !== 'kokoro' || seen.has(v.id.slice(0, 2))) continue;
    seen.add(v.id.slice(0, 2));
    cases.push({
      label: v.id,
      body: { text: WORD, voice: v.id },
      expect: { voice: v.id, language: KOKORO_LANGUAGE_BY_LETTER[v.id[0] as keyof typeof KOKORO_LANGUAGE_BY_LETTER] },
    });
  }
  return cases;
}

/**
 * An id of the Kokoro pattern that the deployment's catalog does not list (§2.3: any id matching the
 * pattern is accepted). Which voice speaks it is the deployment's to say in `audio.voice` (§2.2); the
 * language of the id is kept.
 */
async function unlistedVoiceCases(ctx: RuleContext): Promise<AcceptanceCase[]> {
  const voice = unlistedVoiceId(await catalogIds(ctx));
  const language = KOKORO_LANGUAGE_BY_LETTER[voice[0] as keyof typeof KOKORO_LANGUAGE_BY_LETTER];
  return [{ label: `${voice}, which the voice catalog does not list`, body: { text: WORD, voice }, expect: { language } }];
}

/** Why an answer is not an acceptance of the case, or undefined when it is. */
function acceptanceProblem(response: NonNullable<Exchange['response']>, c: AcceptanceCase): string | undefined {
  const { status } = response;
  const body = response.json as JsonObject | undefined;
  if (status !== 200 && status !== 202) {
    const code = body?.error?.code;
    return `refused with HTTP ${status}${typeof code === 'string' ? ` ${code}: ${String(body?.error?.message ?? '')}` : ''}`;
  }
  if (body?.success !== true) return `HTTP ${status} without success true`;
  if (typeof body.job_id !== 'string' || !UUID_PATTERN.test(body.job_id)) return 'no job_id';
  if (status === 202) return body.status === 'processing' ? undefined : `202 with status ${JSON.stringify(body.status)}`;
  if (body.status !== 'completed') return `200 with status ${JSON.stringify(body.status)}`;
  const audio = body.audio ?? {};
  const want = c.expect ?? {};
  if (want.voice !== undefined && audio.voice !== want.voice) return `audio.voice is ${JSON.stringify(audio.voice)}, not ${want.voice}`;
  if (want.speed !== undefined && audio.speed !== want.speed) return `audio.speed is ${JSON.stringify(audio.speed)}, not ${want.speed}`;
  if (want.language !== undefined && audio.language !== undefined) {
    const primary = (tag: unknown) => String(tag).toLowerCase().split('-')[0];
    if (primary(audio.language) !== primary(want.language)) return `audio.language is ${JSON.stringify(audio.language)}, not ${want.language}`;
  }
  return undefined;
}

/**
 * Sends every case at once, each on a key of its own for the POST (an acceptance key when the
 * fixtures list them; a key is reused only after its POST window), and fails with every refusal.
 */
async function mustAccept(ctx: RuleContext, cases: AcceptanceCase[]): Promise<void> {
  const results = await Promise.all(
    cases.map(async (c) => {
      const lease = await ctx.leaseForAcceptance();
      try {
        const key = defined(lease.keys[0], 'the key of an acceptance lease');
        const exchange = await ctx.post(key, c.body, { idempotencyKey: newIdempotencyKey(), label: c.label });
        const response = mustAnswer(exchange);
        mustJson(exchange);
        return { c, exchange, problem: acceptanceProblem(response, c) };
      } finally {
        lease.release();
      }
    }),
  );
  const refused = results.filter((r) => r.problem);
  ctx.cite(refused.map((r) => r.exchange));
  for (const { c, exchange } of results) {
    const spoken = (exchange.response?.json as JsonObject | undefined)?.audio?.voice;
    if (typeof c.body.voice === 'string' && typeof spoken === 'string' && spoken !== c.body.voice) {
      ctx.note(`${c.body.voice} was spoken by ${spoken}, as audio.voice says`);
    }
  }
  const processing = results.filter((r) => r.exchange.response?.status === 202).length;
  ctx.note(`${results.length} accepted values sent; ${processing} answered 202 (accepted; the suite does not wait for them)`);
  must(
    refused.length === 0,
    `${refused.length} of ${results.length} valid requests were not accepted: ${refused
      .slice(0, 6)
      .map((r) => `${r.c.label} (${describe(r.exchange)}): ${r.problem}`)
      .join('; ')}`,
  );
}

const MOCK_SKIP = 'a mock answers every valid request with its fixed examples';

export const acceptanceRules: Rule[] = [
  {
    id: 'accept.text-max-length',
    title: 'A text of exactly 500,000 characters, counted in code points (one outside the BMP, so 500,001 UTF-16 units), is accepted',
    section: '§4.1, §8 (characters are Unicode code points)',
    basis: { kind: 'document', decision: 'submitting' },
    mockSkip: MOCK_SKIP,
    full: (ctx) => mustAccept(ctx, maxLengthCases()),
  },
  {
    id: 'accept.text-shortest',
    title: 'The shortest text, one character (also one outside the BMP), is accepted',
    section: '§4.1',
    basis: { kind: 'api' },
    mockSkip: MOCK_SKIP,
    full: (ctx) => mustAccept(ctx, shortestCases()),
  },
  {
    id: 'accept.speed-bounds',
    title: 'Speed at both bounds, 0.5 and 1.5, is accepted and reported',
    section: '§4.1',
    basis: { kind: 'api' },
    mockSkip: MOCK_SKIP,
    full: (ctx) => mustAccept(ctx, speedCases()),
  },
  {
    id: 'accept.supertonic-languages',
    title: 'Every st_* voice is accepted without a language (spoken in en) and every §4.5 language is accepted on an st_* voice',
    section: '§2.3, §4.1, §4.5',
    basis: { kind: 'api' },
    mockSkip: MOCK_SKIP,
    full: (ctx) => mustAccept(ctx, supertonicCases()),
  },
  {
    id: 'accept.kokoro-voices',
    title: 'A Kokoro-pattern voice of every language letter and both genders (the curated voices of §4.4) is accepted and keeps its language',
    section: '§2.3, §4.4',
    basis: { kind: 'api' },
    mockSkip: MOCK_SKIP,
    full: (ctx) => mustAccept(ctx, kokoroCases()),
  },
  {
    id: 'accept.unlisted-voice',
    title:
      "A voice id of the pattern that the deployment's catalog does not list (af_nobody on the reference) is accepted, keeping its id's language; audio.voice names the voice that spoke it",
    section: '§2.2 audio, §2.3',
    basis: { kind: 'api' },
    mockSkip: MOCK_SKIP,
    full: async (ctx) => mustAccept(ctx, await unlistedVoiceCases(ctx)),
  },
];
