import { randomUUID } from 'node:crypto';
import { isAbsoluteUrl, must, mustJson, mustStatus } from '../assertions.js';
import { type Exchange, describe } from '../exchange.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { type CaptionFormat, captionUrl, mustConform, offeredWordJob, timingsFiles } from '../timings-scenarios.js';
import { type Query, mustRefuse, tampered, withQuery } from './audio-refusals.js';

/**
 * The caption URLs refuse what the audio URL refuses, with its answers (docs/api-rules.md#audio-urls):
 * 404 NOT_FOUND with the error body and meta for a URL that was tampered with, expired, names a job
 * without such a file, or carries a malformed query (whose message names the part at fault), and the
 * job polled again hands out fresh URLs. A caption URL's signature covers its format, so the query of
 * one format does not open another, nor does the audio URL's query open a caption file.
 */
const SECTION = 'Extension: word timings (docs/api-rules.md#word-timings-and-captions; refusals as docs/api-rules.md#audio-urls)';
const MOCK_SKIP = 'a mock knows no signature: it serves the document’s example for any caption URL';

interface IssuedCaptions {
  key: string;
  jobId: string;
  urls: Record<CaptionFormat, URL>;
  audio: URL;
}

async function issued(ctx: RuleContext): Promise<IssuedCaptions> {
  const w = await offeredWordJob(ctx);
  const [exchange, body] = w.body.timings ? [w.completed, w.body] : [w.get, w.getBody];
  const urls = { json: captionUrl(exchange, body, 'json'), vtt: captionUrl(exchange, body, 'vtt'), srt: captionUrl(exchange, body, 'srt') };
  return { key: w.job.key, jobId: body.job_id, urls, audio: new URL(body.audio_url) };
}

const query = (url: URL): Query => ({ expires: url.searchParams.get('expires') ?? undefined, sig: url.searchParams.get('sig') ?? undefined });

function download(ctx: RuleContext, url: string, label: string): Promise<Exchange> {
  return ctx.send({ method: 'GET', url, label });
}

/** The refusal of a caption URL: the audio URL's refusal, and an answer the document declares. Returns its message. */
async function refused(ctx: RuleContext, url: string, what: string): Promise<string> {
  const exchange = await download(ctx, url, `download ${what}`);
  const message = mustRefuse(exchange);
  mustConform(ctx, exchange);
  return message;
}

/** The remedy: the job, polled again, hands out a fresh timings.json_url that downloads the timings. */
async function mustRecover(ctx: RuleContext, from: IssuedCaptions): Promise<void> {
  // The key's GETs are counted by the rules that hold it (rate-limit figures): hold it while using it.
  await ctx.lease({ specific: from.key });
  const get = await ctx.getJob(from.key, from.jobId, { label: 'poll the job for fresh timings URLs, as the refusal says' });
  mustStatus(get, 200);
  const job = mustJson(get);
  must(isAbsoluteUrl(job.timings?.json_url), `${describe(get)}: the job hands out no timings.json_url`);
  const fresh = await download(ctx, job.timings.json_url, 'download the fresh timings.json_url');
  mustStatus(fresh, 200);
  must(mustJson(fresh).job_id === from.jobId, `${describe(fresh)}: the fresh timings.json_url did not download the job's timings`);
}

/** Every message is the first one: the answers do not tell the cases apart. */
function mustBeAlike(answers: [string, string][]): void {
  const [[firstWhat, firstMessage] = ['', ''], ...rest] = answers;
  for (const [what, message] of rest) {
    must(message === firstMessage, `a caption URL ${firstWhat} answers "${firstMessage}", one ${what} "${message}": the answer tells them apart`);
  }
}

/** The URL with its path's job id or format replaced. */
function withPath(url: URL, jobId: string, format: CaptionFormat): string {
  const out = new URL(url);
  out.pathname = out.pathname.replace(/[^/]+$/, `${jobId}.${format}`);
  return out.toString();
}

export const timingsUrlRules: Rule[] = [
  {
    id: 'timings.url-tampered',
    title:
      'A caption URL with an altered signature, another format’s query, the audio URL’s query or an unknown job gets 404 NOT_FOUND with one message, and the job hands out fresh URLs',
    section: SECTION,
    basis: { kind: 'extension', decision: 'word-timings-and-captions' },
    covers: { codes: ['NOT_FOUND'], statuses: [404] },
    extension: 'word-timings',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const at = await issued(ctx);
      const { json, vtt, srt } = at.urls;
      const answers: [string, string][] = [];
      const refuse = async (what: string, url: string) => answers.push([what, await refused(ctx, url, what)]);
      const sig = json.searchParams.get('sig') ?? '';
      await refuse('with one character of its sig changed', withQuery(json, { ...query(json), sig: tampered(sig) }));
      await refuse('of the SRT file under the WebVTT URL’s query (the format swapped)', withQuery(srt, query(vtt)));
      await refuse('of the JSON file under the WebVTT URL’s query', withQuery(json, query(vtt)));
      await refuse('of the JSON file under the audio URL’s query', withQuery(json, query(at.audio)));
      await refuse('of a job that does not exist, under the issued query', withPath(json, randomUUID(), 'json'));
      mustBeAlike(answers);
      await mustRecover(ctx, at);
    },
  },
  {
    id: 'timings.url-malformed',
    title:
      'A caption URL whose expires or sig is missing or not of the issued form gets 404 NOT_FOUND whose message names the part at fault, and the job hands out fresh URLs',
    section: SECTION,
    basis: { kind: 'extension', decision: 'word-timings-and-captions' },
    covers: { codes: ['NOT_FOUND'], statuses: [404] },
    extension: 'word-timings',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const at = await issued(ctx);
      const { expires, sig } = query(at.urls.vtt) as Required<Query>;
      const cases: [string, Query, 'expires' | 'sig'][] = [
        ['expires that is not a number', { expires: 'soon', sig }, 'expires'],
        ['expires of 13 digits', { expires: '1'.repeat(13), sig }, 'expires'],
        ['no expires', { sig }, 'expires'],
        ['sig one character too long', { expires, sig: `${sig}A` }, 'sig'],
        ['sig outside the base64url alphabet', { expires, sig: `+/${sig.slice(2)}` }, 'sig'],
        ['sig cut to 20 characters', { expires, sig: sig.slice(0, 20) }, 'sig'],
        ['no sig', { expires }, 'sig'],
      ];
      for (const [what, q, part] of cases) {
        const message = await refused(ctx, withQuery(at.urls.vtt, q), `the WebVTT URL with ${what}`);
        must(
          new RegExp(`\\b${part}\\b`, 'i').test(message),
          `the WebVTT URL with ${what} is refused with "${message}", which does not name ${part}, the part at fault`,
        );
      }
      await mustRecover(ctx, at);
    },
  },
  {
    id: 'timings.url-expires',
    title:
      'A caption URL stops working at its expiry: an expiry moved later or earlier under the issued signature gets 404 NOT_FOUND, and on a test clock the URL itself does once it has passed',
    section: SECTION,
    basis: { kind: 'extension', decision: 'word-timings-and-captions' },
    covers: { codes: ['NOT_FOUND'], statuses: [404] },
    phase: 'final',
    extension: 'word-timings',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const at = await issued(ctx);
      const { expires, sig } = query(at.urls.json) as Required<Query>;
      const answers: [string, string][] = [];
      const refuse = async (what: string, url: string) => answers.push([what, await refused(ctx, url, what)]);
      await refuse('with one character of its sig changed', withQuery(at.urls.json, { expires, sig: tampered(sig) }));
      await refuse('with its expiry moved an hour later', withQuery(at.urls.json, { expires: String(Number(expires) + 3600), sig }));
      await refuse('with its expiry moved into the past', withQuery(at.urls.json, { expires: String(Number(expires) - 7200), sig }));
      if (!ctx.time.clock) {
        ctx.note(
          'the URLs were not tried after their own expiry: this deployment offers no test clock (fixtures clock.url) to move past it, waiting it out would take as long as the URL lives, and the fixtures carry an expired URL only for the audio (expired_audio), not for captions',
        );
      } else {
        const files = await timingsFiles(ctx);
        for (const format of ['json', 'vtt', 'srt'] as const) mustStatus(files[format], 200);
        await ctx.time.sleep(Math.max(0, Number(expires) * 1000 - ctx.time.now()) + 2_000);
        for (const format of ['json', 'vtt', 'srt'] as const) await refuse(`of the ${format} file after its expiry`, at.urls[format].toString());
        ctx.note(
          `moved the test clock past the caption URLs' expiry (${expires}); before it they downloaded (${files.json.seq}, ${files.vtt.seq}, ${files.srt.seq})`,
        );
      }
      mustBeAlike(answers);
    },
  },
];
