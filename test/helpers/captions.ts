import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DecodedAudio, rms } from './audio.js';

/** One cue as a caption file gives it: times in seconds and the text. */
export interface ParsedCue {
  start: number;
  end: number;
  text: string;
}

const seconds = (h: string, m: string, s: string, ms: string) => Number(h) * 3600 + Number(m) * 60 + Number(s) + Number(ms) / 1000;

/**
 * Reads WebVTT (with `.` before the milliseconds) or SRT (with `,`), independently of the code that
 * writes them: the header, blank-line separated blocks, an optional identifier line, the timing line,
 * then the text lines. Throws on a block it cannot read.
 */
export function parseCaptions(text: string, format: 'vtt' | 'srt'): ParsedCue[] {
  const separator = format === 'vtt' ? '\\.' : ',';
  const timing = new RegExp(`^(\\d{2}):(\\d{2}):(\\d{2})${separator}(\\d{3}) --> (\\d{2}):(\\d{2}):(\\d{2})${separator}(\\d{3})$`);
  const blocks = text
    .replace(/\r\n/g, '\n')
    .trim()
    .split(/\n{2,}/);
  if (format === 'vtt' && !/^WEBVTT( |\t|$)/.test(blocks.shift() ?? '')) throw new Error('not WebVTT: the first line is not "WEBVTT"');
  return blocks.map((block) => {
    const lines = block.split('\n');
    const at = lines.findIndex((line) => timing.test(line));
    if (at < 0 || at > 1) throw new Error(`no timing line in the block ${JSON.stringify(block)}`);
    const m = timing.exec(lines[at]!)!;
    const cueText = lines.slice(at + 1).join(' ');
    const unescaped = format === 'vtt' ? cueText.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&') : cueText;
    return { start: seconds(m[1]!, m[2]!, m[3]!, m[4]!), end: seconds(m[5]!, m[6]!, m[7]!, m[8]!), text: unescaped };
  });
}

/** What is wrong with cues for a text and an audio of `durationSeconds`: times increasing and inside the audio, the text joined back. */
export function cueProblems(cues: ParsedCue[], text: string, durationSeconds: number): string[] {
  const problems: string[] = [];
  if (cues.length === 0) problems.push('no cues');
  cues.forEach((cue, i) => {
    if (!(cue.end > cue.start)) problems.push(`cue ${i + 1} ends at ${cue.end}, not after its start ${cue.start}`);
    const next = cues[i + 1];
    if (next && !(next.start >= cue.end)) problems.push(`cue ${i + 2} starts at ${next.start}, before cue ${i + 1} ends at ${cue.end}`);
    if (cue.start < 0 || cue.end > durationSeconds + 0.001)
      problems.push(`cue ${i + 1} (${cue.start}–${cue.end}) is outside the audio's 0–${durationSeconds} s`);
  });
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
  if (squash(cues.map((c) => c.text).join(' ')) !== squash(text))
    problems.push(`the cues' text "${squash(cues.map((c) => c.text).join(' '))}" is not the text`);
  return problems;
}

/** The level (RMS) of decoded audio between two times, in seconds. */
function levelBetween(audio: DecodedAudio, from: number, to: number): number {
  const a = Math.max(0, Math.floor(from * audio.sampleRate));
  const b = Math.min(audio.samples.length, Math.ceil(to * audio.sampleRate));
  return b > a ? rms(audio.samples.subarray(a, b)) : 0;
}

/**
 * The level of the speech inside the cues against the level outside them (before the first, between
 * cues, after the last): captions in step with the audio have the speech inside and the silences outside.
 */
export function insideOutside(audio: DecodedAudio, cues: ParsedCue[]): { inside: number; outside: number } {
  const inside = cues.map((c) => [c.start, c.end] as const);
  const outside: Array<readonly [number, number]> = [];
  let at = 0;
  for (const [start, end] of inside) {
    if (start > at) outside.push([at, start]);
    at = end;
  }
  if (audio.durationSeconds > at) outside.push([at, audio.durationSeconds]);
  const level = (spans: ReadonlyArray<readonly [number, number]>) => {
    const total = spans.reduce((sum, [a, b]) => sum + (b - a), 0);
    return total > 0 ? Math.sqrt(spans.reduce((sum, [a, b]) => sum + levelBetween(audio, a, b) ** 2 * (b - a), 0) / total) : 0;
  };
  return { inside: level(inside), outside: level(outside) };
}

/**
 * A deployment of the base API only, made from the reference server at `target`: every request is
 * passed through, and the `timings` of job answers are dropped, as a service without the word-timings
 * extension (which ignores the unknown `timestamps` field) answers.
 */
export function withoutTimings(target: string): Promise<{ url: string; close(): Promise<void> }> {
  return withoutFields(target, ['timings']);
}

/**
 * As withoutTimings, dropping `fields` from the JSON answers: `['stream_url']` makes a service without
 * the streaming extension.
 */
export async function withoutFields(target: string, fields: readonly string[]): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && k !== 'host' && k !== 'content-length'),
        ) as Record<string, string>;
        const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
        let body = Buffer.from(await answer.arrayBuffer());
        if (answer.headers.get('content-type')?.includes('application/json')) {
          const json = JSON.parse(body.toString()) as Record<string, unknown>;
          for (const field of fields) delete json[field];
          body = Buffer.from(JSON.stringify(json));
        }
        const out: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (!['content-length', 'content-encoding', 'transfer-encoding'].includes(name)) out[name] = value;
        });
        res.writeHead(answer.status, { ...out, 'content-length': String(body.length) });
        res.end(body);
      } catch (error) {
        res.writeHead(502).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
