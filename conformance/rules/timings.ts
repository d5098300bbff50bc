import { timingsProblems, toMillis } from '../../src/contract/captions.js';
import { API_PATH, CAPTIONS_PATH_PREFIX } from '../../src/contract/limits.js';
import { must, mustAnswer, mustError, mustJson, mustStatus } from '../assertions.js';
import { cueDifferences, parseSrt, parseWebVtt } from '../caption-files.js';
import { type Exchange, type JsonObject, describe, jsonBody } from '../exchange.js';
import { preferExample } from '../mock-requests.js';
import type { Rule } from '../rule.js';
import { SHORT_TEXT, completedBody, inlineJob } from '../scenarios.js';
import { CAPTION_FORMATS, captionUrl, mustConform, noneJob, offeredWordJob, timingsFiles } from '../timings-scenarios.js';

/**
 * Word timings and captions, an extension beyond the base API (docs/api-rules.md#word-timings-and-captions;
 * how the suite treats a deployment that does not offer it: extensions.ts). Asked for with
 * `timestamps: "word"`, they are three signed URLs on the completed job; the files must agree with the
 * text, with the audio and with each other.
 */
const SECTION = 'Extension: word timings (docs/api-rules.md#word-timings-and-captions)';
const MOCK_SKIP = 'needs the timings of a job the deployment spoke; a mock serves the document’s example file whatever was asked';

/** `timings` on a completed answer: granularity word, and the three URLs of the document's path, expiring with audio_url. */
function mustCarryTimings(exchange: Exchange, body: JsonObject): void {
  const at = describe(exchange);
  must(body.timings && typeof body.timings === 'object', `${at}: a completed job that asked for timestamps "word" carries no timings`);
  must(body.timings.granularity === 'word', `${at}: timings.granularity is ${JSON.stringify(body.timings.granularity)}, not "word"`);
  const audioExpires = new URL(body.audio_url).searchParams.get('expires');
  for (const format of CAPTION_FORMATS) {
    const url = captionUrl(exchange, body, format);
    const path = `${CAPTIONS_PATH_PREFIX}${body.job_id}.${format}`;
    must(url.pathname.endsWith(path), `${at}: timings.${format}_url has the path ${url.pathname}, not …${path}`);
    const expires = url.searchParams.get('expires');
    must(expires && url.searchParams.get('sig'), `${at}: timings.${format}_url carries no expires and sig`);
    must(expires === audioExpires, `${at}: timings.${format}_url expires at ${expires}, audio_url at ${audioExpires}: the timings must expire with the audio`);
  }
}

/** Where one cue of the JSON file departs from its words: cues start and end with words, in order, within the audio. */
function cueProblems(file: JsonObject): string[] {
  const starts = new Set(file.words.map((w: JsonObject) => toMillis(w.start)));
  const ends = new Set(file.words.map((w: JsonObject) => toMillis(w.end)));
  const out: string[] = [];
  if (file.words.length > 0 && file.cues.length === 0) out.push('there are words but no cues');
  file.cues.forEach((cue: JsonObject, i: number) => {
    const at = `cue ${i + 1} (${JSON.stringify(cue.text)})`;
    if (!starts.has(toMillis(cue.start))) out.push(`${at} starts at ${cue.start} s, where no word starts`);
    if (!ends.has(toMillis(cue.end))) out.push(`${at} ends at ${cue.end} s, where no word ends`);
    const next = file.cues[i + 1];
    if (next && next.start < cue.end) out.push(`${at} ends at ${cue.end} s, after the next cue starts at ${next.start} s`);
    if (cue.end > file.duration_seconds + 0.002) out.push(`${at} ends at ${cue.end} s, after the audio's end at ${file.duration_seconds} s`);
  });
  return out.slice(0, 5);
}

/** The JSON file of the word job, valid against the document, or a failure saying why there is none to compare with. */
function mustBeTimingsFile(ctx: Parameters<Rule['full']>[0], exchange: Exchange, jobId: string): JsonObject {
  mustStatus(exchange, 200);
  mustConform(ctx, exchange);
  const file = mustJson(exchange);
  must(file.job_id === jobId, `${describe(exchange)}: job_id is ${JSON.stringify(file.job_id)}, not the job's ${jobId}`);
  return file;
}

export const timingsRules: Rule[] = [
  {
    id: 'timings.absent-unless-asked',
    title: 'A completed job submitted without timestamps, or with "none", carries no timings, on POST and on GET',
    section: SECTION,
    basis: { kind: 'extension', decision: 'word-timings-and-captions' },
    extension: 'word-timings',
    async full(ctx) {
      const inline = await inlineJob(ctx);
      const inlineBody = completedBody(inline);
      // The key's GETs are counted by the rules that hold it (rate-limit figures): hold it while using it.
      await ctx.lease({ specific: inline.key });
      const inlineGet = await ctx.getJob(inline.key, inlineBody.job_id, { label: 'GET the job submitted without timestamps' });
      const none = await noneJob(ctx);
      const answers: [string, Exchange][] = [
        ['without timestamps', inline.final],
        ['without timestamps', inlineGet],
        ['with timestamps "none"', none.completed],
        ['with timestamps "none"', none.get],
      ];
      for (const [what, exchange] of answers) {
        mustStatus(exchange, 200);
        const body = mustJson(exchange);
        must(body.status === 'completed', `${describe(exchange)}: the job submitted ${what} is ${JSON.stringify(body.status)}, not completed`);
        must(!('timings' in body), `${describe(exchange)}: a job submitted ${what} carries timings: ${JSON.stringify(body.timings)?.slice(0, 160)}`);
      }
      if (none.job.post !== none.completed) ctx.note('the job with timestamps "none" was answered 202; its completed poll was checked');
    },
    async mock(ctx) {
      for (const exchange of [await preferExample(ctx, 'submit', 200, 'completed'), await preferExample(ctx, 'get', 200, 'completed')]) {
        must(!('timings' in mustJson(exchange)), `${describe(exchange)}: the example of a job that did not ask carries timings`);
      }
    },
  },
  {
    id: 'timings.present-when-asked',
    title:
      'A completed job submitted with timestamps "word" carries timings with its JSON, WebVTT and SRT URLs, expiring with audio_url, on POST, on GET and on a replay, never while processing; another value is refused',
    section: SECTION,
    basis: { kind: 'extension', decision: 'word-timings-and-captions' },
    covers: { codes: ['INVALID_REQUEST'], statuses: [400] },
    extension: 'word-timings',
    async full(ctx) {
      const w = await offeredWordJob(ctx);
      mustCarryTimings(w.completed, w.body);
      mustCarryTimings(w.get, w.getBody);
      if (w.job.post !== w.completed) ctx.note('the job with timestamps "word" was answered 202; its completed poll and a GET were checked');
      // Never on an answer of the job while it was processing.
      for (const exchange of [w.job.post, ...w.job.polls]) {
        const body = jsonBody(exchange);
        if (body?.status === 'processing') must(!('timings' in body), `${describe(exchange)}: a processing job carries timings`);
      }
      // On a replay: the job the key made, with its timings. Unthrottled: a replay is answered before the rate limit and uses no quota.
      await ctx.lease({ specific: w.job.key });
      const replay = await ctx.post(
        w.job.key,
        { text: w.text, timestamps: 'word' },
        { idempotencyKey: w.job.idempotencyKey, throttle: false, label: 'the job with timestamps "word" again, same Idempotency-Key' },
      );
      mustStatus(replay, 200);
      mustCarryTimings(replay, mustJson(replay));
      // A deployment that offers timings knows the field: a value it does not define is refused, and takes no POST quota.
      // Each is sent when the key's POST bucket has room: the API does not order the 400 and a 429.
      const key = await ctx.leaseKey({ fresh: 'post' });
      for (const value of ['sentence', 'WORD', true]) {
        const exchange = await ctx.send({
          method: 'POST',
          url: API_PATH,
          key,
          json: { text: SHORT_TEXT, timestamps: value },
          label: `timestamps ${JSON.stringify(value)}`,
        });
        mustError(exchange, 'INVALID_REQUEST');
      }
    },
    async mock(ctx) {
      for (const exchange of [
        await preferExample(ctx, 'submit', 200, 'completed_with_timings'),
        await preferExample(ctx, 'get', 200, 'completed_with_timings'),
      ]) {
        mustCarryTimings(exchange, mustJson(exchange));
      }
    },
  },
  {
    id: 'timings.file-consistent',
    title:
      'The timings JSON matches WordTimingsFile and its text: every word once, offsets in code points and UTF-16 that cut the text back, rising times, the audio’s duration, cues on word boundaries',
    section: SECTION,
    basis: { kind: 'extension', decision: 'word-timings-and-captions' },
    extension: 'word-timings',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const w = await offeredWordJob(ctx);
      const { json } = await timingsFiles(ctx);
      const file = mustBeTimingsFile(ctx, json, w.body.job_id);
      const problems = timingsProblems(w.text, file as Parameters<typeof timingsProblems>[1], w.body.audio?.language);
      must(problems.length === 0, `${describe(json)}: ${problems.slice(0, 5).join('; ')}`);
      const duration = w.body.audio?.duration_seconds;
      if (typeof duration === 'number') {
        must(
          toMillis(file.duration_seconds) === toMillis(duration),
          `${describe(json)}: duration_seconds is ${file.duration_seconds}, the job's audio.duration_seconds ${duration}`,
        );
      } else ctx.note('the job reports no audio.duration_seconds, so duration_seconds was not compared with it');
      const cues = cueProblems(file);
      must(cues.length === 0, `${describe(json)}: ${cues.join('; ')}`);
      ctx.note(`${file.words.length} words and ${file.cues.length} cues over ${file.duration_seconds} s checked`);
    },
  },
  {
    id: 'timings.captions-match',
    title: 'The WebVTT file starts with WEBVTT and the SRT file is numbered SubRip, and the cues of both equal the JSON file’s',
    section: SECTION,
    basis: { kind: 'extension', decision: 'word-timings-and-captions' },
    extension: 'word-timings',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const w = await offeredWordJob(ctx);
      const files = await timingsFiles(ctx);
      const file = mustBeTimingsFile(ctx, files.json, w.body.job_id);
      for (const [format, parse] of [
        ['vtt', parseWebVtt],
        ['srt', parseSrt],
      ] as const) {
        const exchange = files[format];
        mustStatus(exchange, 200);
        mustConform(ctx, exchange);
        const text = mustAnswer(exchange).bytes.toString('utf8');
        if (format === 'vtt')
          must(/^\uFEFF?WEBVTT(?:[ \t\r\n]|$)/.test(text), `${describe(exchange)}: does not start with WEBVTT: ${JSON.stringify(text.slice(0, 20))}`);
        const parsed = parse(text);
        must(parsed.problems.length === 0, `${describe(exchange)}: ${parsed.problems.slice(0, 3).join('; ')}`);
        const differences = cueDifferences(file.cues, parsed.cues);
        must(differences.length === 0, `${describe(exchange)}: ${differences.join('; ')}`);
      }
    },
  },
];
