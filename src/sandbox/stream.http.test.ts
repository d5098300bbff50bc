/**
 * The streaming extension through the sandbox (docs/api-rules.md#streaming-audio): a processing job's
 * `stream_url` is joined while the job is held on the sandbox clock, sends nothing until the clock
 * completes the job, and then ends with exactly the bytes of its `audio_url`; a failed job ends it
 * abnormally; the URL is refused as the audio URL is, and expires on the sandbox clock.
 */
import { MPEGDecoder } from 'mpg123-decoder';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type SandboxCore } from './sandbox.js';

let sb: SandboxCore;
beforeEach(async () => {
  sb = await createSandbox({
    baseUrl: 'http://sandbox.test',
    voicesUrl: 'http://voices.test',
    env: { RATE_POST_LIMIT: '100', RATE_GET_LIMIT: '100' },
    validateResponses: true,
  });
});
afterEach(() => sb?.close());

// biome-ignore lint/suspicious/noExplicitAny: JSON read off the wire is walked field by field, and every check tests the value it reads
type Json = Record<string, any>;
const post = async (text: string) =>
  sb.fetch(
    new Request('http://sandbox.test/v1/agent-tts', {
      method: 'POST',
      headers: { Authorization: `Bearer ${sb.keys.active_pro}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text }),
    }),
  );
const get = (url: string, key?: string) =>
  sb.fetch(new Request(new URL(url, 'http://sandbox.test'), { headers: key ? { Authorization: `Bearer ${key}` } : {} }));
const poll = async (jobId: string) => (await (await get(`/v1/agent-tts?id=${jobId}`, sb.keys.active_pro)).json()) as Json;
const advance = async (seconds: number) => {
  const res = await sb.fetch(
    new Request('http://sandbox.test/sandbox/clock', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ advance_seconds: seconds }),
    }),
  );
  expect(res.status).toBe(200);
};

/** Reads a body to its end, or to the error that ends it abnormally. */
async function readAll(body: ReadableStream<Uint8Array>): Promise<{ bytes: Uint8Array; error?: unknown }> {
  const parts: Uint8Array[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
  } catch (error) {
    return { bytes: Buffer.concat(parts), error };
  }
  return { bytes: new Uint8Array(Buffer.concat(parts)) };
}

/** Whether a promise is still pending after the event loop has had its turns. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  return !settled;
}

describe('sandbox: the stream of a job held on the clock', () => {
  it('joins while processing, sends nothing until the clock completes the job, then ends with exactly the audio_url bytes', async () => {
    const accepted = (await (await post('A job that takes four seconds on the clock. It has two sentences. sandbox:async=4')).json()) as Json;
    expect(accepted.status).toBe('processing');
    const url = new URL(accepted.stream_url);
    expect([url.origin, url.pathname]).toEqual(['http://sandbox.test', `/v1/stream/${accepted.job_id}.mp3`]);
    const polled = await poll(accepted.job_id);
    expect(polled.status).toBe('processing');
    expect(typeof polled.stream_url).toBe('string');

    const early = await get(accepted.stream_url);
    expect([early.status, early.headers.get('content-type'), early.headers.get('cache-control'), early.headers.get('content-length')]).toEqual([
      200,
      'audio/mpeg',
      'no-store',
      null,
    ]);
    const reading = readAll(early.body as ReadableStream<Uint8Array>);
    expect(await pending(reading)).toBe(true);

    await advance(4);
    const streamed = await reading;
    expect(streamed.error).toBeUndefined();
    const done = await poll(accepted.job_id);
    expect(done.status).toBe('completed');
    const file = new Uint8Array(await (await get(done.audio_url)).arrayBuffer());
    expect(streamed.bytes).toEqual(file);
    const decoder = new MPEGDecoder();
    await decoder.ready;
    const decoded = decoder.decode(streamed.bytes);
    decoder.free();
    expect(decoded.errors).toEqual([]);
    expect(decoded.samplesDecoded / decoded.sampleRate).toBeCloseTo(done.audio.duration_seconds, 0);

    // A listener that joins after the end, with the URL of the 202, gets the file too.
    const late = await get(accepted.stream_url);
    expect(late.status).toBe(200);
    expect(new Uint8Array(await late.arrayBuffer())).toEqual(file);
  });

  it('ends the stream abnormally when the clock fails the job, and then refuses the URL 404 NOT_FOUND', async () => {
    const accepted = (await (await post('Fails half way. sandbox:async=4 sandbox:provider_error')).json()) as Json;
    expect(accepted.status).toBe('processing');
    const open = await get(accepted.stream_url);
    expect(open.status).toBe(200);
    const reading = readAll(open.body as ReadableStream<Uint8Array>);
    await advance(4);
    expect((await reading).error).toBeDefined();
    expect((await poll(accepted.job_id)).status).toBe('failed');
    const after = await get(accepted.stream_url);
    expect(after.status).toBe(404);
    expect(((await after.json()) as Json).error.code).toBe('NOT_FOUND');
  });

  it('refuses a tampered stream URL and the audio URL’s query, and the URL expires on the sandbox clock', async () => {
    const accepted = (await (await post('Short. sandbox:async=2')).json()) as Json;
    const url = new URL(accepted.stream_url);
    const sig = url.searchParams.get('sig') ?? '';
    const tampered = new URL(url);
    tampered.searchParams.set('sig', `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
    const refused = await get(tampered.toString());
    expect(refused.status).toBe(404);
    const body = (await refused.json()) as Json;
    expect([body.success, body.error.code, typeof body.meta.request_id]).toEqual([false, 'NOT_FOUND', 'string']);

    await advance(2);
    const done = await poll(accepted.job_id);
    const withAudioQuery = new URL(url);
    withAudioQuery.search = new URL(done.audio_url).search;
    expect((await get(withAudioQuery.toString())).status).toBe(404);
    expect((await get(accepted.stream_url)).status).toBe(200);

    await advance(Number(url.searchParams.get('expires')) - Math.floor(sb.clock.now() / 1000) + 1);
    const expired = await get(accepted.stream_url);
    expect(expired.status).toBe(404);
    expect(((await expired.json()) as Json).error.code).toBe('NOT_FOUND');
  });
});
