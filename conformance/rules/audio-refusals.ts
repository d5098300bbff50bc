import { randomUUID } from 'node:crypto';
import { isAbsoluteUrl, must, mustAnswer, mustError, mustHeader, mustJson, mustMeta, mustNoHeader, mustStatus } from '../assertions.js';
import { type Exchange, describe } from '../exchange.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { completedBody, inlineJob } from '../scenarios.js';
import { looksLikeMp3 } from './audio.js';

/**
 * Every refusal of an audio URL has one documented answer (docs/api-rules.md#audio-urls): 404
 * NOT_FOUND with the error body and `meta`, whatever the reason — malformed, cut short, tampered,
 * expired, an unknown job, audio deleted by retention — so that a client that refetches on 404 (GET
 * the job for a fresh audio_url) recovers from every one. The URLs are made from an audio_url the
 * deployment issued, so the rules hold for any deployment.
 */
const MOCK_SKIP = 'a mock serves no audio file and knows no signature';
const SECTION = '§2.2 audio_url, §7 (NOT_FOUND 404; decided in docs/api-rules.md#audio-urls)';

interface Issued {
  key: string;
  jobId: string;
  url: URL;
  expires: string;
  sig: string;
}

async function issued(ctx: RuleContext): Promise<Issued> {
  const job = await inlineJob(ctx);
  const body = completedBody(job);
  must(isAbsoluteUrl(body.audio_url), `audio_url is not an absolute URL: ${JSON.stringify(body.audio_url)}`);
  const url = new URL(body.audio_url);
  const expires = url.searchParams.get('expires');
  const sig = url.searchParams.get('sig');
  must(expires && sig, `audio_url carries no expires and sig: ${url.pathname}${url.search.replace(/=[^&]*/g, '=…')}`);
  return { key: job.key, jobId: body.job_id, url, expires, sig };
}

export type Query = { expires?: string; sig?: string };

/** The URL with its query set to exactly these parameters (undefined leaves one out). */
export function withQuery(url: URL, query: Query): string {
  const out = new URL(url);
  out.search = '';
  if (query.expires !== undefined) out.searchParams.set('expires', query.expires);
  if (query.sig !== undefined) out.searchParams.set('sig', query.sig);
  return out.toString();
}

function download(ctx: RuleContext, url: string, label: string): Promise<Exchange> {
  // No Authorization: the signed URL is the capability.
  return ctx.send({ method: 'GET', url, label });
}

/** The refusal every case shares: 404 NOT_FOUND, the error body, meta, X-Request-Id as in meta, no WWW-Authenticate. */
export function mustRefuse(exchange: Exchange): string {
  mustAnswer(exchange);
  const body = mustError(exchange, 'NOT_FOUND');
  mustMeta(exchange, body);
  const requestId = mustHeader(exchange, 'x-request-id');
  must(requestId === body.meta.request_id, `${describe(exchange)}: X-Request-Id ${requestId} is not meta.request_id ${body.meta.request_id}`);
  mustNoHeader(exchange, 'www-authenticate');
  return body.error.message as string;
}

/** The remedy the refusal names: the job, polled again, hands out a fresh audio_url that downloads. */
async function mustRecover(ctx: RuleContext, from: Issued): Promise<void> {
  const get = await ctx.getJob(from.key, from.jobId, { label: 'poll the job for a fresh audio_url, as the refusal says' });
  mustStatus(get, 200);
  const job = mustJson(get);
  must(
    job.status === 'completed' && isAbsoluteUrl(job.audio_url),
    `${describe(get)}: the job is ${JSON.stringify(job.status)}, not completed with an audio_url`,
  );
  const fresh = await download(ctx, job.audio_url, 'download the fresh audio_url');
  mustStatus(fresh, 200);
  must(looksLikeMp3(mustAnswer(fresh).bytes), `${describe(fresh)}: the fresh audio_url did not download MP3 audio`);
}

/** A signature of the issued form (43 base64url characters) that differs from `sig` in its first, fully significant, character. */
export function tampered(sig: string): string {
  return (sig.startsWith('A') ? 'B' : 'A') + sig.slice(1);
}

/** Each case's URL (the issued one with that query) is refused; then the job hands out a fresh URL that works. */
async function mustRefuseEach(ctx: RuleContext, at: Issued, cases: [string, Query][]): Promise<void> {
  for (const [what, query] of cases) mustRefuse(await download(ctx, withQuery(at.url, query), `download with ${what}`));
  await mustRecover(ctx, at);
}

export const audioRefusalRules: Rule[] = [
  {
    id: 'audio-url.malformed',
    title: 'An audio_url whose expires or sig is not of the issued form gets 404 NOT_FOUND with the error body and meta, and the job hands out a fresh URL',
    section: SECTION,
    basis: { kind: 'document', decision: 'audio-urls' },
    covers: { codes: ['NOT_FOUND'], statuses: [404] },
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const at = await issued(ctx);
      const cases: [string, Query][] = [
        ['expires that is not a number', { expires: 'soon', sig: at.sig }],
        ['expires of 13 digits', { expires: '1'.repeat(13), sig: at.sig }],
        ['sig one character too long', { expires: at.expires, sig: `${at.sig}A` }],
        ['sig outside the base64url alphabet', { expires: at.expires, sig: `+/${at.sig.slice(2)}` }],
        ['sig with base64 padding', { expires: at.expires, sig: `${at.sig.slice(0, -1)}=` }],
      ];
      await mustRefuseEach(ctx, at, cases);
    },
  },
  {
    id: 'audio-url.cut-short',
    title: 'An audio_url cut short (expires or sig missing or truncated) gets 404 NOT_FOUND with the error body and meta, as any URL that does not work',
    section: SECTION,
    basis: { kind: 'document', decision: 'audio-urls' },
    covers: { codes: ['NOT_FOUND'], statuses: [404] },
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const at = await issued(ctx);
      const cases: [string, Query][] = [
        ['no sig (the URL cut at "&")', { expires: at.expires }],
        ['no expires', { sig: at.sig }],
        ['no query at all', {}],
        ['sig cut to 42 characters', { expires: at.expires, sig: at.sig.slice(0, 42) }],
        ['sig cut to 20 characters', { expires: at.expires, sig: at.sig.slice(0, 20) }],
        ['an empty sig', { expires: at.expires, sig: '' }],
        ['expires cut by a digit', { expires: at.expires.slice(0, -1), sig: at.sig }],
      ];
      await mustRefuseEach(ctx, at, cases);
    },
  },
  {
    id: 'audio-url.not-valid-alike',
    title: 'A tampered, an expired and an unknown audio URL get 404 NOT_FOUND with one message, and the job hands out a fresh URL',
    section: SECTION,
    basis: { kind: 'document', decision: 'audio-urls' },
    covers: { codes: ['NOT_FOUND'], statuses: [404] },
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const at = await issued(ctx);
      const answers: [string, string][] = [];
      const refuse = async (what: string, url: string) => answers.push([what, mustRefuse(await download(ctx, url, `download ${what}`))]);
      await refuse('with a sig of the issued form that does not match', withQuery(at.url, { expires: at.expires, sig: tampered(at.sig) }));
      const unknown = new URL(at.url);
      unknown.pathname = unknown.pathname.replace(/[0-9a-f-]{36}(?=\.mp3$)/i, randomUUID());
      await refuse('of a job that does not exist, under the issued signature', unknown.toString());
      const declared = ctx.fixtures.expired_audio;
      if (declared) await refuse('whose expiry has passed (fixtures: expired_audio)', declared.audio_url);
      else ctx.note('the fixtures have no expired_audio: the expired case was not tried');
      ctx.note('audio deleted by retention cannot be provoked without waiting out a plan’s retention; docs/api-rules.md#audio-urls gives it the same answer');
      const [[firstWhat, firstMessage] = ['', ''], ...rest] = answers;
      for (const [what, message] of rest) {
        must(message === firstMessage, `an audio URL ${firstWhat} answers "${firstMessage}", one ${what} "${message}": the answer tells them apart`);
      }
      await mustRecover(ctx, at);
    },
  },
];
