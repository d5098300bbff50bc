import { connect } from 'node:net';
import { MPEGDecoder } from 'mpg123-decoder';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentTtsClient } from '../client/client.js';
import { ConformanceFixtures } from '../contract/fixtures.js';
import { ConfigError } from '../server/config/error.js';
import { isLoopbackHost, type RunningSandbox, startSandbox } from './index.js';
import { createSandbox, type SandboxCore } from './sandbox.js';

let sb: SandboxCore;
const BASE = 'http://sandbox.test';

async function open(env: Record<string, string> = { RATE_POST_LIMIT: '100', RATE_GET_LIMIT: '100' }) {
  sb = await createSandbox({ baseUrl: BASE, voicesUrl: 'http://voices.test', env });
}
afterEach(() => sb?.close());

// biome-ignore lint/suspicious/noExplicitAny: JSON read off the wire is walked field by field, and every check tests the value it reads
type Json = Record<string, any>;
const post = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  sb.app.request('/v1/agent-tts', {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const get = (key: string, id: string) => sb.app.request(`/v1/agent-tts?id=${id}`, { headers: { Authorization: `Bearer ${key}` } });
const clock = (body: unknown) =>
  sb.app.request('/sandbox/clock', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const advance = async (seconds: number) => {
  const res = await clock({ advance_seconds: seconds });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
};
const audioPath = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

describe('sandbox: magic inputs', () => {
  beforeEach(() => open());

  it('sandbox:inline answers 200 at once with a decodable MP3 of the estimated duration', async () => {
    const text = 'A sentence long enough to last a few seconds when spoken aloud by the reference engine. sandbox:inline';
    const res = await post(sb.keys.active_pro, { text });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.status).toBe('completed');
    const mp3 = await sb.app.request(audioPath(body.audio_url));
    expect(mp3.status).toBe(200);
    expect(mp3.headers.get('content-type')).toBe('audio/mpeg');
    const decoder = new MPEGDecoder();
    await decoder.ready;
    const decoded = decoder.decode(new Uint8Array(await mp3.arrayBuffer()));
    decoder.free();
    const seconds = decoded.samplesDecoded / decoded.sampleRate;
    expect(decoded.errors).toEqual([]);
    expect(Math.abs(seconds - body.audio.duration_seconds) / body.audio.duration_seconds).toBeLessThan(0.1);
    const { Estimator } = await import('../server/synth/index.js');
    const expected = new Estimator('espeak', 1).audioSeconds(text, body.audio.speed, body.audio.language);
    expect(Math.abs(seconds - expected) / expected).toBeLessThan(0.1);
  });

  it('sandbox:inline=<s> takes that long in real time, and the inline wait holds the POST for it: 200 with processing_time_ms', async () => {
    const started = Date.now();
    const res = await post(sb.keys.active_pro, { text: 'Take a second. sandbox:inline=1.2' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.status).toBe('completed');
    expect(body.meta.processing_time_ms).toBeGreaterThanOrEqual(1_200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_200);
  });

  it('sandbox:inline=<s> longer than the inline wait answers 202 when the wait ends, and completes after <s>', async () => {
    await sb.close();
    await open({ RATE_POST_LIMIT: '100', RATE_GET_LIMIT: '100', INLINE_WAIT_MS: '300' });
    const res = await post(sb.keys.active_pro, { text: 'Take a second. sandbox:inline=1' });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as Json;
    // It completes once its second of real time (and its encoding) has passed: looked at until then, not after a fixed sleep.
    let status = 'processing';
    for (const deadline = Date.now() + 20_000; status === 'processing' && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = ((await (await get(sb.keys.active_pro, accepted.job_id)).json()) as Json).status;
    }
    expect(status).toBe('completed');
  });

  it('a job of sandbox:inline=<s> still running does not hold up stopping the sandbox', async () => {
    const pending = Promise.resolve(post(sb.keys.active_pro, { text: 'A minute of real time. sandbox:inline=60' })).catch(() => undefined);
    for (const deadline = Date.now() + 10_000; (await sb.services.queue.stats!()).active === 0; ) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const started = performance.now();
    await sb.close();
    expect(performance.now() - started).toBeLessThan(20_000);
    await pending;
  });

  it('sandbox:async=<s> answers 202; progress moves with the clock and advancing it completes the job', async () => {
    await clock({ freeze: true });
    const res = await post(sb.keys.active_pro, { text: 'Hello there. sandbox:async=4' });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as Json;
    expect(accepted.retry_after_seconds).toBe(4);
    await advance(2);
    const half = (await (await get(sb.keys.active_pro, accepted.job_id)).json()) as Json;
    expect(half.status).toBe('processing');
    expect(half.progress_percent).toBe(50);
    expect(half.retry_after_seconds).toBe(2);
    await advance(2);
    const done = (await (await get(sb.keys.active_pro, accepted.job_id)).json()) as Json;
    expect(done.status).toBe('completed');
    expect(done.audio.duration_seconds).toBeGreaterThan(0);
  });

  it('without a marker: a short text inline, a long one asynchronous for its estimated time on the clock', async () => {
    expect((await post(sb.keys.active_pro, { text: 'Short.' })).status).toBe(200);
    await clock({ freeze: true });
    const long = (await post(sb.keys.active_ultimate, { text: 'A long text to read. '.repeat(10_000) })).status;
    expect(long).toBe(202);
  });

  it('sandbox:provider_error fails inline with TTS_PROVIDER_ERROR and charges nothing', async () => {
    const res = await post(sb.keys.active_pro, { text: 'Fail me. sandbox:provider_error' });
    expect(res.status).toBe(502);
    const body = (await res.json()) as Json;
    expect(body.error.code).toBe('TTS_PROVIDER_ERROR');
    expect(body.error.message).toMatch(/new Idempotency-Key/i);
    const polled = (await (await get(sb.keys.active_pro, body.error.details.job_id)).json()) as Json;
    expect(polled.status).toBe('failed');
    // No charge: the next completed job of the account reports no minutes used before its own.
    const ok = (await (await post(sb.keys.active_pro, { text: 'Hi. sandbox:inline' })).json()) as Json;
    expect(ok.billing.monthly_minutes_used).toBeLessThan(0.2);
  });

  it('sandbox:provider_error=40 with sandbox:async=5 shows 40 % progress first, then fails on the clock', async () => {
    await clock({ freeze: true });
    const accepted = (await (await post(sb.keys.active_pro, { text: 'x sandbox:provider_error=40 sandbox:async=5' })).json()) as Json;
    expect(accepted.status).toBe('processing');
    await advance(1);
    expect(((await (await get(sb.keys.active_pro, accepted.job_id)).json()) as Json).progress_percent).toBe(20);
    await advance(1);
    const failed = (await (await get(sb.keys.active_pro, accepted.job_id)).json()) as Json;
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('TTS_PROVIDER_ERROR');
  });

  it('sandbox:internal_error fails with INTERNAL_ERROR, inline and asynchronously', async () => {
    const inline = await post(sb.keys.active_pro, { text: 'x sandbox:internal_error' });
    expect(inline.status).toBe(500);
    expect(((await inline.json()) as Json).error.code).toBe('INTERNAL_ERROR');
    await clock({ freeze: true });
    const accepted = (await (await post(sb.keys.active_pro, { text: 'x sandbox:internal_error sandbox:async=2' })).json()) as Json;
    expect(accepted.status).toBe('processing');
    await advance(2);
    const failed = (await (await get(sb.keys.active_pro, accepted.job_id)).json()) as Json;
    expect(failed.error.code).toBe('INTERNAL_ERROR');
  });

  it('replays follow the idempotency rules: the same key answers the same job, marked replayed', async () => {
    await clock({ freeze: true });
    const first = (await (await post(sb.keys.active_pro, { text: 'Once. sandbox:async=3' }, { 'Idempotency-Key': 'k-1' })).json()) as Json;
    const again = await post(sb.keys.active_pro, { text: 'Once. sandbox:async=3' }, { 'Idempotency-Key': 'k-1' });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as Json).job_id).toBe(first.job_id);
    // docs/api-rules.md#idempotency: the key alone decides; a different body is answered with the same job.
    const other = (await (await post(sb.keys.active_pro, { text: 'Another text' }, { 'Idempotency-Key': 'k-1' })).json()) as Json;
    expect(other.job_id).toBe(first.job_id);
    await advance(3);
    const replayDone = await post(sb.keys.active_pro, { text: 'Once. sandbox:async=3' }, { 'Idempotency-Key': 'k-1' });
    expect(replayDone.status).toBe(200);
    expect(((await replayDone.json()) as Json).job_id).toBe(first.job_id);
  });
});

describe('sandbox: the test clock in every time-dependent rule', () => {
  it('moves the rate-limit window: a 429 with Retry-After, then accepted once the clock passes it', async () => {
    await open({});
    await clock({ freeze: true });
    expect((await post(sb.keys.active_pro, { text: 'One.' })).status).toBe(200);
    const limited = await post(sb.keys.active_pro, { text: 'Two.' });
    expect(limited.status).toBe(429);
    const wait = Number(limited.headers.get('retry-after'));
    expect(wait).toBe(60);
    await advance(wait - 1);
    expect((await post(sb.keys.active_pro, { text: 'Two.' })).status).toBe(429);
    await advance(1);
    expect((await post(sb.keys.active_pro, { text: 'Two.' })).status).toBe(200);
  });

  it('expires audio URLs on the clock', async () => {
    await open();
    const job = (await (await post(sb.keys.active_pro, { text: 'Keep me.' })).json()) as Json;
    expect((await sb.app.request(audioPath(job.audio_url))).status).toBe(200);
    await advance(3601);
    expect((await sb.app.request(audioPath(job.audio_url))).status).toBe(404);
    const fresh = (await (await get(sb.keys.active_pro, job.job_id)).json()) as Json;
    expect((await sb.app.request(audioPath(fresh.audio_url))).status).toBe(200);
  });

  it('resets the monthly minutes when the clock reaches the next month', async () => {
    await open();
    const refused = await post(sb.keys.minutes_used_up, { text: 'Anything.' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as Json).error.code).toBe('USAGE_LIMIT_EXCEEDED');
    const now = new Date(sb.clock.now());
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    expect((await clock({ set: nextMonth.toISOString() })).status).toBe(200);
    const accepted = (await (await post(sb.keys.minutes_used_up, { text: 'Anything.' })).json()) as Json;
    expect(accepted.status).toBe('completed');
    expect(accepted.billing.monthly_minutes_used).toBeLessThan(1);
  });

  it('deletes jobs whose retention has passed as soon as the clock moves past it', async () => {
    await open();
    const job = (await (await post(sb.keys.active_free, { text: 'Short-lived.' })).json()) as Json;
    await advance(86_400 - 10);
    expect((await get(sb.keys.active_free, job.job_id)).status).toBe(200);
    await advance(20);
    expect((await get(sb.keys.active_free, job.job_id)).status).toBe(404);
  });

  it('GET/POST /sandbox/clock: freeze, advance, set, reset; bad bodies are 400 with the error body', async () => {
    await open();
    const frozen = (await (await clock({ freeze: true })).json()) as Json;
    expect(frozen.frozen).toBe(true);
    const later = await advance(90);
    expect(Date.parse(later.now) - Date.parse(frozen.now)).toBe(90_000);
    expect(later.offset_seconds).toBeGreaterThanOrEqual(89);
    expect(((await (await sb.app.request('/sandbox/clock')).json()) as Json).now).toBe(later.now);
    // processing_time_ms is what the request took in real time, not the clock's offset.
    const inline = (await (await post(sb.keys.active_pro, { text: 'Hi.' })).json()) as Json;
    expect(inline.meta.processing_time_ms).toBeLessThan(30_000);
    for (const bad of [
      'not json',
      { advance_seconds: -1 },
      { advance_seconds: 'x' },
      { set: 'yesterday' },
      { set: '2000-01-01T00:00:00Z' },
      { freeze: true, reset: true },
      {},
      { reset: false },
    ]) {
      const res = await clock(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      const body = (await res.json()) as Json;
      expect(body.error.code).toBe('INVALID_REQUEST');
      expect(body.meta.request_id).toMatch(/^[0-9a-f-]{36}$/);
    }
    const thawed = (await (await clock({ freeze: false })).json()) as Json;
    expect(thawed.frozen).toBe(false);
    const reset = (await (await clock({ reset: true })).json()) as Json;
    expect(reset.offset_seconds).toBe(0);
  });
});

describe('sandbox: the request journal', () => {
  beforeEach(() => open({ RATE_GET_LIMIT: '100' }));

  it('lists what was sent and answered, key redacted, long text cut; filters; clears; ignores /sandbox', async () => {
    const res = await post(sb.keys.active_pro, { text: `Journal me. ${'x'.repeat(300)}` });
    const job = (await res.json()) as Json;
    await get(sb.keys.active_ultimate, job.job_id);
    await sb.app.request('/sandbox');
    const all = (await (await sb.app.request('/sandbox/requests')).json()) as Json;
    expect(all.requests).toHaveLength(2);
    const [first, second] = all.requests;
    const publicId = sb.keys.active_pro.slice(0, 12);
    expect(first).toMatchObject({ method: 'POST', path: '/v1/agent-tts', key: publicId, response: { status: 200, job_id: job.job_id } });
    expect(first.headers.authorization).toBe(`Bearer ${publicId}`);
    expect(JSON.stringify(all)).not.toContain(sb.keys.active_pro);
    expect(first.body.text).toHaveLength(200);
    expect(first.body).toMatchObject({ text_truncated: true, text_length: 312 });
    expect(second.response).toMatchObject({ status: 404, error_code: 'NOT_FOUND' });

    const only = async (q: string) => ((await (await sb.app.request(`/sandbox/requests?${q}`)).json()) as Json).requests.map((e: Json) => e.id);
    expect(await only('method=get')).toEqual([second.id]);
    expect(await only('status=200')).toEqual([first.id]);
    expect(await only(`key=${publicId}`)).toEqual([first.id]);
    expect(await only('path=/v1/agent-tts')).toEqual([first.id, second.id]);
    expect(await only(`since=${encodeURIComponent(new Date(sb.clock.now() + 1000).toISOString())}`)).toEqual([]);
    expect((await sb.app.request('/sandbox/requests?status=abc')).status).toBe(400);

    expect((await sb.app.request('/sandbox/requests', { method: 'DELETE' })).status).toBe(200);
    expect(((await (await sb.app.request('/sandbox/requests')).json()) as Json).requests).toEqual([]);
  });

  it('flags a client that polls sooner than the retry_after_seconds it was given', async () => {
    await clock({ freeze: true });
    const job = (await (await post(sb.keys.active_pro, { text: 'Wait for me. sandbox:async=10' })).json()) as Json;
    expect(job.retry_after_seconds).toBe(10);
    await advance(3);
    await get(sb.keys.active_pro, job.job_id); // too soon: told 10 s, polled after 3
    await advance(8);
    await get(sb.keys.active_pro, job.job_id); // in time
    const entries = (await (await sb.app.request('/sandbox/requests?method=GET')).json()) as Json;
    expect(entries.requests[0].flags).toEqual([{ code: 'POLLED_TOO_SOON', message: expect.stringContaining('retry_after_seconds: 10') }]);
    expect(entries.requests[1].flags).toEqual([]);
  });

  it('flags a retry after a 429 before Retry-After elapsed, and a POST retry without an Idempotency-Key', async () => {
    await clock({ freeze: true });
    await post(sb.keys.active_pro, { text: 'First.' });
    expect((await post(sb.keys.active_pro, { text: 'Second.' })).status).toBe(429);
    await advance(10);
    expect((await post(sb.keys.active_pro, { text: 'Second.' })).status).toBe(429);
    const posts = ((await (await sb.app.request('/sandbox/requests?method=POST')).json()) as Json).requests;
    expect(posts[0].flags).toEqual([]);
    expect(posts[1].flags).toEqual([]);
    expect(posts[2].flags.map((f: Json) => f.code)).toEqual(['RETRIED_BEFORE_RETRY_AFTER', 'RETRY_WITHOUT_IDEMPOTENCY_KEY']);
    // With an Idempotency-Key the resend is not flagged as a keyless retry.
    await advance(60);
    await post(sb.keys.active_ultimate, { text: 'Keyed.' }, { 'Idempotency-Key': 'a' });
    await post(sb.keys.active_ultimate, { text: 'Keyed.' }, { 'Idempotency-Key': 'a' });
    const keyed = ((await (await sb.app.request(`/sandbox/requests?key=${sb.keys.active_ultimate.slice(0, 12)}`)).json()) as Json).requests;
    expect(keyed.flatMap((e: Json) => e.flags)).toEqual([]);
  });
});

describe('sandbox: the journal checks Idempotency-Keys', () => {
  let running: RunningSandbox | undefined;
  afterEach(() => running?.stop());
  const postTo = (sandbox: RunningSandbox, key: string, body: unknown, idempotencyKey?: string) =>
    fetch(`${sandbox.baseUrl}/v1/agent-tts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('flags a key reused after the answer asked for a new one, and expectNoFlags says what the client did wrong', async () => {
    running = await startSandbox({ env: { RATE_POST_LIMIT: '100' } });
    const key = running.keys.active_pro;
    const failed = await postTo(running, key, { text: 'Fail me. sandbox:provider_error' }, 'careless-1');
    expect(failed.status).toBe(502);
    expect(((await failed.json()) as Json).error.message).toMatch(/new Idempotency-Key/);
    expect(running.journal.expectNoFlags()).toBeUndefined(); // one failure is the service's, not the client's
    // The careless client retries the same logical request with the same key: the service replays the failure.
    const again = await postTo(running, key, { text: 'Fail me. sandbox:provider_error' }, 'careless-1');
    expect(again.status).toBe(502);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const [first, second] = running.journal.list();
    expect(first!.response.replayed).toBeUndefined();
    expect(first!.flags).toEqual([]);
    expect(second!.response).toMatchObject({ status: 502, error_code: 'TTS_PROVIDER_ERROR', replayed: true });
    expect(second!.flags).toEqual([
      {
        code: 'IDEMPOTENCY_KEY_REUSED_AFTER_NEW_KEY_ASKED',
        message: expect.stringContaining(
          `Idempotency-Key "careless-1" was sent again after the answer to request #${first!.id} asked for a new Idempotency-Key`,
        ),
      },
    ]);
    expect(() => running!.journal.expectNoFlags()).toThrow(
      new RegExp(
        `^The sandbox's journal shows a mistake of the client:\n  #${second!.id} POST /v1/agent-tts \\(.+\\): IDEMPOTENCY_KEY_REUSED_AFTER_NEW_KEY_ASKED: .*Retry with a fresh key\\.$`,
      ),
    );
    expect(running.journal.count({ method: 'POST' })).toBe(2);
    expect(running.journal.count({ method: 'GET' })).toBe(0);

    // The same over HTTP, with the journal's filters.
    const count = (await (await fetch(`${running.baseUrl}/sandbox/requests/count?method=POST&status=502`)).json()) as Json;
    expect(count.count).toBe(2);
    const flags = (await (await fetch(`${running.baseUrl}/sandbox/requests/flags?key=${key.slice(0, 12)}`)).json()) as Json;
    expect(flags.flags).toEqual([
      {
        id: second!.id,
        at: second!.at,
        method: 'POST',
        path: '/v1/agent-tts',
        code: 'IDEMPOTENCY_KEY_REUSED_AFTER_NEW_KEY_ASKED',
        message: second!.flags[0]!.message,
      },
    ]);
    expect(flags.count).toBe(1);
    expect((await fetch(`${running.baseUrl}/sandbox/requests/flags?status=5xx`)).status).toBe(400);
    const index = (await (await fetch(`${running.baseUrl}/sandbox`)).json()) as Json;
    expect(index.journal).toMatchObject({ count_url: '/sandbox/requests/count', flags_url: '/sandbox/requests/flags' });
    running.journal.clear();
    expect(running.journal.expectNoFlags()).toBeUndefined();
  });

  it('flags a key reused after a poll reported its job failed', async () => {
    running = await startSandbox({ env: { RATE_POST_LIMIT: '100' } });
    await running.clock.freeze();
    const key = running.keys.active_ultimate;
    const text = { text: 'x sandbox:provider_error=40 sandbox:async=5' };
    const accepted = (await (await postTo(running, key, text, 'careless-2')).json()) as Json;
    expect(accepted.status).toBe('processing');
    await running.clock.advance(5);
    const polled = (await (
      await fetch(`${running.baseUrl}/v1/agent-tts?id=${accepted.job_id}`, { headers: { Authorization: `Bearer ${key}` } })
    ).json()) as Json;
    expect(polled.status).toBe('failed');
    await postTo(running, key, text, 'careless-2');
    expect(running.journal.flags().map((f) => [f.method, f.code])).toEqual([['POST', 'IDEMPOTENCY_KEY_REUSED_AFTER_NEW_KEY_ASKED']]);
    expect(running.journal.flags()[0]!.message).toContain(`(job ${accepted.job_id} failed)`);
  });

  it('flags a key reused with a different body; the answer stays the replay of its first job', async () => {
    running = await startSandbox({ env: { RATE_POST_LIMIT: '100' } });
    const key = running.keys.active_free;
    const first = (await (await postTo(running, key, { text: 'The first text.', voice: 'st_f1' }, 'k-1')).json()) as Json;
    const other = await postTo(running, key, { text: 'Another text.', voice: 'st_f1' }, 'k-1');
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBe('true');
    expect(((await other.json()) as Json).job_id).toBe(first.job_id);
    // The same body, its fields in another order and spaced differently: a retry, not flagged.
    await postTo(running, key, '{ "voice": "st_f1",  "text": "The first text." }', 'k-1');
    const entries = running.journal.list();
    expect(entries.map((e) => [e.response.replayed ?? false, e.flags.map((f) => f.code)])).toEqual([
      [false, []],
      [true, ['IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY']],
      [true, []],
    ]);
    expect(entries[1]!.flags[0]!.message).toBe(
      `Idempotency-Key "k-1" was first sent with a different body (job ${first.job_id}); the service answers with that job, not this request's text. Send one key per logical submission: a different text needs a new key.`,
    );
    expect(() => running!.journal.expectNoFlags()).toThrow(/IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY/);
    // A key refused before it made a job (here: an invalid body) is not bound: what follows is not a reuse.
    await postTo(running, key, { text: '' }, 'k-2');
    await postTo(running, key, { text: 'Now valid.' }, 'k-2');
    expect(
      running.journal
        .list({ since: entries[2]!.at })
        .slice(-2)
        .flatMap((e) => e.flags),
    ).toEqual([]);
  });

  it('passes a careful client: the typed client makes a fresh key after a failed job, polls as told', async () => {
    running = await startSandbox({ env: { RATE_POST_LIMIT: '100' } });
    const client = new AgentTtsClient({ baseUrl: running.baseUrl, apiKey: running.keys.active_pro, retry: { baseDelayMs: 1 } });
    // Resubmitting a failed job with a fresh key is opt-in (docs/clients.md#failure-policy).
    await expect(client.speak({ text: 'Fail me. sandbox:provider_error' }, { maxResubmits: 1 })).rejects.toMatchObject({ code: 'TTS_PROVIDER_ERROR' });
    const job = await client.speak({ text: 'Wait for me. sandbox:async=1' });
    expect(job.status).toBe('completed');
    const posts = running.journal.list({ method: 'POST' });
    // The first failure, then a retry with a fresh key (which failed too), then the async job.
    expect(new Set(posts.map((e) => e.headers['idempotency-key'])).size).toBe(posts.length);
    expect(running.journal.count({ method: 'POST', status: 502 })).toBeGreaterThanOrEqual(2);
    expect(running.journal.count({ method: 'GET' })).toBeGreaterThanOrEqual(1);
    expect(() => running!.journal.expectNoFlags()).not.toThrow();
  });
});

describe('sandbox: like a deployment, but marked', () => {
  beforeEach(() => open());

  it('answers unknown, revoked and refused keys as a deployment would', async () => {
    const unknown = await post(`tts_00000000_${'0'.repeat(48)}`, { text: 'Hi.' });
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as Json).error.code).toBe('INVALID_KEY');
    expect((await post(sb.keys.revoked, { text: 'Hi.' })).status).toBe(401);
    expect(((await (await post(sb.keys.inactive_subscription, { text: 'Hi.' })).json()) as Json).error.code).toBe('INACTIVE_SUBSCRIPTION');
    expect(((await (await post(sb.keys.no_api_access, { text: 'Hi.' })).json()) as Json).error.code).toBe('NO_API_ACCESS');
    // One minute left: a short text passes, a long one does not.
    expect((await post(sb.keys.minutes_almost_used, { text: 'Hi.' })).status).toBe(200);
    expect((await post(sb.keys.minutes_almost_used, { text: 'A long text. '.repeat(200) })).status).toBe(403);
    // Two plans with different limits among the active keys.
    const free = (await (await post(sb.keys.active_free, { text: 'Hi.' })).json()) as Json;
    const pro = (await (await post(sb.keys.active_pro, { text: 'Hi.' })).json()) as Json;
    expect(free.billing.monthly_minutes_limit).not.toBe(pro.billing.monthly_minutes_limit);
  });

  it('marks every answer with Agent-TTS-Sandbox: 1 (404, 405, errors, preflights, the voice catalog)', async () => {
    const answers = [
      await sb.app.request('/nowhere'),
      await sb.app.request('/v1/agent-tts', { method: 'PUT' }),
      await sb.app.request('/v1/agent-tts?id=nope'),
      await post(sb.keys.active_pro, { text: 'Hi.' }),
      await sb.app.request('/v1/agent-tts', { method: 'OPTIONS', headers: { Origin: 'http://localhost:3000', 'Access-Control-Request-Method': 'POST' } }),
      await sb.app.request('/sandbox'),
      await sb.app.request('/healthz'),
      await sb.voicesApp.request('/api/v1/voices'),
      await sb.voicesApp.request('/nowhere'),
    ];
    expect(answers.map((r) => r.status)).toEqual([404, 405, 401, 200, 204, 200, 200, 200, 404]);
    for (const res of answers) expect(res.headers.get('agent-tts-sandbox')).toBe('1');
    const cors = await sb.app.request('/sandbox', { headers: { Origin: 'http://localhost:3000' } });
    expect(cors.headers.get('access-control-expose-headers')).toContain('Agent-TTS-Sandbox');
  });

  it('GET /sandbox lists the keys, the magic inputs and the clock', async () => {
    const body = (await (await sb.app.request('/sandbox')).json()) as Json;
    expect(body.sandbox).toBe(true);
    expect(Object.keys(body.keys).sort()).toEqual(
      ['active_free', 'active_pro', 'active_ultimate', 'inactive_subscription', 'minutes_almost_used', 'minutes_used_up', 'no_api_access', 'revoked'].sort(),
    );
    expect(body.magic_inputs.map((m: Json) => m.marker)).toContain('sandbox:async=<seconds>');
    expect(body.clock).toMatchObject({ frozen: false, offset_seconds: 0 });
  });

  it('writes conformance fixtures that validate, with the clock URL and an audio URL already expired on the clock', async () => {
    const fixtures = ConformanceFixtures.parse(await sb.fixtures({ active: 8, acceptance: 4 }));
    expect(fixtures.clock).toEqual({ url: `${BASE}/sandbox/clock` });
    expect(fixtures.keys.active).toHaveLength(8);
    expect(fixtures.cors?.allowed_origins.length).toBeGreaterThan(0);
    expect((await sb.app.request(audioPath(fixtures.expired_audio!.audio_url))).status).toBe(404);
    const failed = (await (await get(fixtures.failed_job!.key, fixtures.failed_job!.job_id)).json()) as Json;
    expect(failed.error.code).toBe('TTS_PROVIDER_ERROR');
    const legacy = (await (await get(fixtures.legacy_expired_job!.key, fixtures.legacy_expired_job!.job_id)).json()) as Json;
    expect(legacy.status).toBe('expired');
  });
});

/** One request to every endpoint of the sandbox's two apps, with what each answered. */
async function everyEndpoint(): Promise<Record<string, number>> {
  const job = await post(sb.keys.active_pro, { text: 'Still here. sandbox:inline' });
  const body = (await job.clone().json()) as Json;
  const statuses: Record<string, number> = { 'POST /v1/agent-tts': job.status };
  const requests: Array<[string, () => Response | Promise<Response>]> = [
    ['GET /v1/agent-tts', () => get(sb.keys.active_pro, body.job_id ?? '00000000-0000-4000-8000-000000000000')],
    ['GET audio', () => sb.app.request(body.audio_url ? audioPath(body.audio_url) : '/v1/audio/00000000-0000-4000-8000-000000000000.mp3')],
    ['POST /v1/agent-tts async', () => post(sb.keys.active_ultimate, { text: 'Later. sandbox:async=5' })],
    ['GET /sandbox', () => sb.app.request('/sandbox')],
    ['GET /sandbox/clock', () => sb.app.request('/sandbox/clock')],
    ['GET /sandbox/requests', () => sb.app.request('/sandbox/requests')],
    ['GET /healthz', () => sb.app.request('/healthz')],
    ['GET /readyz', () => sb.app.request('/readyz')],
    ['GET /metrics', () => sb.app.request('/metrics')],
    ['GET /docs', () => sb.app.request('/docs')],
    ['GET /dashboard', () => sb.app.request('/dashboard')],
    ['GET voices', () => sb.voicesApp.request('/api/v1/voices')],
  ];
  for (const [name, request] of requests) statuses[name] = (await request()).status;
  return statuses;
}

describe('sandbox: the clock stays within what the API can keep', () => {
  beforeEach(() => open());

  it('refuses a set or advance too far or not a time with 400 saying what is allowed, and every endpoint answers after', async () => {
    const before = (await (await sb.app.request('/sandbox/clock')).json()) as Json;
    const cases: Array<[unknown, RegExp]> = [
      [{ set: '+275760-09-13T00:00:00Z' }, /at most 10 years .* in one move/],
      [{ set: '9999-12-31T23:59:59Z' }, /at most 10 years .* in one move/],
      [{ set: '+010000-01-01T00:00:00Z' }, /at most 10 years .* in one move/],
      [{ set: '+275760-09-13T00:00:00.001Z' }, /set must be an ISO 8601 date-time/],
      [{ set: 'NaN' }, /set must be an ISO 8601 date-time.*Got "NaN"/],
      [{ set: 'Infinity' }, /set must be an ISO 8601 date-time/],
      [{ set: '-000001-01-01T00:00:00Z' }, /only moves forward/],
      [{ set: '-271821-04-20T00:00:00Z' }, /only moves forward/],
      [{ set: '2030-02-31T00:00:00Z' }, /not a date of the calendar/],
      [{ set: '2030-01-01T00:00:00' }, /with a time zone/],
      [{ set: 'March 1, 2030' }, /set must be an ISO 8601 date-time/],
      [{ set: 1893456000000 }, /set must be an ISO 8601 date-time.*Got 1893456000000/],
      [{ set: '' }, /set must be an ISO 8601 date-time/],
      ['{"advance_seconds": 1e400}', /advance_seconds must be a number from 0 to 315360000.*Got Infinity/],
      [{ advance_seconds: 1e308 }, /advance_seconds must be a number from 0 to 315360000/],
      [{ advance_seconds: 315_360_001 }, /advance_seconds must be a number from 0 to 315360000/],
      [{ advance_seconds: -1 }, /advance_seconds must be a number from 0/],
      [{ advance_seconds: '60' }, /advance_seconds must be a number.*Got "60"/],
      [{ advance_seconds: 60, set: '2030-01-01T00:00:00Z' }, /One change per request/],
    ];
    for (const [body, message] of cases) {
      const res = await clock(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const answer = (await res.json()) as Json;
      expect(answer.error.code).toBe('INVALID_REQUEST');
      expect(answer.error.message, JSON.stringify(body)).toMatch(message);
      expect(answer.meta).toMatchObject({ request_id: res.headers.get('x-request-id'), api_version: expect.any(String) });
    }
    const after = (await (await sb.app.request('/sandbox/clock')).json()) as Json;
    expect(Math.abs(after.offset_seconds - before.offset_seconds)).toBeLessThanOrEqual(1);
    const statuses = await everyEndpoint();
    expect(statuses).toMatchObject({
      'POST /v1/agent-tts': 200,
      'GET /v1/agent-tts': 200,
      'GET audio': 200,
      'POST /v1/agent-tts async': 202,
      'GET /sandbox': 200,
    });
    expect(Object.entries(statuses).filter(([, status]) => status >= 500)).toEqual([]);
  });

  it('goes up to 100 years ahead of real time, 10 years a move; every endpoint still answers there', async () => {
    await clock({ freeze: true });
    // Nine moves of ten years, and one of ten years less an hour.
    for (let i = 0; i < 10; i++) await advance(315_360_000 - (i === 9 ? 3_600 : 0));
    const far = (await (await sb.app.request('/sandbox/clock')).json()) as Json;
    expect(far.offset_seconds).toBeGreaterThan(100 * 365 * 86_400 - 3_660);
    for (const body of [{ advance_seconds: 7_200 }, { set: new Date(Date.parse(far.now) + 7_200_000).toISOString() }]) {
      const res = await clock(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error.message).toMatch(/at most 100 years \(3153600000 seconds\) ahead of real time, until .*Use reset/);
    }
    expect(((await (await sb.app.request('/sandbox/clock')).json()) as Json).now).toBe(far.now);
    const statuses = await everyEndpoint();
    expect(statuses).toMatchObject({
      'POST /v1/agent-tts': 200,
      'GET /v1/agent-tts': 200,
      'GET audio': 200,
      'POST /v1/agent-tts async': 202,
      'GET /sandbox': 200,
    });
    expect(Object.entries(statuses).filter(([, status]) => status >= 500)).toEqual([]);
    // The held job completes on the clock there too.
    await advance(5);
    const held = sb.journal.list({ method: 'POST' }).find((e) => e.response.status === 202)!;
    expect(((await (await get(sb.keys.active_ultimate, held.response.job_id!)).json()) as Json).status).toBe('completed');
    expect((await clock({ reset: true })).status).toBe(200);
  });
});

describe('sandbox: web pages cannot write to /sandbox/*', () => {
  beforeEach(() => open());
  const now = async () => ((await (await sb.app.request('/sandbox/clock')).json()) as Json).now as string;
  const write = (path: string, method: string, headers: Record<string, string>, body?: BodyInit) => sb.app.request(path, { method, headers, body });
  const refusal = async (res: Response, status: number, message: RegExp) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('agent-tts-sandbox')).toBe('1');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ success: false, error: { code: 'INVALID_REQUEST' }, meta: { request_id: res.headers.get('x-request-id') } });
    expect(body.error.message).toMatch(message);
  };

  it('refuses a write carrying an Origin other than its own with 403, before it has any effect', async () => {
    await clock({ freeze: true });
    const frozenAt = await now();
    const json = { 'Content-Type': 'application/json' };
    for (const origin of ['https://evil.example', 'http://localhost:3000', 'null', 'http://sandbox.test:8080', 'https://sandbox.test']) {
      const res = await write('/sandbox/clock', 'POST', { ...json, Origin: origin }, JSON.stringify({ advance_seconds: 3600 }));
      await refusal(res, 403, /accepted from the sandbox's own origin \(http:\/\/sandbox\.test\) or from clients that send no Origin header/);
    }
    await refusal(
      await write('/sandbox/clock', 'POST', { ...json, Origin: 'https://evil.example' }, JSON.stringify({ reset: true })),
      403,
      /not from a web page at "https:\/\/evil\.example"/,
    );
    expect(await now()).toBe(frozenAt);

    await post(sb.keys.active_pro, { text: 'Keep me in the journal.' });
    await refusal(await write('/sandbox/requests', 'DELETE', { Origin: 'https://evil.example' }), 403, /Writes to \/sandbox\/requests/);
    expect(sb.journal.list()).toHaveLength(1);
    // Other methods and case variants of the path are writes too.
    await refusal(await write('/sandbox/clock', 'PUT', { Origin: 'https://evil.example' }), 403, /own origin/);
    await refusal(await write('/SANDBOX/requests', 'DELETE', { Origin: 'https://evil.example' }), 403, /own origin/);

    // Its own origin, and clients that send none, may write; reads are not concerned.
    expect((await write('/sandbox/clock', 'POST', { ...json, Origin: 'http://sandbox.test' }, JSON.stringify({ advance_seconds: 60 }))).status).toBe(200);
    expect((await write('/sandbox/requests', 'DELETE', {})).status).toBe(200);
    expect((await sb.app.request('/sandbox', { headers: { Origin: 'http://localhost:3000' } })).status).toBe(200);
  });

  it('lets no preflight of a write to /sandbox/* pass, even from an origin CORS allows; preflights of the API still pass', async () => {
    const preflight = (path: string, origin: string, method: string) =>
      sb.app.request(path, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'content-type' },
      });
    for (const [path, method] of [
      ['/sandbox/clock', 'POST'],
      ['/sandbox/requests', 'DELETE'],
      ['/sandbox/clock', 'PUT'],
    ] as const) {
      await refusal(await preflight(path, 'http://localhost:3000', method), 403, /own origin/);
    }
    const api = await preflight('/v1/agent-tts', 'http://localhost:3000', 'POST');
    expect(api.status).toBe(204);
    expect(api.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    const read = await preflight('/sandbox', 'http://localhost:3000', 'GET');
    expect(read.status).toBe(204);
    expect(read.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });

  it('refuses a write whose body is not declared JSON with 400, as the API does a wrong content type', async () => {
    await clock({ freeze: true });
    const frozenAt = await now();
    const advance = JSON.stringify({ advance_seconds: 3600 });
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
    ]) {
      await refusal(
        await write('/sandbox/clock', 'POST', { 'Content-Type': type }, advance),
        400,
        new RegExp(`Content-Type must be application/json: .* came as "${type.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`),
      );
    }
    // A body without a Content-Type (a fetch of a Blob, which browsers send without a preflight).
    await refusal(
      await write('/sandbox/clock', 'POST', { 'Content-Length': String(advance.length) }, new TextEncoder().encode(advance)),
      400,
      /without a Content-Type/,
    );
    await refusal(await write('/sandbox/requests', 'DELETE', { 'Content-Type': 'text/plain' }, 'x'), 400, /Content-Type must be application\/json/);
    expect(await now()).toBe(frozenAt);
    // JSON with parameters is JSON; a DELETE without a body needs no type.
    expect((await write('/sandbox/clock', 'POST', { 'Content-Type': 'application/json; charset=utf-8' }, advance)).status).toBe(200);
    expect((await write('/sandbox/requests', 'DELETE', {})).status).toBe(200);
  });
});

describe('sandbox: the journal never shows a full key', () => {
  beforeEach(() => open());

  it('cuts a key to tts_<public_id> wherever it was sent: query, headers, cookie, Referer, body, path', async () => {
    const key = sb.keys.active_pro;
    const publicPart = key.slice(0, 12);
    const secret = key.slice(13);
    const encoded = encodeURIComponent(key).replace(/_/g, '%5F');
    const sent = [
      await sb.app.request(`/v1/agent-tts?id=00000000-0000-4000-8000-000000000000&api_key=${key}`, { headers: { Authorization: `Bearer ${key}` } }),
      await sb.app.request(`/v1/agent-tts?${key}=1`),
      await sb.app.request('/v1/agent-tts?id=00000000-0000-4000-8000-000000000000', { headers: { 'X-API-Key': key, Cookie: `session=abc; api_key=${key}` } }),
      await sb.app.request('/v1/agent-tts', { headers: { Referer: `https://app.example/settings?key=${key}`, 'X-Forwarded-For': `${encoded}` } }),
      await post(key, { text: `My key is ${key}, the other ${key.toUpperCase()}.`, api_key: key, [key]: [key] }),
      await sb.app.request('/v1/agent-tts', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
        body: `not json ${key}`,
      }),
      await sb.app.request(`/v1/${key}`),
      await sb.app.request(`/v1/audio/${key}.mp3`),
      await sb.app.request('/v1/agent-tts', { headers: { Authorization: `Bearer ${key} extra`, 'X-Note': `${key}${key}` } }),
      // Written with JSON escapes, the key shows only once the body is parsed.
      await sb.app.request('/v1/agent-tts', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
        body: `{"text": "Hi.", "note": "${key.replace(/_/g, '\\u005f')}"}`,
      }),
    ];
    expect(sent.map((r) => r.status).every((status) => status < 500)).toBe(true);
    const listed = (await (await sb.app.request('/sandbox/requests')).json()) as Json;
    expect(listed.requests).toHaveLength(sent.length);
    const shown = JSON.stringify(listed);
    expect(shown).not.toContain(secret);
    expect(shown.toLowerCase()).not.toContain(secret);
    const [query, queryName, headers, referer, body, raw, path, audio, , escaped] = listed.requests as Json[];
    expect(escaped!.body).toEqual({ text: 'Hi.', note: publicPart });
    expect(query!.query.api_key).toBe(publicPart);
    expect(Object.keys(queryName!.query)).toEqual([publicPart]);
    expect(headers!.headers['x-api-key']).toBe(publicPart);
    expect(headers!.headers.cookie).toBe(`session=abc; api_key=${publicPart}`);
    expect(referer!.headers.referer).toBe(`https://app.example/settings?key=${publicPart}`);
    expect(referer!.headers['x-forwarded-for']).toBe(publicPart);
    expect(body!.body).toEqual({
      text: `My key is ${publicPart}, the other tts_${publicPart.slice(4).toUpperCase()}.`,
      api_key: publicPart,
      [publicPart]: [publicPart],
    });
    expect(raw!.body).toEqual({ raw: `not json ${publicPart}` });
    expect(path!.path).toBe(`/v1/${publicPart}`);
    expect(audio!.path).toBe(`/v1/audio/${publicPart}.mp3`);
    // Filters see what is shown.
    expect(sb.journal.list({ path: `/v1/${publicPart}` })).toHaveLength(1);
  });
});

describe('sandbox: the journal takes any body', () => {
  beforeEach(() => open());

  it('journals a body nested 10,000 deep (a 4xx, not a 500, its body unread), and a long text cut with the length sent', async () => {
    const key = sb.keys.active_pro;
    const deep = await sb.app.request('/v1/agent-tts', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body: `{"text":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    });
    expect(deep.status).toBe(400);
    const long = `${key} `.repeat(20);
    await post(key, { text: long });
    const [nested, cut] = sb.journal.list();
    expect(nested!.response).toMatchObject({ status: 400, error_code: 'INVALID_REQUEST' });
    // The API stops reading at the 65th level (docs/api-rules.md#limits): there is no body to journal.
    expect(nested!.body).toBeUndefined();
    expect(cut!.body).toMatchObject({ text: `${key.slice(0, 12)} `.repeat(20).slice(0, 200), text_truncated: true, text_length: long.length });
    expect((await sb.app.request('/sandbox/requests')).status).toBe(200);
  });
});

describe('sandbox: refusals before the route are marked, rate-limit headed and journaled', () => {
  beforeEach(() => open({ RATE_POST_LIMIT: '100', MAX_BODY_BYTES: '4096' }));

  it('malformed JSON, a wrong content type, a body too large, invalid UTF-8', async () => {
    const send = (headers: Record<string, string>, body: BodyInit) =>
      sb.app.request('/v1/agent-tts', { method: 'POST', headers: { Authorization: `Bearer ${sb.keys.active_pro}`, ...headers }, body });
    const cases: Array<[Response, string]> = [
      [await send({ 'Content-Type': 'application/json' }, '{"text":'), 'INVALID_REQUEST'],
      [await send({ 'Content-Type': 'text/plain' }, '{"text":"Hi."}'), 'INVALID_REQUEST'],
      [await send({ 'Content-Type': 'application/json', 'Content-Length': '5000' }, JSON.stringify({ text: 'x'.repeat(4_980) })), 'TEXT_TOO_LONG'],
      [await send({ 'Content-Type': 'application/json' }, JSON.stringify({ text: 'x'.repeat(5_000) })), 'TEXT_TOO_LONG'],
      [await send({ 'Content-Type': 'application/json' }, new Uint8Array([0x7b, 0xff, 0x7d])), 'INVALID_REQUEST'],
    ];
    for (const [res, code] of cases) {
      expect(res.status).toBe(400);
      expect(res.headers.get('agent-tts-sandbox')).toBe('1');
      // The headers the contract requires on a 400 of POST /v1/agent-tts.
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('ratelimit-policy')).toMatch(/^"post";q=100;w=60$/);
      expect(res.headers.get('ratelimit')).toMatch(/^"post";r=\d+;t=\d+$/);
      expect(((await res.json()) as Json).error.code).toBe(code);
    }
    expect(sb.journal.list().map((e) => [e.response.status, e.response.error_code])).toEqual(cases.map(([, code]) => [400, code]));
  });
});

describe('sandbox: listening', () => {
  let running: RunningSandbox | undefined;
  afterEach(() => running?.stop());

  it('takes loopback hosts only, unless allowRemote', async () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '127.1', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.5', '::ffff:10.0.0.1', 'fe80::1', 'example.com', '127.0.0.1.example.com', ''])
      expect(isLoopbackHost(host), host).toBe(false);
    for (const host of ['0.0.0.0', '::', '192.168.1.5']) {
      const refused = startSandbox({ host });
      await expect(refused).rejects.toThrow(ConfigError);
      await expect(refused).rejects.toThrow(`host "${host}" is not a loopback address: the sandbox would hand its test keys (GET /sandbox)`);
      await expect(refused).rejects.toThrow(/pass allowRemote: true to listen there anyway/);
    }
  });

  it('with allowRemote on 0.0.0.0: says where it is bound and reachable, and refuses foreign origins all the same', async () => {
    running = await startSandbox({ host: '0.0.0.0', allowRemote: true });
    const { listening, baseUrl } = running;
    expect(listening.host).toBe('0.0.0.0');
    expect(baseUrl).toBe(`http://127.0.0.1:${listening.port}`);
    expect(listening.urls).toContain(baseUrl);
    for (const url of listening.urls) expect(url).toMatch(new RegExp(`^http://[0-9.]+:${listening.port}$`));
    expect((await fetch(`${baseUrl}/sandbox`)).status).toBe(200);
    const refused = await fetch(`${baseUrl}/sandbox/clock`, {
      method: 'POST',
      headers: { Origin: 'http://192.168.1.5:3000', 'Content-Type': 'application/json' },
      body: '{"advance_seconds": 1}',
    });
    expect(refused.status).toBe(403);
  });

  it('answers a request the HTTP parser refuses with the error body, marked, and journals it (key cut)', async () => {
    running = await startSandbox();
    const port = Number(new URL(running.baseUrl).port);
    const secret = running.keys.active_pro.slice(13);
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(request));
        let data = '';
        socket.on('data', (chunk) => (data += chunk));
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
      });
    const answer = await raw(`GET /v1/agent-tts?id=x&key=${running.keys.active_pro} HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/\r\nAgent-TTS-Sandbox: 1\r\n/i);
    const requestId = /\r\nX-Request-Id: ([0-9a-f-]{36})\r\n/.exec(answer)?.[1];
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Json;
    expect(body).toMatchObject({ success: false, error: { code: 'INVALID_REQUEST' }, meta: { request_id: requestId } });
    await raw('NOT A REQUEST LINE\r\n\r\n');
    await raw('POST /sandbox/clock HTTP/1.1\r\nBad Header\r\n\r\n');
    const entries = running.journal.list();
    expect(entries.map((e) => [e.method, e.path, e.response])).toEqual([
      ['GET', '/v1/agent-tts', { status: 400, error_code: 'INVALID_REQUEST' }],
      ['', '', { status: 400, error_code: 'INVALID_REQUEST' }],
    ]);
    expect(entries[0]!.query).toEqual({ id: 'x', key: running.keys.active_pro.slice(0, 12) });
    expect(JSON.stringify(entries)).not.toContain(secret);
    // The voice catalog's listener marks them too.
    const voicesPort = Number(new URL(running.voicesUrl).port);
    const voices = await new Promise<string>((resolve) => {
      const socket = connect(voicesPort, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nBad Header\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('close', () => resolve(data));
    });
    expect(voices).toMatch(/\r\nAgent-TTS-Sandbox: 1\r\n/i);
  });
});
