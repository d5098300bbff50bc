import { type Answer, type FaultSpec, type Json, type Seen, captionFile, isCaptions } from './common.js';

/** What the word-timings and caption faults share: the extension's flag, the files' shapes, edits of their URLs. */
export const EXTENSION_REQUIRED = ['--extensions', 'required'];

/** The timings of the first completed answer of each job: what the stale-URL fault hands out again. */
export const firstTimings = new Map<string, Json>();

/** The timings JSON file of a caption download (its words and cues), when this answer is one. */
export const timingsFile = (s: Seen, json: Json) => (isCaptions(s) && Array.isArray(json?.words) && Array.isArray(json?.cues) ? json : undefined);

/** The caption file's text when this answer is one of that media type. */
export function captionText(s: Seen, a: Answer, mediaType: string): string | undefined {
  return isCaptions(s) && a.status === 200 && String(a.headers['content-type'] ?? '').startsWith(mediaType) ? a.body.toString('utf8') : undefined;
}

export const setText = (a: Answer, text: string) => {
  a.body = Buffer.from(text);
  return true;
};

/** Every URL of `timings` passed through `edit`. */
export function editTimingsUrls(json: Json, edit: (url: URL) => void): void {
  for (const field of ['json_url', 'vtt_url', 'srt_url']) {
    if (typeof json.timings[field] !== 'string') continue;
    const url = new URL(json.timings[field]);
    edit(url);
    json.timings[field] = url.toString();
  }
}

/** Swaps in the fresh query of the requested caption file when `accepts` says this query should be accepted. */
export function acceptCaptionQuery(
  accepts: (query: URLSearchParams, fresh: URLSearchParams, s: Seen, file: string) => boolean,
): NonNullable<FaultSpec['rewrite']> {
  return (s, url, p) => {
    const file = isCaptions(s) ? captionFile(s.path) : undefined;
    const fresh = file ? p.freshCaptions.get(file) : undefined;
    if (!file || !fresh || s.query === fresh || !accepts(new URLSearchParams(s.query), new URLSearchParams(fresh), s, file)) return false;
    url.search = fresh;
    return true;
  };
}

export const shiftMillis = (clock: string, ms: number) => {
  const [h, m, rest] = clock.split(':');
  const total = Number(h) * 3_600_000 + Number(m) * 60_000 + Math.round(Number(rest) * 1000) + ms;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(total / 3_600_000))}:${pad(Math.floor(total / 60_000) % 60)}:${pad(Math.floor(total / 1000) % 60)}.${pad(total % 1000, 3)}`;
};
