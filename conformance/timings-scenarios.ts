import { CAPTIONS_PATH_PREFIX } from '../src/contract/limits.js';
import { isAbsoluteUrl, must, mustJson, mustStatus } from './assertions.js';
import { type Exchange, type JsonObject, describe } from './exchange.js';
import { locate } from './exchange-scope.js';
import { notOffered } from './extensions.js';
import type { RuleContext } from './rule-context.js';
import { type FollowedJob, completedBody, newIdempotencyKey, optionsJob, submitAndFollow } from './scenarios.js';

/**
 * The jobs and files of the word-timings rules (an extension beyond the base API, extensions.ts), each
 * made once per run however many rules use it.
 */

/**
 * The text of the job that asks for timings: two sentences (a pause between them), punctuation that is
 * not a word, an accented word, an emoji outside the Basic Multilingual Plane, after which a word's
 * offsets in code points and in UTF-16 units differ by one, and `&`, `<` and `>`, which WebVTT must
 * escape so that `<b>` does not read as markup.
 */
const TIMINGS_TEXT = 'Word timings follow the voice. After a pause, the café smiles 😀 back at Tom & Jerry <b>!';

export const CAPTION_FORMATS = ['json', 'vtt', 'srt'] as const;
export type CaptionFormat = (typeof CAPTION_FORMATS)[number];

/** A completed job: its completed answer (the POST's 200 or the last poll) and a GET of it afterwards. */
export interface CompletedJob {
  job: FollowedJob;
  completed: Exchange;
  body: JsonObject;
  get: Exchange;
  getBody: JsonObject;
}

async function completedAndGot(s: RuleContext, job: FollowedJob, what: string): Promise<CompletedJob> {
  const body = completedBody(job);
  const get = await s.getJob(job.key, body.job_id, { label: `GET the job ${what}` });
  mustStatus(get, 200);
  return { job, completed: job.final, body, get, getBody: mustJson(get) };
}

/**
 * A job submitted with `timestamps: "none"`: the options job, which gives every optional field (a job
 * less to create, as each key may create one a minute), and a GET of it.
 */
export function noneJob(ctx: RuleContext): Promise<CompletedJob> {
  return ctx.scenario('timings-none-job', async (s) => {
    const job = await optionsJob(s);
    must(job.request.timestamps === 'none', 'the options job no longer asks for timestamps "none"');
    // The key's GETs are counted by the rules that hold it (rate-limit figures): hold it while using it.
    await s.lease({ specific: job.key });
    return completedAndGot(s, job, 'submitted with timestamps "none"');
  });
}

/**
 * TIMINGS_TEXT submitted with `timestamps: "word"`, on the account of the options job (which asked for
 * `"none"`), so that the account's minutes before it are known and what asking costs can be seen.
 */
function wordJob(ctx: RuleContext): Promise<CompletedJob & { text: string }> {
  return ctx.scenario('timings-word-job', async (s) => {
    const key = await s.leaseKey({ specific: (await optionsJob(s)).key });
    const job = await submitAndFollow(s, key, { text: TIMINGS_TEXT, timestamps: 'word' }, newIdempotencyKey(), 'submit with timestamps "word"');
    return { ...(await completedAndGot(s, job, 'submitted with timestamps "word"')), text: TIMINGS_TEXT };
  });
}

/**
 * The word job, when the deployment offers timings: it carried `timings` on its completed answer or
 * on the GET after it. Neither: the extension is not offered (skipped, or failed under --extensions required).
 */
export async function offeredWordJob(ctx: RuleContext): Promise<CompletedJob & { text: string }> {
  const w = await wordJob(ctx);
  if (w.body.timings === undefined && w.getBody.timings === undefined) {
    notOffered(ctx, 'word-timings', `a job submitted with timestamps "word" completed without timings, on ${describe(w.completed)} and on ${describe(w.get)}`);
  }
  return w;
}

/** The caption URL of one format from a job's answer, checked enough to be used. */
export function captionUrl(exchange: Exchange, body: JsonObject, format: CaptionFormat): URL {
  const value = body.timings?.[`${format}_url`];
  must(isAbsoluteUrl(value), `${describe(exchange)}: timings.${format}_url is not an absolute URL: ${JSON.stringify(value)}`);
  return new URL(value);
}

/** The three files of the word job, downloaded once from the URLs of its completed answer (no key: the URL is the capability). */
export function timingsFiles(ctx: RuleContext): Promise<Record<CaptionFormat, Exchange>> {
  return ctx.scenario('timings-files', async (s) => {
    const w = await offeredWordJob(s);
    const from = w.body.timings ? w : { completed: w.get, body: w.getBody };
    const files = {} as Record<CaptionFormat, Exchange>;
    for (const format of CAPTION_FORMATS) {
      files[format] = await s.send({ method: 'GET', url: captionUrl(from.completed, from.body, format).toString(), label: `download timings.${format}_url` });
    }
    return files;
  });
}

/** The answer conforms to the OpenAPI document's downloadCaptions (status, media type, JSON body, headers). */
export function mustConform(ctx: RuleContext, exchange: Exchange): void {
  const { path } = locate(ctx.target, exchange);
  const { operation } = ctx.doc.match(exchange.request.method, path);
  must(operation?.operationId === 'downloadCaptions', `${describe(exchange)}: not a caption URL of the document (${CAPTIONS_PATH_PREFIX}<job_id>.<format>)`);
  const violations = ctx.doc.checkResponse(exchange, path);
  must(violations.length === 0, `${describe(exchange)}: ${violations.slice(0, 4).join('; ')}`);
}
