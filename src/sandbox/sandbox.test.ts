import { MPEGDecoder } from 'mpg123-decoder';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConformanceFixtures } from '../contract/fixtures.js';
import { createSandbox, type SandboxCore } from './sandbox.js';

let sb: SandboxCore;
const BASE = 'http://sandbox.test';

async function open(env: Record<string, string> = { RATE_POST_LIMIT: '100', RATE_GET_LIMIT: '100' }) {
  sb = await createSandbox({ baseUrl: BASE, voicesUrl: 'http://voices.test', env });
}
afterEach(() => sb?.close());

type Json = Record<string, any>;
const post = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  sb.app.request('/v1/agent-tts', {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const get = (key: string, id: string) => sb.app.request(`/v1/agent-tts?id=${id}`, { headers: { Authorization: `Bearer ${key}` } });
const clock = (body: unknown) => sb.app.request('/sandbox/clock', { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
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
    const { Estimator } = await import('../synth/index.js');
    const expected = new Estimator('espeak', 1).audioSeconds(text, body.audio.speed, body.audio.language);
    expect(Math.abs(seconds - expected) / expected).toBeLessThan(0.1);
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
    for (const bad of ['not json', { advance_seconds: -1 }, { advance_seconds: 'x' }, { set: 'yesterday' }, { set: '2000-01-01T00:00:00Z' }, { freeze: true, reset: true }, {}, { reset: false }]) {
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
    const res = await post(sb.keys.active_pro, { text: 'Journal me. ' + 'x'.repeat(300) });
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

describe('sandbox: like a deployment, but marked', () => {
  beforeEach(() => open());

  it('answers unknown, revoked and refused keys as a deployment would', async () => {
    const unknown = await post('tts_00000000_' + '0'.repeat(48), { text: 'Hi.' });
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
