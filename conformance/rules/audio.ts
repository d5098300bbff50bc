import { isAbsoluteUrl, must, mustAnswer, mustHeader, mustJson, mustStatus } from '../assertions.js';
import { type Exchange, describe } from '../exchange.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { completedBody, inlineJob } from '../scenarios.js';

const MOCK_SKIP = 'a mock serves no audio file';

async function audioUrl(ctx: RuleContext): Promise<string> {
  const body = completedBody(await inlineJob(ctx));
  must(isAbsoluteUrl(body.audio_url), `audio_url is not an absolute URL: ${JSON.stringify(body.audio_url)}`);
  return body.audio_url;
}

/** MP3: an ID3v2 tag, or an MPEG audio frame (11 set sync bits, 0xFFE). */
export function looksLikeMp3(bytes: Buffer): boolean {
  if (bytes.length >= 3 && bytes.subarray(0, 3).toString('latin1') === 'ID3') return true;
  return bytes.length >= 2 && bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0;
}

function download(ctx: RuleContext, url: string, label: string, headers: Record<string, string> = {}): Promise<Exchange> {
  // No Authorization: the signed URL itself is the capability (spec §2.2: download right away).
  return ctx.send({ method: 'GET', url, headers, label });
}

export const audioRules: Rule[] = [
  {
    id: 'audio.download',
    title: 'audio_url is absolute and downloads MP3 audio (audio/mpeg) without an API key',
    section: '§2.2 audio_url, §4.9',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const exchange = await download(ctx, await audioUrl(ctx), 'download audio_url');
      const answer = mustAnswer(exchange);
      mustStatus(exchange, 200);
      must(/^audio\/mpeg\b/i.test(answer.contentType), `${describe(exchange)}: Content-Type is "${answer.contentType}", not audio/mpeg`);
      must(answer.bytes.length > 0, `${describe(exchange)}: empty body`);
      must(looksLikeMp3(answer.bytes), `${describe(exchange)}: the body starts ${answer.bytes.subarray(0, 4).toString('hex')}, neither an ID3 tag nor an MPEG frame sync`);
    },
  },
  {
    id: 'audio.tampered-signature',
    title: 'An audio_url whose signature was altered is refused with 403 and the error body',
    section: '§2.2 audio_url (signature decided in the OpenAPI document)',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const url = new URL(await audioUrl(ctx));
      const sig = url.searchParams.get('sig');
      must(sig, `audio_url has no sig parameter: ${url.pathname}${url.search.replace(/=[^&]*/g, '=…')}`);
      const flipped = sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A');
      url.searchParams.set('sig', flipped);
      const exchange = await download(ctx, url.toString(), 'download with an altered sig');
      mustStatus(exchange, 403);
      const body = mustJson(exchange);
      must(body.success === false && typeof body.error?.code === 'string' && typeof body.error?.message === 'string', `${describe(exchange)}: not the error body`);
    },
  },
  {
    id: 'audio.range',
    title: 'The audio supports byte ranges: 206 with Content-Range, and 416 past the end',
    section: 'OpenAPI downloadAudio',
    covers: { statuses: [206, 416] },
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const url = await audioUrl(ctx);
      const partial = await download(ctx, url, 'first 100 bytes', { range: 'bytes=0-99' });
      mustStatus(partial, 206);
      const contentRange = mustHeader(partial, 'content-range');
      const match = /^bytes 0-(\d+)\/(\d+)$/.exec(contentRange);
      must(match, `${describe(partial)}: Content-Range "${contentRange}" is not "bytes 0-<end>/<size>"`);
      const end = Number(match[1]);
      const size = Number(match[2]);
      must(partial.response!.bytes.length === end + 1, `${describe(partial)}: ${partial.response!.bytes.length} bytes for the range 0-${end}`);
      const beyond = await download(ctx, url, 'range past the end', { range: `bytes=${size}-` });
      mustStatus(beyond, 416);
      must(mustHeader(beyond, 'content-range') === `bytes */${size}`, `${describe(beyond)}: Content-Range is not "bytes */${size}"`);
    },
  },
];
