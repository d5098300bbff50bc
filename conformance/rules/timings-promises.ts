import { buildCues, toMillis } from '../../src/contract/captions.js';
import { must, mustJson, mustStatus } from '../assertions.js';
import { SOUND_TOLERANCE_SECONDS, soundOfMp3, timingsAgainstSound } from '../audio-sound.js';
import { type Exchange, type JsonObject, describe, header, jsonBody } from '../exchange.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { CAPTION_FORMATS, captionUrl, offeredWordJob, timingsFiles } from '../timings-scenarios.js';

/**
 * The promises of docs/api-rules.md#word-timings-and-captions beyond the files' shape and their
 * agreement with each other: times that match the sound, cues grouped and cut as documented, WebVTT
 * without markup, caption URLs fresh on each poll and cached no longer than they live, and no charge
 * for asking.
 */
const SECTION = 'Extension: word timings (docs/api-rules.md#word-timings-and-captions)';
const BASIS = { kind: 'extension', decision: 'word-timings-and-captions' } as const;
const MOCK_SKIP = 'needs the timings of a job the deployment spoke; a mock serves the document’s example file whatever was asked';

/** The word job's JSON timings file, as downloaded (shape and consistency are timings.file-consistent's). */
async function wordFile(ctx: RuleContext): Promise<{ exchange: Exchange; file: JsonObject }> {
  const { json } = await timingsFiles(ctx);
  mustStatus(json, 200);
  const file = mustJson(json);
  must(Array.isArray(file.words) && Array.isArray(file.cues), `${describe(json)}: the timings file has no words and cues`);
  return { exchange: json, file };
}

/** A WebVTT cue payload that reads as markup: a `<` or `>`, or an `&` that starts no character reference. */
function markupIn(vtt: string): string[] {
  const out: string[] = [];
  const blocks = vtt.replace(/\r\n?/g, '\n').split(/\n[ \t]*\n+/);
  for (const block of blocks) {
    const lines = block.split('\n');
    const at = lines.findIndex((l) => l.includes('-->'));
    if (at < 0) continue;
    for (const line of lines.slice(at + 1)) {
      if (/[<>]/.test(line) || /&(?!(?:amp|lt|gt|nbsp|lrm|rlm|#\d+|#x[0-9a-f]+);)/i.test(line)) out.push(JSON.stringify(line));
    }
  }
  return out;
}

/** `Cache-Control: private, max-age=N` of a caption download, N in seconds. */
function maxAgeOf(exchange: Exchange): number {
  const value = header(exchange, 'cache-control') ?? '';
  const age = /(?:^|,)\s*max-age=(\d+)\s*(?:,|$)/i.exec(value);
  must(/(?:^|,)\s*private\s*(?:,|$)/i.test(value) && age, `${describe(exchange)}: Cache-Control is ${JSON.stringify(value)}, not "private, max-age=<seconds>"`);
  return Number(age?.[1]);
}

/** The body of an answer (empty when there was none). */
const bytesOf = (exchange: Exchange): Buffer => exchange.response?.bytes ?? Buffer.alloc(0);

export const timingsPromiseRules: Rule[] = [
  {
    id: 'timings.match-audio',
    title: `The word times match the sound of the delivered MP3, decoded: the first word starts and the last ends with the sound, no sound lies outside the words and every word holds sound, within ${SOUND_TOLERANCE_SECONDS} s`,
    section: SECTION,
    basis: BASIS,
    extension: 'word-timings',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const w = await offeredWordJob(ctx);
      const { exchange, file } = await wordFile(ctx);
      const audio = await ctx.send({ method: 'GET', url: String(w.body.audio_url), label: 'download the audio of the job with timings' });
      mustStatus(audio, 200);
      const sound = await soundOfMp3(new Uint8Array(bytesOf(audio)));
      const verdict = timingsAgainstSound(file.words, Number(file.duration_seconds), sound);
      if (verdict.silent) {
        ctx.note(`the MP3 (${sound.durationSeconds.toFixed(3)} s) holds no sound at −40 dBFS or above, so the times could not be compared with speech`);
        return;
      }
      must(verdict.problems.length === 0, `${describe(exchange)} against ${describe(audio)}: ${verdict.problems.join('; ')}`);
      ctx.note(
        `${file.words.length} words against ${sound.durationSeconds.toFixed(3)} s of decoded audio: sound from ${verdict.firstSound.toFixed(2)} s to ${verdict.soundEnd.toFixed(2)} s`,
      );
    },
  },
  {
    id: 'timings.cues-as-documented',
    title:
      'The cues group the words as documented (a sentence’s end, a pause of 0.6 s, 42 characters, 8 words, 6 s) with their text cut from the submitted text, and WebVTT escapes &, < and > so that no text reads as markup',
    section: SECTION,
    basis: BASIS,
    extension: 'word-timings',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const w = await offeredWordJob(ctx);
      const { exchange, file } = await wordFile(ctx);
      const expected = buildCues(w.text, file.words);
      const problems: string[] = [];
      if (expected.length !== file.cues.length) problems.push(`${file.cues.length} cues where the words make ${expected.length}`);
      expected.forEach((want, i) => {
        const got = file.cues[i];
        if (!got || problems.length >= 5) return;
        if (got.text !== want.text) problems.push(`cue ${i + 1} reads ${JSON.stringify(got.text)}, not ${JSON.stringify(want.text)}`);
        else if (toMillis(got.start) !== toMillis(want.start) || toMillis(got.end) !== toMillis(want.end))
          problems.push(`cue ${i + 1} runs ${got.start}–${got.end} s, not ${want.start}–${want.end} s`);
      });
      must(problems.length === 0, `${describe(exchange)}: ${problems.join('; ')} (expected ${JSON.stringify(expected.map((c) => c.text))})`);
      const vtt = (await timingsFiles(ctx)).vtt;
      mustStatus(vtt, 200);
      const markup = markupIn(bytesOf(vtt).toString('utf8'));
      must(markup.length === 0, `${describe(vtt)}: cue text that reads as WebVTT markup (unescaped &, < or >): ${markup.slice(0, 3).join(', ')}`);
    },
  },
  {
    id: 'timings.asking-costs-nothing',
    title: 'Asking for timings costs nothing more: the job with timestamps "word" adds its audio’s minutes to monthly_minutes_used, as any job',
    section: SECTION,
    basis: BASIS,
    extension: 'word-timings',
    mockSkip: 'a mock keeps no usage',
    async full(ctx) {
      const w = await offeredWordJob(ctx);
      const auth = `Bearer ${w.job.key}`;
      // The account's last figure before the job: the options job's, or a later answer on the same key.
      const earlier = ctx
        .allExchanges()
        .filter((e) => e.seq < w.job.post.seq && e.request.headers.authorization === auth && typeof jsonBody(e)?.billing?.monthly_minutes_used === 'number')
        .at(-1);
      must(earlier, `no answer on the key of the job with timings showed its account's minutes before it (${describe(w.job.post)})`);
      ctx.cite([earlier]);
      const before = jsonBody(earlier)?.billing.monthly_minutes_used;
      const after = w.body.billing?.monthly_minutes_used;
      const duration = w.body.audio?.duration_seconds;
      must(typeof after === 'number', `${describe(w.completed)}: billing.monthly_minutes_used is ${JSON.stringify(after)}`);
      must(w.body.billing.estimated_cost_cents === 0, `${describe(w.completed)}: estimated_cost_cents is ${w.body.billing.estimated_cost_cents}, not 0`);
      const delta = Math.round((after - before) * 100) / 100;
      if (typeof duration === 'number') {
        must(
          Math.abs(delta - duration / 60) <= 0.015,
          `monthly_minutes_used went from ${before} (${describe(earlier)}) to ${after} (${describe(w.completed)}): ${delta} minutes for ${duration} s of audio (${(duration / 60).toFixed(3)} minutes)`,
        );
      } else ctx.note(`the job reports no audio.duration_seconds; monthly_minutes_used grew by ${delta}`);
    },
  },
  {
    id: 'timings.url-fresh',
    title:
      'Each poll hands out fresh caption URLs, expiring with its audio_url; GET and HEAD of each answer 200 with its media type, Content-Length and Cache-Control private with a max-age no longer than the URL lives',
    section: SECTION,
    basis: BASIS,
    extension: 'word-timings',
    mockSkip: MOCK_SKIP,
    async full(ctx) {
      const w = await offeredWordJob(ctx);
      const first = w.body.timings ? w.body : w.getBody;
      // A second later (or the test clock moved a second), a poll signs anew.
      await ctx.time.sleep(1100);
      await ctx.lease({ specific: w.job.key });
      const again = await ctx.getJob(w.job.key, w.body.job_id, { label: 'GET the job with timings a second later' });
      mustStatus(again, 200);
      const body = mustJson(again);
      const audioExpires = Number(new URL(String(body.audio_url)).searchParams.get('expires'));
      for (const format of CAPTION_FORMATS) {
        const before = Number(captionUrl(w.completed, first, format).searchParams.get('expires'));
        const url = captionUrl(again, body, format);
        const expires = Number(url.searchParams.get('expires'));
        must(expires > before, `${describe(again)}: timings.${format}_url expires at ${expires}, as the one handed out before (${before}): not fresh`);
        must(expires === audioExpires, `${describe(again)}: timings.${format}_url expires at ${expires}, audio_url at ${audioExpires}`);
        const sentAt = ctx.time.now() / 1000;
        const get = await ctx.send({ method: 'GET', url: url.toString(), label: `GET the fresh timings.${format}_url` });
        const head = await ctx.send({ method: 'HEAD', url: url.toString(), label: `HEAD the fresh timings.${format}_url` });
        for (const exchange of [get, head]) {
          mustStatus(exchange, 200);
          must(header(exchange, 'content-type'), `${describe(exchange)}: no Content-Type`);
          must(
            header(exchange, 'content-length') === String(bytesOf(get).length),
            `${describe(exchange)}: Content-Length is ${header(exchange, 'content-length')}, the file has ${bytesOf(get).length} bytes`,
          );
          const maxAge = maxAgeOf(exchange);
          // The deployment's time (its test clock's, when it has one), give or take the rounding to seconds.
          const left = expires - sentAt + 2;
          must(maxAge > 0 && maxAge <= left, `${describe(exchange)}: max-age=${maxAge}, but the URL expires in about ${Math.round(expires - sentAt)} s`);
        }
        must(header(head, 'content-type') === header(get, 'content-type'), `${describe(head)}: Content-Type differs from the GET's`);
        must(bytesOf(head).length === 0, `${describe(head)}: HEAD answered with a body of ${bytesOf(head).length} bytes`);
      }
    },
  },
];
