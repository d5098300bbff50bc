import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flatMetrics } from './figures.js';
import { runLoad, sleepUntil } from './runner.js';
import { readSettings } from './settings.js';

/**
 * The runner against a small stand-in for a deployment, to reach the answers a healthy reference
 * server does not give on demand: 429 on a key's second POST inside the window, 202 then a job that
 * fails, a 500, a dropped connection. (The end-to-end tests in test/load-*.test.ts run it against the
 * real reference server.)
 */
const KEYS = [`tts_0000000a_${'a'.repeat(48)}`, `tts_0000000b_${'b'.repeat(48)}`];

let server: Server;
let baseUrl: string;
const posts: { key: string; idempotencyKey: string | undefined; text: string; timestamps?: string }[] = [];
const polls = new Map<string, number>();
/** Jobs whose POST asked for timings: their completed answers carry them. */
const askedTimings = new Set<string>();
const TIMINGS = { granularity: 'word', json_url: 'x.json', vtt_url: 'x.vtt', srt_url: 'x.srt' };

beforeAll(async () => {
  const lastPost = new Map<string, number>();
  server = createServer((req, res) => {
    const key = (req.headers.authorization ?? '').replace('Bearer ', '');
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.url?.startsWith('/audio/')) {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.end(Buffer.alloc(1234, 1));
      return;
    }
    if (req.method === 'GET') {
      const id = new URL(req.url!, 'http://x').searchParams.get('id')!;
      const n = (polls.get(id) ?? 0) + 1;
      polls.set(id, n);
      if (id.startsWith('fail'))
        return json(200, { success: false, job_id: id, status: 'failed', error: { code: 'TTS_PROVIDER_ERROR', message: 'engine down' } });
      if (n === 1) return json(429, { success: false, error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'retry-after': '1' });
      if (n === 2) return json(200, { success: true, job_id: id, status: 'processing', retry_after_seconds: 1 });
      const timings = askedTimings.has(id) ? { timings: TIMINGS } : {};
      return json(200, { success: true, job_id: id, status: 'completed', audio_url: `/audio/${id}.mp3`, audio: { duration_seconds: 2 }, ...timings });
    }
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const { text, timestamps } = JSON.parse(body) as { text: string; timestamps?: string };
      const n = posts.push({ key, idempotencyKey: req.headers['idempotency-key'] as string | undefined, text, timestamps }) - 1;
      if (timestamps === 'word') askedTimings.add(`job-${n}`);
      const now = Date.now();
      // One POST per key per 5 s here, like the API's limit but shorter.
      if (now - (lastPost.get(key) ?? -Infinity) < 5000)
        return json(429, { success: false, error: { code: 'RATE_LIMITED', message: 'limited' } }, { 'retry-after': '5' });
      lastPost.set(key, now);
      if (text.includes('Request 1.'))
        return json(202, { success: true, job_id: `job-${n}`, status: 'processing', status_url: `/v1/agent-tts?id=job-${n}`, retry_after_seconds: 1 });
      if (text.includes('Request 2.'))
        return json(202, { success: true, job_id: `fail-${n}`, status: 'processing', status_url: `/v1/agent-tts?id=fail-${n}`, retry_after_seconds: 1 });
      if (text.includes('Request 3.')) return json(500, { success: false, error: { code: 'INTERNAL_ERROR', message: `boom for ${key}` } });
      if (text.includes('Request 4.')) return req.socket.destroy();
      // Timings when asked, but never for request 5 (as a service without the extension), and for request 0 always (unasked).
      const timings = (timestamps === 'word' && !text.includes('Request 5.')) || text.includes('Request 0.') ? { timings: TIMINGS } : {};
      return json(200, {
        success: true,
        job_id: `inline-${n}`,
        status: 'completed',
        audio_url: `${baseUrl}/audio/inline-${n}.mp3`,
        audio: { duration_seconds: 1.5 },
        ...timings,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the runner', () => {
  it('follows each path to its end, counts refusals apart from errors, and spreads over the keys', async () => {
    // 6 submissions in 2.5 s on 2 keys at 1 POST per 5 s: the keys allow 2, the rest go out over the limit.
    const settings = readSettings([
      '--fixtures',
      'x',
      '--rate',
      '2',
      '--duration',
      '3s',
      '--mix',
      '40=1',
      '--post-limit',
      '1',
      '--rate-window',
      '5s',
      '--allow-429',
    ]);
    const run = await runLoad({ settings, baseUrl, keys: KEYS, keyDisplays: ['tts_0000000a', 'tts_0000000b'], signal: new AbortController().signal });
    const f = run.recorder.figures({
      elapsedMs: run.elapsedMs,
      scheduleElapsedMs: run.scheduleElapsedMs,
      peakScheduledRate: 2,
      eventLoopDelayP99Ms: null,
      clientCpuPercent: null,
    });
    expect(posts).toHaveLength(6);
    expect(new Set(posts.map((p) => p.idempotencyKey)).size).toBe(6);
    expect(posts.slice(0, 2).map((p) => p.key)).toEqual(KEYS);
    // Request 0 inline on the first key, request 1 a job on the second; the four sent over the keys' limit are refused.
    expect(f.submissions).toMatchObject({ sent: 6, sent_over_key_limit: 4, rate_limited: 4, completed: 2, errors: 0, interrupted: 0 });
    expect(f.paths).toEqual({ inline: 1, job: 1 });
    expect(f.http_status.post).toEqual({ '200': 1, '202': 1, '429': 4 });
    expect(f.rate_limited_rate).toBeCloseTo(4 / 6, 3);
    expect(f.error_rate).toBe(0);
    expect(f.error_codes).toEqual({ RATE_LIMITED: 4 });
    expect(f.keys.map((k) => k.posts)).toEqual([3, 3]);
  }, 30_000);

  it('polls a 202 at retry_after_seconds, waits out a 429 on a poll, and reports failed jobs, 500s and dropped connections', async () => {
    posts.length = 0;
    polls.clear();
    // Five fresh keys, one POST each.
    const keys = ['c', 'd', 'e', 'f', '9'].map((c) => `tts_0000000${c}_${c.repeat(48)}`);
    const settings = readSettings([
      '--fixtures',
      'x',
      '--rate',
      '2',
      '--duration',
      '2.5s',
      '--mix',
      '40=1',
      '--post-limit',
      '1',
      '--rate-window',
      '5s',
      '--allow-429',
    ]);
    const started = Date.now();
    const run = await runLoad({ settings, baseUrl, keys, keyDisplays: keys.map((k) => k.slice(0, 12)), signal: new AbortController().signal });
    const f = run.recorder.figures({
      elapsedMs: run.elapsedMs,
      scheduleElapsedMs: run.scheduleElapsedMs,
      peakScheduledRate: 2,
      eventLoopDelayP99Ms: null,
      clientCpuPercent: null,
    });
    expect(posts.map((p) => p.text.slice(0, 10))).toEqual(['Request 0.', 'Request 1.', 'Request 2.', 'Request 3.', 'Request 4.']);
    expect(f.paths).toEqual({ inline: 1, job: 2 });
    expect(f.submissions).toMatchObject({ sent: 5, completed: 2, errors: 3, rate_limited: 0 });
    expect(f.error_codes).toEqual({ TTS_PROVIDER_ERROR: 1, INTERNAL_ERROR: 1, NETWORK_ERROR: 1 });
    // Job 1: 429 on the first poll (waits 1 s), processing on the second (1 s), completed on the third.
    expect(f.polls_per_job.distribution).toEqual({ '1': 1, '3': 1 });
    expect(f.http_status.poll).toEqual({ '200': 3, '429': 1 });
    expect(f.time_to_audio_job.count).toBe(1);
    expect(f.time_to_audio_job.min_ms!).toBeGreaterThan(3000);
    expect(f.audio).toMatchObject({ downloads: 2, bytes: 2 * 1234, seconds: 3.5 });
    expect(Date.now() - started).toBeLessThan(20_000);
    const samples = [...run.recorder.errorSamples.keys()].join('\n');
    expect(samples).toContain('engine down');
    expect(samples).toContain('POST answered 500');
  }, 30_000);

  it('asks for word timings on --timings-share of the submissions, and counts which completed answers carried them', async () => {
    posts.length = 0;
    polls.clear();
    const keys = ['1', '2', '3', '4', '5', '6'].map((c) => `tts_0000002${c}_${c.repeat(48)}`);
    const settings = readSettings([
      '--fixtures',
      'x',
      '--rate',
      '2',
      '--duration',
      '3s',
      '--mix',
      '40=1',
      '--post-limit',
      '1',
      '--rate-window',
      '5s',
      '--timings-share',
      '50%',
    ]);
    const run = await runLoad({ settings, baseUrl, keys, keyDisplays: keys.map((k) => k.slice(0, 12)), signal: new AbortController().signal });
    const f = run.recorder.figures({
      elapsedMs: run.elapsedMs,
      scheduleElapsedMs: run.scheduleElapsedMs,
      peakScheduledRate: 2,
      eventLoopDelayP99Ms: null,
      clientCpuPercent: null,
    });
    // Every other submission asks: 1, 3 and 5.
    expect(posts.map((p) => p.timestamps ?? '-')).toEqual(['-', 'word', '-', 'word', '-', 'word']);
    // 1 (a 202, polled) carried them; 3 ended in a 500; 5 came back without; 0 carried them unasked.
    expect(f.timings).toEqual({ asked: 3, completed: 2, with_timings: 1, missing: 1, unasked_with_timings: 1 });
    expect(flatMetrics(f)).toMatchObject({ timings_asked: 3, timings_missing: 1 });
  }, 30_000);

  it('stops at once when aborted, counting what was in flight as interrupted', async () => {
    const controller = new AbortController();
    const settings = readSettings([
      '--fixtures',
      'x',
      '--rate',
      '1',
      '--duration',
      '60s',
      '--mix',
      '40=1',
      '--post-limit',
      '1',
      '--rate-window',
      '5s',
      '--allow-429',
    ]);
    polls.clear();
    posts.length = 0;
    const keys = ['1', '2', '3'].map((c) => `tts_0000001${c}_${c.repeat(48)}`);
    setTimeout(() => controller.abort(), 1500);
    const started = Date.now();
    const run = await runLoad({ settings, baseUrl, keys, keyDisplays: keys.map((k) => k.slice(0, 12)), signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(run.interrupted).toBe(true);
    expect(run.stoppedBy).toBe('interrupt');
    const f = run.recorder.figures({
      elapsedMs: run.elapsedMs,
      scheduleElapsedMs: run.scheduleElapsedMs,
      peakScheduledRate: 1,
      eventLoopDelayP99Ms: null,
      clientCpuPercent: null,
    });
    expect(f.submissions.sent).toBe(2);
    // Request 1 was a 202 still being polled: cut short, not an error.
    expect(f.submissions).toMatchObject({ completed: 1, interrupted: 1, errors: 0, in_flight_at_end: 0 });
  }, 30_000);
});

describe('sleepUntil', () => {
  it('waits again when the timer wakes before the due time, so nothing goes out early', async () => {
    // A clock on which every sleep ends 0.6 ms short, as a timer counting whole milliseconds may.
    let clock = 0;
    const asked: number[] = [];
    const sleepFor = async (ms: number) => {
      asked.push(ms);
      clock += Math.max(0.1, ms - 0.6);
    };
    await sleepUntil(2000, () => clock, sleepFor);
    expect(clock).toBeGreaterThanOrEqual(2000);
    expect(asked[0]).toBe(2000);
    expect(asked.length).toBeGreaterThan(1);
    // Already due: no wait at all.
    asked.length = 0;
    await sleepUntil(1000, () => clock, sleepFor);
    expect(asked).toEqual([]);
  });

  it('never returns before the due time on the real clock', async () => {
    const t0 = performance.now();
    const now = () => performance.now() - t0;
    for (const due of [5, 10, 15, 20, 25]) {
      await sleepUntil(due, now, (ms) => new Promise((resolve) => setTimeout(resolve, ms)));
      expect(now()).toBeGreaterThanOrEqual(due);
    }
  });
});
