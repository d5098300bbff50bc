import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMp3 } from '../../../../test/helpers/http.js';
import type { InProcessServer } from '../../../../test/helpers/in-process.js';
import { createTestServices } from '../../../../test/helpers/test-services.js';
import { StoreUnavailableError } from '../../ports/index.js';

const json = async (res: Response) => ({ status: res.status, headers: res.headers, body: await res.json() });

describe('POST and GET /v1/agent-tts, in process', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await createTestServices();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('401 without a key, before looking at the body, with WWW-Authenticate and no RateLimit headers', async () => {
    for (const key of [undefined, `tts_00000000_${'0'.repeat(48)}`, 'not-a-key']) {
      const res = await json(await server.request('POST', '/v1/agent-tts', { key, body: '{not json' }));
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: { code: 'INVALID_KEY' }, meta: { api_version: '2026-04' } });
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.headers.get('ratelimit')).toBeNull();
    }
  });

  it('403 for an inactive subscription, with the key’s POST bucket reported and not taken', async () => {
    const { key } = await server.newKey({ subscription: 'inactive' });
    const res = await json(await server.request('POST', '/v1/agent-tts', { key, body: { text: 'Hello.' } }));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('INACTIVE_SUBSCRIPTION');
    expect(res.headers.get('ratelimit')).toBe('"post";r=1;t=0');
  });

  it('refuses bad requests with the contract’s error codes, taking no POST place', async () => {
    const { key } = await server.newKey();
    const bad: [string, Parameters<InProcessServer['request']>[2], string][] = [
      ['missing text', { key, body: { voice: 'af_heart' } }, 'INVALID_REQUEST'],
      ['blank text', { key, body: { text: '   ' } }, 'INVALID_REQUEST'],
      ['malformed JSON', { key, body: '{"text": ' }, 'INVALID_REQUEST'],
      ['a JSON array', { key, body: '["text"]' }, 'INVALID_REQUEST'],
      ['wrong content type', { key, body: 'text=hi', headers: { 'content-type': 'text/plain' } }, 'INVALID_REQUEST'],
      ['speed out of range', { key, body: { text: 'Hi.', speed: 1.6 } }, 'INVALID_REQUEST'],
      ['unknown voice pattern', { key, body: { text: 'Hi.', voice: 'xx_nobody' } }, 'INVALID_REQUEST'],
      ['unknown language', { key, body: { text: 'Hi.', voice: 'st_f1', language: 'xx' } }, 'INVALID_REQUEST'],
      ['bad Idempotency-Key', { key, body: { text: 'Hi.' }, headers: { 'idempotency-key': 'é' } }, 'INVALID_REQUEST'],
      ['too long by one code point (astral)', { key, body: { text: '😀'.repeat(500_001) } }, 'TEXT_TOO_LONG'],
    ];
    for (const [what, options, code] of bad) {
      const res = await json(await server.request('POST', '/v1/agent-tts', options));
      expect(res.status, what).toBe(400);
      expect(res.body.error.code, what).toBe(code);
      expect(res.body.meta.request_id, what).toBe(res.headers.get('x-request-id'));
      expect(res.headers.get('ratelimit'), what).toBe('"post";r=1;t=0');
    }
  });

  it('completes a short text inline; a replay answers the same job; another submission is rate limited', async () => {
    const { key } = await server.newKey();
    const first = await json(
      await server.request('POST', '/v1/agent-tts', {
        key,
        body: { text: 'Hello from the reference.', voice: 'st_f2' },
        headers: { 'idempotency-key': 'one' },
      }),
    );
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({
      success: true,
      status: 'completed',
      audio: { format: 'mp3', voice: 'st_f2', speed: 1.2, language: 'en' },
      billing: { mode: 'subscription', estimated_cost_cents: 0 },
    });
    expect(first.body.meta.processing_time_ms).toBeGreaterThanOrEqual(0);
    expect(first.headers.get('ratelimit')).toMatch(/^"post";r=0;t=\d+$/);

    const replay = await json(
      await server.request('POST', '/v1/agent-tts', { key, body: { text: 'Hello from the reference.' }, headers: { 'idempotency-key': 'one' } }),
    );
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.job_id).toBe(first.body.job_id);

    const another = await json(await server.request('POST', '/v1/agent-tts', { key, body: { text: 'Again.' }, headers: { 'idempotency-key': 'two' } }));
    expect(another.status).toBe(429);
    expect(another.body.error.code).toBe('RATE_LIMITED');
    expect(Number(another.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    const audioPath = new URL(first.body.audio_url).pathname + new URL(first.body.audio_url).search;
    const audio = await server.app.request(audioPath);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/mpeg');
    const decoded = await decodeMp3(new Uint8Array(await audio.arrayBuffer()));
    expect(Math.abs(decoded.seconds - first.body.audio.duration_seconds)).toBeLessThan(0.1);
  });

  it('GET: 400 for a bad id, 404 alike for unknown and foreign jobs, 200 with a fresh URL for the owner', async () => {
    const owner = await server.newKey();
    const stranger = await server.newKey();
    const posted = await json(await server.request('POST', '/v1/agent-tts', { key: owner.key, body: { text: 'Poll me.' } }));
    const id = posted.body.job_id as string;

    for (const bad of ['?id=abc', '', `?id=${id}&id=${id}`]) {
      const res = await json(await server.request('GET', `/v1/agent-tts${bad}`, { key: owner.key }));
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.headers.get('ratelimit-policy')).toBe('"get";q=30;w=60');
    }
    const foreign = await json(await server.request('GET', `/v1/agent-tts?id=${id}`, { key: stranger.key }));
    const unknown = await json(await server.request('GET', '/v1/agent-tts?id=6f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', { key: stranger.key }));
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.error).toEqual(unknown.body.error);

    const mine = await json(await server.request('GET', `/v1/agent-tts?id=${id.toUpperCase()}`, { key: owner.key }));
    expect(mine.status).toBe(200);
    expect(mine.body.job_id).toBe(id);
    expect(['completed', 'processing']).toContain(mine.body.status);
    if (mine.body.status === 'completed') {
      const fresh = new URL(mine.body.audio_url);
      expect((await server.app.request(fresh.pathname + fresh.search)).status).toBe(200);
    }
    expect(mine.body.meta).not.toHaveProperty('processing_time_ms');
  });
});

describe('audio downloads, in process', () => {
  let server: InProcessServer;
  let url: URL;
  beforeAll(async () => {
    server = await createTestServices();
    const { key } = await server.newKey();
    const posted = await (await server.request('POST', '/v1/agent-tts', { key, body: { text: 'A file to fetch in parts.' } })).json();
    url = new URL(posted.audio_url);
  });
  afterAll(async () => {
    await server?.close();
  });
  const get = (u: URL, headers: Record<string, string> = {}, method = 'GET') => server.app.request(u.pathname + u.search, { headers, method });

  it('serves ranges with 206, and 416 with the INVALID_REQUEST body past the end', async () => {
    const whole = new Uint8Array(await (await get(url)).arrayBuffer());
    const part = await get(url, { range: 'bytes=10-19' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${whole.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(whole.slice(10, 20));
    const head = await get(url, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(whole.length));
    const past = await get(url, { range: `bytes=${whole.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${whole.length}`);
    expect((await past.json()).error.code).toBe('INVALID_REQUEST');
  });

  it('ignores a Range that is not one valid byte range (bytes=100-50 included): 200 and the whole file; 416 stays for a valid range past the end', async () => {
    const whole = new Uint8Array(await (await get(url)).arrayBuffer());
    expect(whole.length).toBeGreaterThan(100);
    // RFC 9110 §14.1.2: a last-pos below the first-pos makes the range invalid, and §14.2 has such a
    // Range ignored. Likewise another unit, several ranges, and text that is no range at all.
    for (const range of ['bytes=100-50', 'bytes=1-0', 'items=0-9', 'bytes=0-9,20-29', 'bytes=abc', 'bytes=-']) {
      const res = await get(url, { range });
      expect(res.status, range).toBe(200);
      expect(res.headers.get('content-range'), range).toBeNull();
      expect(res.headers.get('content-length'), range).toBe(String(whole.length));
      expect(new Uint8Array(await res.arrayBuffer()), range).toEqual(whole);
    }
    for (const range of ['bytes=999999-', 'bytes=999999-1000000', `bytes=${whole.length}-${whole.length + 10}`, 'bytes=-0']) {
      const res = await get(url, { range });
      expect(res.status, range).toBe(416);
      expect(res.headers.get('content-range'), range).toBe(`bytes */${whole.length}`);
      expect((await res.json()).error.code, range).toBe('INVALID_REQUEST');
    }
    // A valid range whose end is past the file is cut at the end of the file, as before.
    const tail = await get(url, { range: `bytes=${whole.length - 5}-999999` });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes ${whole.length - 5}-${whole.length - 1}/${whole.length}`);
  });

  it('answers a tampered signature and a URL cut short alike: 404 NOT_FOUND, so a client re-polls for a fresh URL', async () => {
    const tampered = new URL(url);
    const sig = tampered.searchParams.get('sig')!;
    tampered.searchParams.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
    const res = await get(tampered);
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('NOT_FOUND');
    const unsigned = new URL(url);
    unsigned.searchParams.delete('sig');
    const malformed = await get(unsigned);
    expect(malformed.status).toBe(404);
    const body = await malformed.json();
    expect(body.error.code).toBe('NOT_FOUND');
    expect(body.error.message).toMatch(/sig/);
  });
});

describe('POST /v1/agent-tts when the store stops answering, in process', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await createTestServices();
  });
  afterAll(async () => {
    await server?.close();
  });

  const unavailable = () => Promise.reject(new StoreUnavailableError('the store did not answer (test)', { timedOut: true }));

  it('a job that could not be made: 500 INTERNAL_ERROR telling to retry with the same Idempotency-Key', async () => {
    const { key } = await server.newKey();
    const store = server.services.store;
    const createJob = store.createJob;
    store.createJob = unavailable;
    try {
      const res = await json(await server.request('POST', '/v1/agent-tts', { key, body: { text: 'Hello.' }, headers: { 'idempotency-key': 'outage-1' } }));
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('INTERNAL_ERROR');
      expect(res.body.error.message).toMatch(/same Idempotency-Key/);
      expect(res.body.meta.request_id).toBe(res.headers.get('x-request-id'));
    } finally {
      store.createJob = createJob;
    }
    // The claim was given back: the retry with the same key makes the job.
    const retried = await json(await server.request('POST', '/v1/agent-tts', { key, body: { text: 'Hello.' }, headers: { 'idempotency-key': 'outage-1' } }));
    expect([200, 202]).toContain(retried.status);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a job that was made, then the store fails during the inline wait: 202 with the job to poll, not an error', async () => {
    const { key } = await server.newKey();
    const store = server.services.store;
    const getJob = store.getJob;
    store.getJob = unavailable;
    let res;
    try {
      res = await json(await server.request('POST', '/v1/agent-tts', { key, body: { text: 'Made before the outage.' } }));
    } finally {
      store.getJob = getJob;
    }
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('processing');
    const polled = await json(await server.request('GET', `/v1/agent-tts?id=${res.body.job_id}`, { key }));
    expect(polled.status).toBe(200);
    expect(polled.body.job_id).toBe(res.body.job_id);
  });
});
