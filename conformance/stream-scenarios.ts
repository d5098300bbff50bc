import { STREAM_PATH_PREFIX } from '../src/contract/limits.js';
import { isAbsoluteUrl, must, mustJson } from './assertions.js';
import { type Exchange, type JsonObject, describe, jsonBody } from './exchange.js';
import { notOffered } from './extensions.js';
import type { RuleContext } from './rule-context.js';
import { longJobFinished, longJobSubmitted } from './scenarios.js';

/**
 * The job of the streaming rules (an extension beyond the base API, extensions.ts;
 * docs/api-rules.md#streaming-audio): the long job's 202, its `stream_url` listened to from that answer
 * to the stream's end, a GET of the job sent the moment the first streamed bytes arrived, the job's
 * polls to its end, and its audio_url downloaded. Made once per run however many rules use it.
 */
export interface StreamedJob {
  key: string;
  jobId: string;
  /** The 202 that issued the stream URL, and that URL. */
  accepted: Exchange;
  url: URL;
  /** The stream, read from its first byte to its end (an `error` when it ended abnormally), digested (http-client.ts). */
  stream: Exchange;
  /** The GET of the job sent as the first streamed bytes arrived; none on a test clock, where a job is made in one instant. */
  whileStreaming?: Exchange;
  /** Every poll of the job, the last one completed, with its body. */
  polls: Exchange[];
  completed: Exchange;
  completedBody: JsonObject;
  /** The completed answer's audio_url, downloaded and digested. */
  audio: Exchange;
}

/** A stream URL of the issued form: absolute, `/v1/stream/<job_id>.mp3`, with `expires` and `sig` as the audio URL's. */
export function mustBeStreamUrl(exchange: Exchange, value: unknown, jobId: string): URL {
  must(isAbsoluteUrl(value), `${describe(exchange)}: stream_url is not an absolute URL: ${JSON.stringify(value)}`);
  const url = new URL(value);
  must(
    url.pathname === `${STREAM_PATH_PREFIX}${jobId}.mp3`,
    `${describe(exchange)}: stream_url's path is ${url.pathname}, not ${STREAM_PATH_PREFIX}${jobId}.mp3`,
  );
  must(
    /^\d{1,12}$/.test(url.searchParams.get('expires') ?? '') && /^[A-Za-z0-9_-]{43}$/.test(url.searchParams.get('sig') ?? ''),
    `${describe(exchange)}: stream_url's query is not of the audio URL's form (expires: whole seconds, sig: 43 base64url characters): ${url.search.replace(/=[^&]*/g, '=…')}`,
  );
  return url;
}

/**
 * The streamed long job, when the deployment offers the extension: its 202 carried `stream_url`.
 * Without it the rule is skipped as "extension not supported" (failed under --extensions required).
 */
export async function streamedJob(ctx: RuleContext): Promise<StreamedJob> {
  const job = await listened(ctx);
  if ('notOffered' in job) notOffered(ctx, 'streaming', job.notOffered);
  return job;
}

function listened(ctx: RuleContext): Promise<StreamedJob | { notOffered: string }> {
  return ctx.scenario('streamed-job', async (s) => {
    const submission = await longJobSubmitted(s);
    const body = jsonBody(submission.post);
    must(
      submission.post.response?.status === 202 && typeof body?.job_id === 'string',
      `${submission.what} was answered HTTP ${submission.post.response?.status}, not 202: no processing answer to take a stream_url from`,
    );
    if (body.stream_url === undefined) return { notOffered: `the 202 of ${submission.what} carries no stream_url (${describe(submission.post)})` };
    const jobId: string = body.job_id;
    const url = mustBeStreamUrl(submission.post, body.stream_url, jobId);
    // On a test clock a job is made in one instant, when the clock reaches its end: no bytes come while it runs.
    const onClock = Boolean(s.time.clock);
    let probe: Promise<Exchange> | undefined;
    const stream = await s.send({
      method: 'GET',
      url: url.toString(),
      label: 'listen to the stream_url of the 202, from its first byte to its end',
      timeoutMs: s.settings.jobTimeoutSeconds * 1000 + 30_000,
      digest: true,
      onFirstBody: () => {
        if (!onClock) probe = s.getJob(submission.key, jobId, { label: 'GET the job as the first streamed bytes arrive' });
      },
    });
    const whileStreaming = probe ? await probe : undefined;
    const { polls } = await longJobFinished(s);
    const completed = polls.at(-1) ?? submission.post;
    const completedBody = mustJson(completed);
    must(
      completed.response?.status === 200 && completedBody.status === 'completed' && isAbsoluteUrl(completedBody.audio_url),
      `${describe(completed)}: the job did not complete with an audio_url (${JSON.stringify(completedBody.status ?? completedBody.error?.code)})`,
    );
    const audio = await s.send({
      method: 'GET',
      url: completedBody.audio_url,
      label: 'download the completed job’s audio_url, to compare with the stream',
      digest: true,
    });
    return { key: submission.key, jobId, accepted: submission.post, url, stream, whileStreaming, polls, completed, completedBody, audio };
  });
}
