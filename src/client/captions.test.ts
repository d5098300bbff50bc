import { describe, expect, it } from 'vitest';
import { renderSrt, renderWebVtt } from '../contract/captions.js';
import { completedJobExample, completedJobWithTimingsExample, wordTimingsFileExample } from '../contract/examples.js';
import { AgentTtsClient } from './client.js';
import { AgentTtsError } from './errors.js';

const KEY = 'tts_0123abcd_0123456789abcdef0123456789abcdef0123456789abcdef';
const BASE = 'https://tts.example.com';
const JOB_ID = completedJobExample.job_id;

interface Seen {
  method: string;
  path: string;
  query: string;
  authorization: string | null;
  body?: unknown;
}

/**
 * A deployment with the word-timings extension, behind the client's `fetch` option: POST answers the
 * completed job (with `timings` when asked), GET of the job issues URLs signed `fresh`, and the caption
 * route serves a URL signed `fresh` (other signatures are 404 NOT_FOUND, as an expired URL is).
 * `captionAnswers` queues answers of the caption route to give before the normal one.
 */
function deployment(options: { timings?: boolean; captionAnswers?: Array<() => Response> } = {}) {
  const seen: Seen[] = [];
  const withTimings = options.timings ?? true;
  const job = (sig: string, asked: boolean) => {
    const base = { ...completedJobExample, audio_url: `${BASE}/v1/audio/${JOB_ID}.mp3?expires=1&sig=${sig}` };
    if (!asked || !withTimings) return base;
    const url = (format: string) => `${BASE}/v1/captions/${JOB_ID}.${format}?expires=1&sig=${sig}`;
    return { ...base, timings: { granularity: 'word' as const, json_url: url('json'), vtt_url: url('vtt'), srt_url: url('srt') } };
  };
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
  let asked = false;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.method === 'POST' ? await request.json() : undefined;
    seen.push({ method: request.method, path: url.pathname, query: url.search, authorization: request.headers.get('authorization'), body });
    if (url.pathname === '/v1/agent-tts' && request.method === 'POST') {
      asked = (body as { timestamps?: string }).timestamps === 'word';
      return json(200, job('first', asked));
    }
    if (url.pathname === '/v1/agent-tts') return json(200, job('fresh', asked));
    const caption = /^\/v1\/captions\/[0-9a-f-]+\.(json|vtt|srt)$/.exec(url.pathname);
    if (caption) {
      const queued = options.captionAnswers?.shift();
      if (queued) return queued();
      if (url.searchParams.get('sig') !== 'fresh' || !withTimings)
        return json(404, { success: false, error: { code: 'NOT_FOUND', message: 'The URL is not valid or has expired.' }, meta: { request_id: 'r1' } });
      const format = caption[1]!;
      if (format === 'json') return json(200, { ...wordTimingsFileExample });
      return new Response(format === 'vtt' ? renderWebVtt(wordTimingsFileExample) : renderSrt(wordTimingsFileExample), { status: 200 });
    }
    return json(404, { success: false, error: { code: 'NOT_FOUND', message: 'No route.' } });
  };
  const client = new AgentTtsClient({ baseUrl: BASE, apiKey: KEY, fetch: fetch as typeof globalThis.fetch, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
  return { client, seen };
}

describe('word timings in the typed client', () => {
  it('speak sends timestamps: "word" and the completed job carries timings', async () => {
    const { client, seen } = deployment();
    const job = await client.speak({ text: 'Hello from agent-tts.', timestamps: 'word' });
    expect(seen[0]).toMatchObject({ method: 'POST', body: { text: 'Hello from agent-tts.', timestamps: 'word' } });
    expect(job.timings).toMatchObject({ granularity: 'word', vtt_url: expect.stringContaining('.vtt?') });
    // Without the field nothing is asked, and the job has no timings.
    const plain = await deployment().client.speak({ text: 'Hello' });
    expect(plain.timings).toBeUndefined();
  });

  it('downloads each rendering after one refresh of an expired URL: the JSON parsed, WebVTT and SRT as text, no key sent', async () => {
    const { client, seen } = deployment();
    const job = await client.speak({ text: 'Hello from agent-tts.', timestamps: 'word' });
    const file = await client.downloadCaptions(job, 'json');
    expect(file).toEqual(wordTimingsFileExample);
    expect(await client.downloadCaptions(job, 'vtt')).toBe(renderWebVtt(wordTimingsFileExample));
    expect(await client.downloadCaptions(job, 'srt')).toBe(renderSrt(wordTimingsFileExample));
    // Each: the URL the job came with (signed "first") is refused, the job is asked once, its fresh URL serves.
    const calls = seen.slice(1).map((s) => `${s.method} ${s.path}${s.query.includes('sig=') ? ` ${/sig=(\w+)/.exec(s.query)![1]}` : ''}`);
    expect(calls).toEqual(
      ['json', 'vtt', 'srt'].flatMap((f) => [`GET /v1/captions/${JOB_ID}.${f} first`, 'GET /v1/agent-tts', `GET /v1/captions/${JOB_ID}.${f} fresh`]),
    );
    for (const s of seen.filter((x) => x.path.startsWith('/v1/captions/'))) expect(s.authorization).toBeNull();
  });

  it('a job without timings is NO_TIMINGS before any request; a bare URL that is refused is NOT_FOUND', async () => {
    const { client, seen } = deployment();
    const error = (await client.downloadCaptions(completedJobExample, 'vtt').catch((e: unknown) => e)) as AgentTtsError;
    expect(error).toBeInstanceOf(AgentTtsError);
    expect(error.code).toBe('NO_TIMINGS');
    expect(error.jobId).toBe(JOB_ID);
    expect(error.message).toMatch(/timestamps: "word"/);
    expect(error.suggestedAction).toMatch(/timestamps: "word"/);
    expect(seen).toEqual([]);
    await expect(client.downloadCaptions(completedJobWithTimingsExample.timings!.vtt_url, 'vtt')).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('a job whose fresh GET has no timings (a service without the extension) is NO_TIMINGS', async () => {
    const { client } = deployment({ timings: false });
    await expect(client.downloadCaptions({ job_id: JOB_ID, timings: completedJobWithTimingsExample.timings }, 'srt')).rejects.toMatchObject({
      code: 'NO_TIMINGS',
      message: expect.stringContaining(`the service at ${BASE} does not offer word timings`),
    });
  });

  it('retries a 503 with Retry-After and a dropped connection, as the audio download does', async () => {
    const captionAnswers = [
      () =>
        new Response(JSON.stringify({ success: false, error: { code: 'INTERNAL_ERROR', message: 'store down' } }), {
          status: 503,
          headers: { 'retry-after': '0' },
        }),
      () => {
        throw new TypeError('fetch failed');
      },
    ];
    const { client, seen } = deployment({ captionAnswers });
    const job = await client.speak({ text: 'Hello from agent-tts.', timestamps: 'word' });
    const fresh = { job_id: job.job_id, timings: { ...job.timings!, vtt_url: job.timings!.vtt_url.replace('sig=first', 'sig=fresh') } };
    expect(await client.downloadCaptions(fresh, 'vtt')).toBe(renderWebVtt(wordTimingsFileExample));
    expect(seen.filter((s) => s.path.endsWith('.vtt'))).toHaveLength(3);
  });

  it('an answer that is not a timings file is INVALID_RESPONSE, not retried', async () => {
    const { client, seen } = deployment({
      captionAnswers: [() => new Response('<html>login</html>', { status: 200 }), () => new Response('{"words":3}', { status: 200 })],
    });
    const job = { job_id: JOB_ID, timings: completedJobWithTimingsExample.timings };
    const notJson = (await client.downloadCaptions(job, 'json').catch((e: unknown) => e)) as AgentTtsError;
    expect(notJson).toMatchObject({ code: 'INVALID_RESPONSE', message: `The answer from ${BASE}/v1/captions/${JOB_ID}.json is not JSON` });
    const notTimings = (await client.downloadCaptions(job, 'json').catch((e: unknown) => e)) as AgentTtsError;
    expect(notTimings).toMatchObject({ code: 'INVALID_RESPONSE', message: `The answer from ${BASE}/v1/captions/${JOB_ID}.json is not a word timings file` });
    // One request each: nothing retried, and the signature (the capability) is in no message.
    expect(seen).toHaveLength(2);
  });

  it('refuses a format it does not know', async () => {
    const { client } = deployment();
    // @ts-expect-error: not a format of the API
    await expect(client.downloadCaptions(completedJobWithTimingsExample, 'txt')).rejects.toThrow('format must be one of json, vtt, srt, got "txt"');
  });
});
