import { randomUUID } from 'node:crypto';
import { AUDIO_PATH_PREFIX } from '../../src/contract/limits.js';
import { must, mustAnswer, mustHeader, mustStatus } from '../assertions.js';
import { type Exchange, describe, header, jsonBody } from '../exchange.js';
import { locate } from '../exchange-scope.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { type StreamedJob, mustBeStreamUrl, streamedJob } from '../stream-scenarios.js';
import { looksLikeMp3 } from './audio.js';
import { type Query, mustRefuse, tampered, withQuery } from './audio-refusals.js';

/**
 * Streaming audio, an extension beyond the base API (docs/api-rules.md#streaming-audio): every
 * processing answer carries a signed `stream_url`, with the audio URL's expiry, that serves the audio
 * while the job is made and ends with exactly the bytes of its `audio_url`; refused as the audio URL
 * is. Judged on the long job (scenarios.ts), only where a processing answer carries `stream_url`.
 */
const SECTION = 'Extension: streaming audio (docs/api-rules.md#streaming-audio; refusals as docs/api-rules.md#audio-urls)';
const BASIS = { kind: 'extension', decision: 'streaming-audio' } as const;
const MOCK_SKIP = 'a mock’s jobs take no time, and it knows no signature';

const expiresOf = (url: URL): number => Number(url.searchParams.get('expires'));
const query = (url: URL): Query => ({ expires: url.searchParams.get('expires') ?? undefined, sig: url.searchParams.get('sig') ?? undefined });
/** The deployment's time, in seconds, when the answer of `exchange` arrived. */
const answeredAt = (ctx: RuleContext, exchange: Exchange): number => ctx.time.at(Date.parse(exchange.startedAt) + exchange.ms) / 1000;

/** The answer conforms to the OpenAPI document's streamAudio (status, media type, JSON body, headers). */
function mustConform(ctx: RuleContext, exchange: Exchange): void {
  const { path } = locate(ctx.target, exchange);
  const { operation } = ctx.doc.match(exchange.request.method, path);
  must(operation?.operationId === 'streamAudio', `${describe(exchange)}: not a stream URL of the document (/v1/stream/<job_id>.mp3)`);
  const violations = ctx.doc.checkResponse(exchange, path);
  must(violations.length === 0, `${describe(exchange)}: ${violations.slice(0, 4).join('; ')}`);
}

/** A streamed answer as documented: 200 audio/mpeg, Cache-Control no-store, no Content-Length, MP3 bytes. */
function mustBeStreamAnswer(ctx: RuleContext, exchange: Exchange): Buffer {
  mustStatus(exchange, 200);
  const answer = mustAnswer(exchange);
  must(/^audio\/mpeg\b/i.test(answer.contentType), `${describe(exchange)}: Content-Type is "${answer.contentType}", not audio/mpeg`);
  const cache = mustHeader(exchange, 'cache-control');
  must(cache === 'no-store', `${describe(exchange)}: Cache-Control is "${cache}", not no-store (the body grows while the job runs)`);
  must(
    header(exchange, 'content-length') === undefined,
    `${describe(exchange)}: a Content-Length (${header(exchange, 'content-length')}) on a stream, whose length is not known while the job runs`,
  );
  must(looksLikeMp3(answer.bytes), `${describe(exchange)}: the body starts ${answer.bytes.subarray(0, 4).toString('hex')}, not MP3 audio`);
  mustConform(ctx, exchange);
  return answer.bytes;
}

/** The stream ended normally (not cut off) and holds exactly the bytes the completed job's audio_url serves. */
function mustEqualAudio(streamed: Exchange, audio: Exchange, what: string): void {
  must(!streamed.error, `${describe(streamed)}: ${what} ended abnormally (${streamed.error}) although the job completed`);
  mustStatus(audio, 200);
  const [stream, file] = [mustDigest(streamed), mustDigest(audio)];
  if (stream.sha256 === file.sha256 && stream.size === file.size) return;
  const [head, fileHead] = [mustAnswer(streamed).bytes, mustAnswer(audio).bytes];
  let at = 0;
  while (at < head.length && at < fileHead.length && head[at] === fileHead[at]) at++;
  const where = at < Math.min(head.length, fileHead.length) ? `they differ from byte ${at}` : 'their first 64 KiB are alike, not the rest';
  must(false, `${describe(streamed)}: ${what} sent ${stream.size} bytes, the audio_url ${file.size} (${describe(audio)}); ${where}`);
}

/** The digest of a body sent with `digest` (stream-scenarios.ts, and here). */
function mustDigest(exchange: Exchange): { sha256: string; size: number } {
  const digest = mustAnswer(exchange).digest;
  must(digest, `${describe(exchange)}: the body was not digested`);
  return digest;
}

export const streamRules: Rule[] = [
  {
    id: 'stream.url-issued',
    title:
      'The 202 and every processing poll carry stream_url: absolute, /v1/stream/<job_id>.mp3, signed with the audio URL’s expiry; the completed answer carries none',
    section: SECTION,
    basis: BASIS,
    extension: 'streaming',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const job: StreamedJob = await streamedJob(ctx);
      const processing = [job.accepted, ...(job.whileStreaming ? [job.whileStreaming] : []), ...job.polls].filter((e) => jsonBody(e)?.status === 'processing');
      let last: { exchange: Exchange; url: URL } = { exchange: job.accepted, url: job.url };
      for (const exchange of processing) {
        must(jsonBody(exchange)?.stream_url !== undefined, `${describe(exchange)}: a processing answer without stream_url (the 202 carried one)`);
        const url = mustBeStreamUrl(exchange, jsonBody(exchange)?.stream_url, job.jobId);
        if (Date.parse(exchange.startedAt) >= Date.parse(last.exchange.startedAt)) last = { exchange, url };
      }
      must(job.completedBody.stream_url === undefined, `${describe(job.completed)}: the completed answer carries a stream_url (its audio_url serves the file)`);
      // Signed at the instant each answer was made, with the expiry audio_url would have then: the
      // completed answer's audio_url, issued later, expires no earlier, and later by no more than the
      // time between the two answers.
      const streamExpires = expiresOf(last.url);
      const audioExpires = expiresOf(new URL(job.completedBody.audio_url));
      const between = answeredAt(ctx, job.completed) - answeredAt(ctx, last.exchange);
      must(
        streamExpires <= audioExpires,
        `${describe(last.exchange)}: stream_url expires at ${streamExpires}, after the audio_url issued later (${audioExpires}, ${describe(job.completed)})`,
      );
      must(
        audioExpires - streamExpires <= Math.ceil(between) + 2,
        `${describe(last.exchange)}: stream_url expires at ${streamExpires}, ${audioExpires - streamExpires} s before the audio_url issued ${between.toFixed(1)} s later (${describe(job.completed)}): not the audio URL's lifetime`,
      );
      ctx.note(
        `${processing.length} processing answers carried a stream_url; the last expires ${audioExpires - streamExpires} s before the completed audio_url`,
      );
    },
  },
  {
    id: 'stream.bytes-before-completion',
    title:
      'A processing job’s stream_url answers 200 audio/mpeg, Cache-Control no-store, without Content-Length, and sends audio while the job is still processing',
    section: SECTION,
    basis: BASIS,
    extension: 'streaming',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const job = await streamedJob(ctx);
      mustBeStreamAnswer(ctx, job.stream);
      must(job.stream.firstBodyMs !== undefined, `${describe(job.stream)}: no byte of the body arrived`);
      if (!job.whileStreaming) {
        ctx.note(
          'on a test clock a job is made in one instant, when the clock reaches its end: the stream, joined while the job was processing, sent its audio then; bytes before completion are judged against a deployment without a test clock',
        );
        return;
      }
      const probe = job.whileStreaming;
      mustStatus(probe, 200);
      const status = jsonBody(probe)?.status;
      must(
        status === 'processing',
        `${describe(job.stream)}: the first streamed bytes arrived ${job.stream.firstBodyMs} ms after the stream was opened, and the job was ${JSON.stringify(status)} by then (${describe(probe)}): no audio came while it ran. (A deployment fast enough to finish the long job first needs a longer --long-text-chars.)`,
      );
      ctx.note(
        `the first bytes arrived ${job.stream.firstBodyMs} ms after the stream was opened, the job still processing (${describe(probe)}); the stream ended after ${job.stream.ms} ms with ${mustAnswer(job.stream).bytes.length} bytes`,
      );
    },
  },
  {
    id: 'stream.equals-audio',
    title: 'The stream of a processing job ends normally, once the job is completed, with exactly the bytes its audio_url serves',
    section: SECTION,
    basis: BASIS,
    extension: 'streaming',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const job = await streamedJob(ctx);
      mustEqualAudio(job.stream, job.audio, 'the stream listened to from the 202');
    },
  },
  {
    id: 'stream.completed-serves-file',
    title: 'The stream_url of a job that has completed serves the file: 200 audio/mpeg, exactly the bytes of its audio_url',
    section: SECTION,
    basis: BASIS,
    extension: 'streaming',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const job = await streamedJob(ctx);
      const late = await ctx.send({ method: 'GET', url: job.url.toString(), label: 'open the 202’s stream_url again, the job completed', digest: true });
      mustBeStreamAnswer(ctx, late);
      mustEqualAudio(late, job.audio, 'the stream of the completed job');
    },
  },
  {
    id: 'stream.url-refused',
    title:
      'A stream URL that was tampered with, re-dated, under the audio URL’s query or of an unknown job gets 404 NOT_FOUND with one message, and a malformed one a message naming the part at fault; its query opens no audio URL',
    section: SECTION,
    basis: BASIS,
    covers: { codes: ['NOT_FOUND'], statuses: [404] },
    extension: 'streaming',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const job = await streamedJob(ctx);
      const { expires, sig } = query(job.url) as Required<Query>;
      const audio = new URL(job.completedBody.audio_url);
      const answers: [string, string][] = [];
      const refuse = async (what: string, url: string) => {
        const exchange = await ctx.send({ method: 'GET', url, label: `open a stream URL ${what}` });
        const message = mustRefuse(exchange);
        if (new URL(url).pathname.startsWith(AUDIO_PATH_PREFIX)) return message;
        mustConform(ctx, exchange);
        answers.push([what, message]);
        return message;
      };
      await refuse('with one character of its sig changed', withQuery(job.url, { expires, sig: tampered(sig) }));
      await refuse('with its expiry moved an hour later', withQuery(job.url, { expires: String(Number(expires) + 3600), sig }));
      await refuse('under the audio URL’s query', withQuery(job.url, query(audio)));
      const unknown = new URL(job.url);
      unknown.pathname = unknown.pathname.replace(/[^/]+$/, `${randomUUID()}.mp3`);
      await refuse('of a job that does not exist, under the issued query', unknown.toString());
      await refuse('(the audio URL under the stream URL’s query)', withQuery(audio, query(job.url)));
      const [[firstWhat, firstMessage] = ['', ''], ...rest] = answers;
      for (const [what, message] of rest) {
        must(message === firstMessage, `a stream URL ${firstWhat} answers "${firstMessage}", one ${what} "${message}": the answer tells them apart`);
      }
      const malformed: [string, Query, 'expires' | 'sig'][] = [
        ['expires that is not a number', { expires: 'soon', sig }, 'expires'],
        ['no sig', { expires }, 'sig'],
        ['sig cut to 20 characters', { expires, sig: sig.slice(0, 20) }, 'sig'],
      ];
      for (const [what, q, part] of malformed) {
        const message = await refuse(`with ${what}`, withQuery(job.url, q));
        must(
          new RegExp(`\\b${part}\\b`, 'i').test(message),
          `a stream URL with ${what} is refused with "${message}", which does not name ${part}, the part at fault`,
        );
      }
    },
  },
];
