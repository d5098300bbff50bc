import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, decodeMp3, expectError, expectMeta, getJob, longText, pollUntilDone, postJob } from './helpers/http.js';
import { deleteKeys, eventually, redisOrSkip, uniquePrefix, waitUntilAnswering } from './helpers/redis.js';
import { removeDir, startServer, type RunningServer } from './helpers/server.js';

/**
 * The reference server in distributed mode, one process (API + local worker) over Redis: the key
 * scenarios of the end-to-end suite, plus what only this mode has (Redis TTLs, the retention sweep
 * over Redis, jobs surviving a crash of the process that ran them). The lead's `test/server-*.test.ts`
 * run whole in this mode with `npm run test:redis`.
 */
const redis = await redisOrSkip('distributed end-to-end');
const prefix = uniquePrefix('e2e');

describe.skipIf(!redis)('distributed mode end to end (Redis store, limiter and BullMQ queue)', () => {
  let server: RunningServer;
  const jobKey = (id: string) => `${prefix}job:${id}`;

  beforeAll(async () => {
    server = await startServer({
      backend: 'redis',
      env: {
        REDIS_PREFIX: prefix,
        // Short, so long texts take the job path whatever the machine's speed; short ones may too.
        INLINE_WAIT_MS: '500',
        // Free-plan jobs expire at once and the sweep runs every second: retention is observable.
        RETENTION_DAYS_FREE: '0',
        RETENTION_SWEEP_SECONDS: '1',
        // A crashed process's job is recovered within seconds, not the production half minute.
        QUEUE_LOCK_MS: '3000',
        QUEUE_STALLED_CHECK_MS: '1000',
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
    await deleteKeys(redis!, prefix);
    redis!.destroy();
  });

  it('keeps its state in Redis under its prefix (the seed went through the admin CLI)', async () => {
    expect(server.env.REDIS_PREFIX).toBe(prefix);
    expect((await redis!.keys(`${prefix}account:*`)).length).toBeGreaterThan(5);
    expect(server.logs()).toContain('"mode":"redis"');
  });

  it('serves /healthz, /readyz and /metrics', async () => {
    const health = await call(`${server.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ success: true, status: 'ok' });
    expectMeta(health);
    const ready = await call(`${server.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ success: true, status: 'ready', checks: { store: 'ok', queue: 'ok' } });
    const metrics = await fetch(`${server.baseUrl}/metrics`);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await metrics.text();
    // The test helper itself polls /healthz until the server is up, so the count is at least 1.
    expect(text).toMatch(/agent_tts_http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]\d*/);
    expect(text).toMatch(/agent_tts_queue_jobs\{state="waiting"\} \d+/);
  });

  // biome-ignore lint/suspicious/noExplicitAny: the completed job's JSON answer, read field by field by the later tests
  let completed: any;

  it('completes a short text, charges it in the Redis ledger, and serves its audio', async () => {
    const key = server.fixtures.keys.active[0]!;
    const posted = await postJob(server.baseUrl, key, { text: 'Distributed mode speaks this sentence.' });
    expect([200, 202], JSON.stringify(posted.body)).toContain(posted.status);
    const res = posted.status === 200 ? posted : await pollUntilDone(server.baseUrl, key, posted.body.job_id);
    completed = res.body;
    expect(res.body).toMatchObject({ success: true, status: 'completed', audio: { format: 'mp3', voice: 'af_heart' } });
    const minutes = Math.ceil((res.body.audio.duration_seconds / 60) * 100) / 100;
    expect(res.body.billing.monthly_minutes_used).toBe(minutes);

    const record = await redis!.hGetAll(jobKey(res.body.job_id));
    expect(record.status).toBe('completed');
    expect(Number(record.chargedCentiminutes)).toBe(Math.round(minutes * 100));

    const audio = await fetch(res.body.audio_url);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/mpeg');
    const decoded = await decodeMp3(new Uint8Array(await audio.arrayBuffer()));
    expect(Math.abs(decoded.seconds - res.body.audio.duration_seconds)).toBeLessThan(0.1);
  });

  it('gives the job record a Redis TTL at its plan retention (ultimate: 30 days, plus the sweep grace)', async () => {
    const ttl = await redis!.pTTL(jobKey(completed.job_id));
    expect(ttl).toBeGreaterThan(30 * 86_400_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(30 * 86_400_000 + 3_600_000);
  });

  it('answers 202 for a long text and reports progress written by the runner until it completes', async () => {
    const key = server.fixtures.keys.active[1]!;
    const res = await postJob(server.baseUrl, key, { text: longText(150) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ success: true, status: 'processing', status_url: `/v1/agent-tts?id=${res.body.job_id}` });
    expect(res.body.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(res.body.retry_after_seconds).toBeLessThanOrEqual(30);
    const done = await pollUntilDone(server.baseUrl, key, res.body.job_id);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(Number(await redis!.hGet(jobKey(res.body.job_id), 'progress'))).toBe(1);
  });

  it('replays an Idempotency-Key as the same job without a second charge', async () => {
    const key = server.fixtures.keys.active[2]!;
    const headers = { 'Idempotency-Key': 'distributed-e2e-1' };
    const body = { text: 'Said once, however often it is asked.' };
    const first = await postJob(server.baseUrl, key, body, headers);
    expect([200, 202], JSON.stringify(first.body)).toContain(first.status);
    const again = await postJob(server.baseUrl, key, body, headers);
    expect([200, 202]).toContain(again.status);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.job_id).toBe(first.body.job_id);
    const done = await pollUntilDone(server.baseUrl, key, first.body.job_id);
    const replayed = await postJob(server.baseUrl, key, body, headers);
    expect(replayed.status).toBe(200);
    // This account ran nothing else: what it used is the one job's charge.
    const minutes = Math.ceil((done.body.audio.duration_seconds / 60) * 100) / 100;
    expect(replayed.body.billing.monthly_minutes_used).toBe(minutes);
    expect(done.body.billing.monthly_minutes_used).toBe(minutes);
  });

  it('limits POSTs per key across the shared window, with Retry-After, and keeps GET separate', async () => {
    const key = server.fixtures.keys.active[0]!;
    const limited = await postJob(server.baseUrl, key, { text: 'One more, too soon.' });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const polled = await getJob(server.baseUrl, key, completed.job_id);
    expect(polled.status).toBe(200);
    expect(polled.body.status).toBe('completed');
  });

  it('answers the API errors from the Redis store: bad keys, plans, usage, unknown and legacy jobs', async () => {
    const { keys, legacy_expired_job: legacy } = server.fixtures;
    expectError(await postJob(server.baseUrl, keys.revoked, { text: 'x' }), 401, 'INVALID_KEY');
    expectError(await postJob(server.baseUrl, keys.inactive_subscription, { text: 'x' }), 403, 'INACTIVE_SUBSCRIPTION');
    expectError(await postJob(server.baseUrl, keys.no_api_access, { text: 'x' }), 403, 'NO_API_ACCESS');
    const exhausted = await postJob(server.baseUrl, keys.usage_exhausted, { text: 'No minutes left for this.' });
    expectError(exhausted, 403, 'USAGE_LIMIT_EXCEEDED');
    expect(exhausted.body.error.details).toMatchObject({ limit: 30, used: 30, tier: 'free' });
    expectError(await getJob(server.baseUrl, keys.active[3], '00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    const expired = await getJob(server.baseUrl, legacy!.key, legacy!.job_id);
    expect(expired.status).toBe(200);
    expect(expired.body).toMatchObject({ success: false, status: 'expired', error: { code: 'FILE_EXPIRED' } });
  });

  it('deletes a job and its audio when its retention ends (record, Redis key and file)', async () => {
    const account = JSON.parse((await server.admin(['account', 'create', '--name', 'short retention', '--plan', 'free', '--json'])).stdout);
    const key = (await server.admin(['key', 'create', '--account', account.id])).stdout.trim();
    const res = await postJob(server.baseUrl, key, { text: 'Gone tomorrow, or rather at once.' });
    // Retention 0 days: the sweep may take the job even before the inline wait is over.
    expect([200, 202]).toContain(res.status);
    const jobId: string = res.body.job_id;
    await eventually(async () => (await getJob(server.baseUrl, key, jobId)).status === 404, 'the job to be swept');
    expect(await redis!.exists(jobKey(jobId))).toBe(0);
    expect(await redis!.zScore(`${prefix}jobs:expiry`, jobId)).toBeNull();
    await expect(stat(join(server.dataDir, 'audio', `${jobId}.mp3`))).rejects.toThrow();
  });

  it('finishes a job whose process was killed mid-job, once restarted (Redis kept it), charging it once', async () => {
    const key = server.fixtures.keys.active[4]!;
    const res = await postJob(server.baseUrl, key, { text: longText(250) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const jobId = res.body.job_id;
    await eventually(async () => Number(await redis!.hGet(jobKey(jobId), 'progress')) > 0, 'synthesis to be under way');
    await server.kill();
    expect(await redis!.hGet(jobKey(jobId), 'status')).toBe('processing');
    await server.restart();
    await waitUntilAnswering(server.baseUrl);
    const done = await pollUntilDone(server.baseUrl, key, jobId, 180_000);
    expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
    const minutes = Math.ceil((done.body.audio.duration_seconds / 60) * 100) / 100;
    // Nothing else ran on this key's account: what it used is this one job's charge, once.
    expect(done.body.billing.monthly_minutes_used).toBe(minutes);
    const audio = await decodeMp3(new Uint8Array(await (await fetch(done.body.audio_url)).arrayBuffer()));
    expect(Math.abs(audio.seconds - done.body.audio.duration_seconds)).toBeLessThan(0.1);
  }, 180_000);
});
