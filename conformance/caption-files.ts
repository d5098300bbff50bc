/**
 * WebVTT and SRT read back into cues, so that the captions a deployment serves can be compared with the
 * cues of its JSON timings file. Lenient where the formats allow choices (CRLF line ends, a byte-order
 * mark, cue identifiers in WebVTT, hours left out of a WebVTT time, text over several lines) and strict
 * where a player is: the WebVTT header, the timing line, SRT's comma before the milliseconds and its
 * numbering from 1.
 */

export interface ParsedCue {
  start: number;
  end: number;
  text: string;
}

export interface ParsedCaptions {
  cues: ParsedCue[];
  /** What is wrong with the file, in words; empty when it reads cleanly. */
  problems: string[];
}

const VTT_TIME = String.raw`(?:(\d{2,}):)?([0-5]\d):([0-5]\d)\.(\d{3})`;
const VTT_TIMING = new RegExp(String.raw`^${VTT_TIME}[ \t]+-->[ \t]+${VTT_TIME}(?:[ \t].*)?$`);
const SRT_TIME = String.raw`(\d{2,}):([0-5]\d):([0-5]\d),(\d{3})`;
const SRT_TIMING = new RegExp(String.raw`^${SRT_TIME}[ \t]+-->[ \t]+${SRT_TIME}[ \t]*$`);

/** The groups of one time of a timing line; only the hours may be left out (WebVTT), the rest the pattern requires. */
const seconds = (h: string | undefined, m = '', s = '', ms = '') => Number(h ?? 0) * 3600 + Number(m) * 60 + Number(s) + Number(ms) / 1000;

function blocksOf(text: string): string[] {
  return text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n+/)
    .map((block) => block.replace(/^\n+|\n+$/g, ''))
    .filter((block) => block.trim() !== '');
}

const unescapeVtt = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&nbsp;/g, '\u00a0')
    .replace(/&amp;/g, '&');

/** A WebVTT file (W3C WebVTT): the header, then cues; NOTE, STYLE and REGION blocks are passed over. */
export function parseWebVtt(text: string): ParsedCaptions {
  const problems: string[] = [];
  const cues: ParsedCue[] = [];
  const blocks = blocksOf(text);
  const header = blocks.shift() ?? '';
  if (!/^WEBVTT(?:[ \t]|\n|$)/.test(header)) problems.push(`it does not start with the WEBVTT header: ${JSON.stringify(text.slice(0, 20))}`);
  for (const block of blocks) {
    if (/^(?:NOTE|STYLE|REGION)(?:[ \t\n]|$)/.test(block)) continue;
    const lines = block.split('\n');
    const at = lines.findIndex((line) => line.includes('-->'));
    const line = at >= 0 && at <= 1 ? lines[at] : undefined;
    const timing = line === undefined ? null : VTT_TIMING.exec(line.trim());
    if (!timing) {
      problems.push(`cue ${cues.length + 1} has no valid timing line ("hh:mm:ss.ttt --> hh:mm:ss.ttt"): ${JSON.stringify(block.slice(0, 60))}`);
      continue;
    }
    const [, h1, m1, s1, ms1, h2, m2, s2, ms2] = timing;
    cues.push({ start: seconds(h1, m1, s1, ms1), end: seconds(h2, m2, s2, ms2), text: unescapeVtt(lines.slice(at + 1).join('\n')) });
  }
  return { cues, problems };
}

/** A SubRip file: numbered cues (1, 2, …), each a timing line with a comma before the milliseconds, then its text. */
export function parseSrt(text: string): ParsedCaptions {
  const problems: string[] = [];
  const cues: ParsedCue[] = [];
  for (const block of blocksOf(text)) {
    const lines = block.split('\n');
    const number = (lines[0] ?? '').trim();
    if (number !== String(cues.length + 1)) {
      problems.push(`cue ${cues.length + 1} is numbered ${JSON.stringify(number.slice(0, 20))}, not ${cues.length + 1}`);
    }
    const timing = SRT_TIMING.exec((lines[1] ?? '').trim());
    if (!timing) {
      problems.push(`cue ${cues.length + 1} has no valid timing line ("hh:mm:ss,ttt --> hh:mm:ss,ttt"): ${JSON.stringify(lines[1]?.slice(0, 40) ?? '')}`);
      continue;
    }
    const [, h1, m1, s1, ms1, h2, m2, s2, ms2] = timing;
    cues.push({ start: seconds(h1, m1, s1, ms1), end: seconds(h2, m2, s2, ms2), text: lines.slice(2).join('\n') });
  }
  return { cues, problems };
}

const ms = (t: number) => Math.round(t * 1000);
const words = (s: string) => s.replace(/\s+/gu, ' ').trim();
const clock = (t: number) => `${(ms(t) / 1000).toFixed(3)} s`;

/**
 * How the cues of a caption file differ from those of the JSON file: the same number, and each with
 * the same start and end (to the millisecond, the precision of both) and text (line breaks read as spaces).
 */
export function cueDifferences(expected: readonly ParsedCue[], actual: readonly ParsedCue[]): string[] {
  const out: string[] = [];
  if (expected.length !== actual.length) out.push(`it has ${actual.length} cues; the JSON file has ${expected.length}`);
  for (let i = 0; i < Math.min(expected.length, actual.length) && out.length < 5; i++) {
    const want = expected[i];
    const got = actual[i];
    if (!want || !got) break;
    if (ms(want.start) !== ms(got.start) || ms(want.end) !== ms(got.end)) {
      out.push(`cue ${i + 1} runs ${clock(got.start)}–${clock(got.end)}; in the JSON file ${clock(want.start)}–${clock(want.end)}`);
    }
    if (words(want.text) !== words(got.text))
      out.push(`cue ${i + 1} reads ${JSON.stringify(words(got.text))}; in the JSON file ${JSON.stringify(words(want.text))}`);
  }
  return out;
}
