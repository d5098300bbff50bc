/**
 * How the journal shows what a client sent: full API keys cut to their public part, a long text cut,
 * a body nested too deep shown as text; and a body's canonical form, to compare two sendings.
 */

/** Texts longer than this are cut in the journal (`text_truncated: true`, `text_length` the full length). */
const JOURNAL_TEXT_CHARS = 200;
/** A JSON body nested deeper than this is shown as text (`raw`), as a body that is not JSON. */
const JOURNAL_JSON_DEPTH = 100;

/**
 * A submission's body written so that the same submission sent twice compares equal: a JSON body with
 * its object keys sorted, and `timestamps: "none"` left out (the same request as without the field:
 * docs/api-rules.md#word-timings-and-captions); any other text as it is.
 */
export function canonicalBody(text: string): string {
  if (nestingDepth(text) > JOURNAL_JSON_DEPTH) return text;
  try {
    const parsed: unknown = JSON.parse(text);
    const noneAsked = parsed && typeof parsed === 'object' && !Array.isArray(parsed) && (parsed as { timestamps?: unknown }).timestamps === 'none';
    return JSON.stringify(noneAsked ? { ...(parsed as object), timestamps: undefined } : parsed, (_name, value: unknown) =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : value,
    );
  } catch {
    return text;
  }
}

/**
 * A full API key (`tts_<public_id>_<secret>`) in a text, with its underscores as written or
 * percent-encoded (a query string, a Referer, a cookie), in any letter case: the journal shows it as
 * `tts_<public_id>`, as it shows the Authorization header.
 */
const FULL_KEY = /tts(?:_|%5f)([0-9a-f]{8})(?:_|%5f)[0-9a-f]+/gi;

export const redact = (text: string) => text.replace(FULL_KEY, 'tts_$1');
export const redactRecord = (record: Record<string, string>) =>
  Object.fromEntries(Object.entries(record).map(([name, value]) => [redact(name), redact(value)]));

/**
 * The body as the journal shows it: JSON parsed, a long `text` cut (`text_length` is the length sent),
 * full keys cut to their public part. Keys are cut in the text before it is parsed (a walk of the parsed
 * value would recurse as deep as the JSON nests); one written with JSON escapes (`tts\u005f…`) shows
 * once parsed, and is cut in the parsed value written out again.
 */
export function journalBody(text: string): unknown {
  const asRaw = () => {
    const raw = redact(text);
    return raw.length > JOURNAL_TEXT_CHARS ? { raw: raw.slice(0, JOURNAL_TEXT_CHARS), raw_truncated: true, raw_length: text.length } : { raw };
  };
  // Nested deeper than JSON.stringify can write out: shown as text, as a body that is not JSON.
  if (nestingDepth(text) > JOURNAL_JSON_DEPTH) return asRaw();
  let sent: unknown;
  try {
    sent = JSON.parse(text);
  } catch {
    return asRaw();
  }
  const redacted = redact(text);
  let body: unknown = redacted === text ? sent : JSON.parse(redacted);
  const written = JSON.stringify(body);
  const cut = redact(written);
  if (cut !== written) body = JSON.parse(cut);
  if (body && typeof body === 'object' && typeof (body as { text?: unknown }).text === 'string') {
    const t = (body as { text: string }).text;
    const length = (sent as { text?: unknown }).text;
    if (t.length > JOURNAL_TEXT_CHARS)
      return { ...body, text: t.slice(0, JOURNAL_TEXT_CHARS), text_truncated: true, text_length: typeof length === 'string' ? length.length : t.length };
  }
  return body;
}

/** How deep the arrays and objects of a JSON text nest (brackets inside strings do not count). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
