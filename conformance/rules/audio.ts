import { randomUUID } from 'node:crypto';
import { isAbsoluteUrl, must, mustAnswer, mustError, mustHeader, mustJson, mustNoHeader, mustStatus, skip } from '../assertions.js';
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
  return bytes.length >= 2 && bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0;
}

function download(ctx: RuleContext, url: string, label: string, headers: Record<string, string> = {}): Promise<Exchange> {
  // No Authorization: the signed URL itself is the capability (docs/api-rules.md#jobs: download right away).
  return ctx.send({ method: 'GET', url, headers, label });
}

export const audioRules: Rule[] = [
  {
    id: 'audio.download',
    title: 'audio_url is absolute and downloads MP3 audio (audio/mpeg) without an API key',
    section: '§2.2 audio_url, §4.9',
    basis: { kind: 'api' },
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const exchange = await download(ctx, await audioUrl(ctx), 'download audio_url');
      const answer = mustAnswer(exchange);
      mustStatus(exchange, 200);
      must(/^audio\/mpeg\b/i.test(answer.contentType), `${describe(exchange)}: Content-Type is "${answer.contentType}", not audio/mpeg`);
      must(answer.bytes.length > 0, `${describe(exchange)}: empty body`);
      must(
        looksLikeMp3(answer.bytes),
        `${describe(exchange)}: the body starts ${answer.bytes.subarray(0, 4).toString('hex')}, neither an ID3 tag nor an MPEG frame sync`,
      );
    },
  },
  {
    id: 'audio.tampered-signature',
    title: 'An audio_url whose signature was altered gets 404 NOT_FOUND, the same answer as the URL of audio that does not exist',
    section: '§2.2 audio_url, §7 (NOT_FOUND 404; decided in the OpenAPI document)',
    basis: { kind: 'document', decision: 'audio-urls' },
    covers: { codes: ['NOT_FOUND'], statuses: [404] },
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const url = new URL(await audioUrl(ctx));
      const sig = url.searchParams.get('sig');
      must(sig, `audio_url has no sig parameter: ${url.pathname}${url.search.replace(/=[^&]*/g, '=…')}`);
      const flipped = sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A');
      const tamperedUrl = new URL(url);
      tamperedUrl.searchParams.set('sig', flipped);
      const tampered = await download(ctx, tamperedUrl.toString(), 'download with an altered sig');
      const a = mustError(tampered, 'NOT_FOUND');
      mustNoHeader(tampered, 'www-authenticate');
      // Another job's id under the same signature: audio that, for this URL, does not exist.
      const foreign = new URL(url);
      foreign.pathname = foreign.pathname.replace(/[0-9a-f-]{36}(?=\.mp3$)/, randomUUID());
      const missing = await download(ctx, foreign.toString(), 'download of a job id that has no audio');
      const b = mustError(missing, 'NOT_FOUND');
      must(
        a.error.message === b.error.message,
        `${describe(tampered)}: a tampered URL answers "${a.error.message}", audio that does not exist "${b.error.message}": the answer tells them apart`,
      );
    },
  },
  {
    id: 'audio.expired-url',
    title: 'An audio_url whose expiry has passed gets 404 NOT_FOUND with the same body as a tampered one, while a fresh URL of the same job downloads',
    section: '§2.2 audio_url, §7 (NOT_FOUND 404; decided in the OpenAPI document)',
    basis: { kind: 'document', decision: 'audio-urls' },
    covers: { codes: ['NOT_FOUND'], statuses: [404] },
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const declared = ctx.fixtures.expired_audio;
      if (!declared)
        skip('fixture', 'the fixtures file has no expired_audio (a completed job and an expired audio_url of it; agent-tts-admin seed writes one)');
      const expires = Number(new URL(declared.audio_url).searchParams.get('expires'));
      if (Number.isFinite(expires) && expires * 1000 > ctx.time.now())
        ctx.note(`expired_audio.audio_url carries expires=${expires}, still in the future by the deployment's clock as this machine reckons it`);
      // The job and its audio exist: a fresh URL downloads, so a refusal of the old one is its expiry.
      const get = await ctx.getJob(declared.key, declared.job_id, { label: 'GET the job of the expired URL' });
      mustStatus(get, 200);
      const job = mustJson(get);
      must(
        job.status === 'completed' && isAbsoluteUrl(job.audio_url),
        `${describe(get)}: the job of expired_audio is ${JSON.stringify(job.status)}, not completed with an audio_url`,
      );
      const fresh = await download(ctx, job.audio_url, 'download a fresh URL of that job');
      mustStatus(fresh, 200);
      must(looksLikeMp3(mustAnswer(fresh).bytes), `${describe(fresh)}: the fresh URL did not download MP3 audio`);
      const expired = await download(ctx, declared.audio_url, 'download the expired URL');
      const a = mustError(expired, 'NOT_FOUND');
      mustNoHeader(expired, 'www-authenticate');
      const tamperedUrl = new URL(job.audio_url);
      const sig = tamperedUrl.searchParams.get('sig') ?? '';
      tamperedUrl.searchParams.set('sig', sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A'));
      const tampered = await download(ctx, tamperedUrl.toString(), 'the fresh URL with an altered sig, for comparison');
      const b = mustError(tampered, 'NOT_FOUND');
      must(
        a.error.message === b.error.message,
        `${describe(expired)}: an expired URL answers "${a.error.message}", a tampered one "${b.error.message}": the answer tells them apart`,
      );
    },
  },
  {
    id: 'audio.range',
    title: 'The audio supports byte ranges: 206 with Content-Range, and 416 past the end',
    section: 'OpenAPI downloadAudio',
    basis: { kind: 'document', decision: 'audio-urls' },
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
      const sent = mustAnswer(partial).bytes.length;
      must(sent === end + 1, `${describe(partial)}: ${sent} bytes for the range 0-${end}`);
      const beyond = await download(ctx, url, 'range past the end', { range: `bytes=${size}-` });
      mustStatus(beyond, 416);
      must(mustHeader(beyond, 'content-range') === `bytes */${size}`, `${describe(beyond)}: Content-Range is not "bytes */${size}"`);
      // The documented exception to the table: 416 (range protocol) with the INVALID_REQUEST body.
      const body = mustJson(beyond);
      must(body.success === false && body.error?.code === 'INVALID_REQUEST', `${describe(beyond)}: a 416 without the INVALID_REQUEST error body`);
    },
  },
  {
    id: 'audio.head',
    title:
      'HEAD of audio_url answers as its GET does, without a body: 200, audio/mpeg, the same Content-Length, Accept-Ranges bytes, Cache-Control private with a max-age, and X-Request-Id',
    section: '§2.2 audio_url',
    basis: { kind: 'document', decision: 'audio-urls' },
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const url = await audioUrl(ctx);
      const get = await download(ctx, url, 'GET the audio, to compare with HEAD');
      mustStatus(get, 200);
      const head = await ctx.send({ method: 'HEAD', url, label: 'HEAD the audio' });
      mustStatus(head, 200);
      const answer = mustAnswer(head);
      must(answer.bytes.length === 0, `${describe(head)}: HEAD answered with a body of ${answer.bytes.length} bytes`);
      must(/^audio\/mpeg\b/i.test(answer.contentType), `${describe(head)}: Content-Type is "${answer.contentType}", not audio/mpeg`);
      const length = mustHeader(head, 'content-length');
      const sent = mustAnswer(get).bytes.length;
      must(length === String(sent), `${describe(head)}: Content-Length is ${length}, but the GET of the same URL sent ${sent} bytes`);
      must(/^bytes$/i.test(mustHeader(head, 'accept-ranges')), `${describe(head)}: Accept-Ranges is not "bytes"`);
      const cache = mustHeader(head, 'cache-control');
      must(/^private, max-age=\d+$/.test(cache), `${describe(head)}: Cache-Control is "${cache}", not "private, max-age=<seconds until the URL expires>"`);
      mustHeader(head, 'x-request-id');
    },
  },
];
