import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedJob, expectError, getJob, longText, pollUntilDone, postJob } from '../../../../test/helpers/http.js';
import { startInProcessHttp, type SeededServer } from '../../../../test/helpers/in-process.js';

describe('idempotency (docs/api-rules.md#idempotency) and usage (§8)', () => {
  let server: SeededServer;
  beforeAll(async () => {
    server = await startInProcessHttp({ RATE_POST_LIMIT: '1000', INLINE_WAIT_MS: '10000' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('50 concurrent POSTs with one Idempotency-Key create one job and one charge', async () => {
    const key = server.fixtures.keys.active[0]!;
    const body = { text: 'Exactly one job, however many times it is sent.' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => postJob(server.baseUrl, key, body, { 'idempotency-key': 'same-key-50' })));
    const statuses = new Set(responses.map((r) => r.status));
    expect(
      [...statuses].every((s) => s === 200 || s === 202),
      JSON.stringify([...statuses]),
    ).toBe(true);
    expect(new Set(responses.map((r) => r.body.job_id)).size).toBe(1);
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(49);
    const done = await pollUntilDone(server.baseUrl, key, responses[0]!.body.job_id);
    const charged = Math.ceil((done.body.audio.duration_seconds / 60) * 100) / 100;
    expect(done.body.billing.monthly_minutes_used).toBe(charged);
    // A later replay is the same job and still no second charge.
    const replay = await postJob(server.baseUrl, key, body, { 'idempotency-key': 'same-key-50' });
    expect(replay.status).toBe(200);
    expect(replay.body.job_id).toBe(done.body.job_id);
    expect(replay.body.billing.monthly_minutes_used).toBe(charged);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a different Idempotency-Key, or none, creates a new job', async () => {
    const key = server.fixtures.keys.active[1]!;
    const submit = async (headers: Record<string, string>) =>
      completedJob(server.baseUrl, key, await postJob(server.baseUrl, key, { text: 'First.' }, headers));
    const a = await submit({ 'idempotency-key': 'k-a' });
    const b = await submit({ 'idempotency-key': 'k-b' });
    const c = await submit({});
    expect(new Set([a.body.job_id, b.body.job_id, c.body.job_id]).size).toBe(3);
    expect(c.body.billing.monthly_minutes_used).toBeCloseTo(a.body.billing.monthly_minutes_used * 3, 2);
  });

  it('scopes Idempotency-Keys per account', async () => {
    const [k1, k2] = [server.fixtures.keys.active[2], server.fixtures.keys.active[3]];
    const a = await postJob(server.baseUrl, k1, { text: 'Shared key.' }, { 'idempotency-key': 'shared' });
    const b = await postJob(server.baseUrl, k2, { text: 'Shared key.' }, { 'idempotency-key': 'shared' });
    expect([200, 202]).toContain(a.status);
    expect([200, 202]).toContain(b.status);
    expect(a.body.job_id).not.toBe(b.body.job_id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expectError(await getJob(server.baseUrl, k2, a.body.job_id), 404, 'NOT_FOUND');
  });

  it('replays a job that is still processing as 202', async () => {
    const key = server.fixtures.keys.active[4]!;
    const first = postJob(server.baseUrl, key, { text: longText(1500) }, { 'idempotency-key': 'long' });
    await new Promise((r) => setTimeout(r, 1000));
    const replay = await postJob(server.baseUrl, key, { text: 'ignored: the key wins' }, { 'idempotency-key': 'long' });
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.job_id).toBe((await first).body.job_id);
  });

  it('refuses invalid Idempotency-Keys with INVALID_REQUEST', async () => {
    const key = server.fixtures.keys.active[5]!;
    expectError(await postJob(server.baseUrl, key, { text: 'x' }, { 'idempotency-key': 'k'.repeat(256) }), 400, 'INVALID_REQUEST');
    expectError(await postJob(server.baseUrl, key, { text: 'x' }, { 'idempotency-key': '' }), 400, 'INVALID_REQUEST');
  });

  it('refuses a text that needs more minutes than remain, with the details of §7', async () => {
    const res = await postJob(server.baseUrl, server.fixtures.keys.usage_exhausted!, { text: 'One more.' });
    expectError(res, 403, 'USAGE_LIMIT_EXCEEDED');
    expect(res.body.error.details).toEqual({ limit: 30, used: 30, tier: 'free', upgrade_url: 'https://tts.example.com/billing' });
  });

  it('reserves an estimate, refuses past the limit, and settles the real duration', async () => {
    const account = JSON.parse((await server.admin(['account', 'create', '--name', 'tight', '--plan', 'free', '--json'])).stdout);
    const key = (await server.admin(['key', 'create', '--account', account.id])).stdout.trim();
    await server.admin(['account', 'usage', account.id, '--minutes', '29.9']);
    // ~6 s of audio fits in the 0.1 minute left; a text of several minutes does not.
    expectError(await postJob(server.baseUrl, key, { text: longText(60) }), 403, 'USAGE_LIMIT_EXCEEDED');
    const ok = await completedJob(server.baseUrl, key, await postJob(server.baseUrl, key, { text: 'Short enough.' }));
    const charged = Math.ceil((ok.body.audio.duration_seconds / 60) * 100) / 100;
    expect(ok.body.billing.monthly_minutes_used).toBeCloseTo(29.9 + charged, 2);
    expect(ok.body.billing.monthly_minutes_remaining).toBeCloseTo(30 - 29.9 - charged, 2);
  });
});
