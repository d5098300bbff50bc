import { API_PATH } from '../../src/contract/limits.js';
import type { GeneratedCase } from './cases.js';
import type { Json, Offered, RequestSchemas } from './request-schemas.js';

/**
 * The coverage phase of generated.requests, run before the random draws (as Schemathesis's coverage
 * phase is): submissions chosen, not drawn, so that every value of every enum of the body and every
 * boundary of its numbers is sent at least once, and every pair of a language with a speed at or next to
 * a bound and of a voice family with each bound, where a fault that lives in a combination of fields
 * hides. It is the same on every run: a failure it finds comes back with the same command.
 *
 * Budget: one valid submission per pair of a language and a speed next to a bound (31 × 2 on the
 * document), two per voice family (its bounds: 10 families on the reference), each a text of a few
 * characters; and one refusal per bound crossed, enum value left out or pattern broken, which takes no
 * POST quota.
 */

/** The text of every coverage case: a few characters, so the phase spends seconds of audio. */
const TEXT = 'Hi.';

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The voice families of the offered voices that match the document's pattern: `st_` and each two-letter Kokoro prefix, with their ids. */
function voiceFamilies(pattern: RegExp, offered: Offered): Map<string, string[]> {
  const families = new Map<string, string[]>();
  for (const id of offered.voices) {
    if (!pattern.test(id)) continue;
    const family = id.startsWith('st_') ? 'st' : id.slice(0, 1);
    families.set(family, [...(families.get(family) ?? []), id]);
  }
  return families;
}

/** A POST of `body` on a key, under a fresh Idempotency-Key, expected to be accepted or refused. */
const submission = (body: Record<string, unknown>, expect: GeneratedCase['expect'], why: string): GeneratedCase => ({
  method: 'POST',
  path: API_PATH,
  auth: 'key',
  idempotencyKey: { kind: 'fresh' },
  contentType: 'application/json',
  body: JSON.stringify(body),
  expect,
  why,
});

const valid = (body: Record<string, unknown>, i: number): GeneratedCase =>
  submission(
    body,
    'accept',
    `coverage case ${i + 1}: ${Object.entries(body)
      .filter(([k]) => k !== 'text')
      .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
      .join(', ')}`,
  );

const refused = (body: Record<string, unknown>, why: string): GeneratedCase => submission(body, 'reject', why);

/** The coverage cases of a document and a deployment's voices, in the order they are sent. */
export function coverageCases(schemas: RequestSchemas, offered: Offered): GeneratedCase[] {
  const props: Record<string, Json> = schemas.properties;
  const speed = props.speed;
  const language = props.language;
  const voicePattern = new RegExp(props.voice?.pattern ?? '.*');
  const families = voiceFamilies(voicePattern, offered);
  const st = families.get('st') ?? [];
  const min: number = speed?.minimum ?? 0.5;
  const max: number = speed?.maximum ?? 1.5;
  const nearBounds = [round2(min + 0.01), round2(max - 0.01)];
  // The enums of the body other than language (timestamps), cycled through the valid cases: every value once at least.
  const otherEnums = Object.entries(props).filter(([name, s]) => name !== 'language' && Array.isArray(s?.enum));
  const bodies: Record<string, unknown>[] = [];
  // Every language with both speeds next to a bound, on the voices that take a language (st_*), cycled.
  if (speed && Array.isArray(language?.enum) && st.length > 0) {
    for (const code of language.enum as string[]) for (const s of nearBounds) bodies.push({ voice: st[bodies.length % st.length], language: code, speed: s });
  } else if (Array.isArray(language?.enum)) {
    for (const code of language.enum as string[]) bodies.push({ language: code });
  }
  // Every voice family at both bounds (a Kokoro voice without a language: it speaks its own).
  for (const [, ids] of families) {
    if (speed) for (const s of [min, max]) bodies.push({ voice: ids[0], speed: s });
    else bodies.push({ voice: ids[0] });
  }
  const cases = bodies.map((body, i) => {
    const withEnums: Record<string, unknown> = { text: TEXT, ...body };
    for (const [name, s] of otherEnums) withEnums[name] = s.enum[i % s.enum.length];
    return valid(withEnums, i);
  });
  // Each bound crossed, by a hundredth; a language outside the enum; a voice and a text outside their patterns.
  if (speed) {
    cases.push(refused({ text: TEXT, speed: round2(min - 0.01) }, `speed ${round2(min - 0.01)} is below the minimum ${min}`));
    cases.push(refused({ text: TEXT, speed: round2(max + 0.01) }, `speed ${round2(max + 0.01)} is above the maximum ${max}`));
  }
  if (Array.isArray(language?.enum) && st[0]) {
    cases.push(refused({ text: TEXT, voice: st[0], language: 'xx' }, `language "xx" is not one of the document's ${language.enum.length} values`));
  }
  if (props.voice?.pattern) cases.push(refused({ text: TEXT, voice: 'st_f6' }, `voice "st_f6" does not match the document's pattern ${props.voice.pattern}`));
  cases.push(refused({ text: '' }, 'text is empty (minLength 1)'));
  return cases;
}
