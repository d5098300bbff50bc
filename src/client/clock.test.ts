import { describe, expect, it } from 'vitest';
import { AgentTtsClient } from './client.js';
import { systemClock, type ClientClock } from './clock.js';
import { AgentTtsError } from './errors.js';
import type { ProgressEvent, RetryEvent } from './types.js';

const KEY = 'tts_0123abcd_0123456789abcdef0123456789abcdef0123456789abcdef';
const JOB = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
const META = { request_id: '11111111-2222-4333-8444-555555555555', api_version: '2026-04' };

/** A clock that only moves when slept on: each sleep is recorded and moves it at once. */
function fakeClock(start = Date.UTC(2030, 0, 1)): ClientClock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      slept.push(ms);
      now += ms;
    },
  };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const processing = (percent: number, retryAfterSeconds: number) =>
  json(200, { success: true, job_id: JOB, status: 'processing', progress_percent: percent, retry_after_seconds: retryAfterSeconds, meta: META });
const accepted = (retryAfterSeconds: number) =>
  json(202, { success: true, job_id: JOB, status: 'processing', progress_percent: 0, retry_after_seconds: retryAfterSeconds, meta: META });
const completed = () =>
  json(200, {
    success: true,
    job_id: JOB,
    status: 'completed',
    audio_url: 'http://127.0.0.1:1/v1/audio/a.mp3?sig=x',
    audio: { format: 'mp3', duration_seconds: 1, voice: 'st_m1', speed: 1.2, language: 'en' },
    meta: META,
  });
const error = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  json(status, { success: false, error: { code, message }, meta: META }, headers);

/** A fetch that gives the answers in order (the last one again once they run out), and records the requests. */
function scripted(...answers: Array<() => Response>) {
  const calls: string[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    calls.push(request.method);
    return answers[Math.min(calls.length - 1, answers.length - 1)]!();
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

describe('the client on an injected clock', () => {
  it('waits between polls on the clock, as long as each answer says, and reports elapsed time in its time', async () => {
    const clock = fakeClock();
    const server = scripted(
      () => accepted(30),
      () => processing(50, 20),
      () => completed(),
    );
    const client = new AgentTtsClient({ apiKey: KEY, fetch: server.fetch, clock });
    const events: ProgressEvent[] = [];
    const started = performance.now();
    const job = await client.speak({ text: 'Long.' }, { onProgress: (e) => events.push(e) });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(job.status).toBe('completed');
    expect(server.calls).toEqual(['POST', 'GET', 'GET']);
    expect(clock.slept).toEqual([30_000, 20_000]);
    expect(events.map((e) => [e.status, e.elapsedMs, e.nextPollMs])).toEqual([
      ['processing', 0, 30_000],
      ['processing', 30_000, 20_000],
      ['completed', 50_000, undefined],
    ]);
  });

  it('measures the poll timeout on the clock: the last wait is cut short for a last look, then TIMEOUT', async () => {
    const clock = fakeClock();
    const server = scripted(() => processing(10, 25));
    const client = new AgentTtsClient({ apiKey: KEY, fetch: server.fetch, clock });
    const failure = (await client.poll(JOB, { timeoutMs: 60_000 }).catch((e: unknown) => e)) as AgentTtsError;
    expect(failure).toBeInstanceOf(AgentTtsError);
    expect(failure.code).toBe('TIMEOUT');
    expect(failure.message).toBe(`Job ${JOB} was still processing after 60 s (timeout 60 s)`);
    expect(clock.slept).toEqual([25_000, 25_000, 10_000]);
    expect(server.calls).toEqual(['GET', 'GET', 'GET', 'GET']);
  });

  it('sits out a Retry-After on the clock, never less than asked', async () => {
    const clock = fakeClock();
    const server = scripted(
      () => error(429, 'RATE_LIMITED', 'Too many requests.', { 'Retry-After': '40' }),
      () => completed(),
    );
    const retries: RetryEvent[] = [];
    const client = new AgentTtsClient({ apiKey: KEY, fetch: server.fetch, clock, onRetry: (e) => retries.push(e) });
    const started = performance.now();
    const job = await client.getJob(JOB);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(job.status).toBe('completed');
    expect(clock.slept).toHaveLength(1);
    expect(clock.slept[0]).toBeGreaterThanOrEqual(40_000);
    expect(clock.slept[0]).toBeLessThan(41_000);
    expect(retries.map((e) => e.delayMs)).toEqual(clock.slept);
  });

  it('with maxResubmits, waits on the clock before resubmitting a job that failed with "new Idempotency-Key"', async () => {
    const clock = fakeClock();
    const server = scripted(
      () => accepted(5),
      () =>
        json(200, {
          success: false,
          job_id: JOB,
          status: 'failed',
          error: { code: 'TTS_PROVIDER_ERROR', message: 'Provider failed; retry with a new Idempotency-Key.' },
          meta: META,
        }),
      () => completed(),
    );
    const client = new AgentTtsClient({ apiKey: KEY, fetch: server.fetch, clock, retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    const started = performance.now();
    const job = await client.speak({ text: 'Fails once.' }, { maxResubmits: 1 });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(job.status).toBe('completed');
    expect(server.calls).toEqual(['POST', 'GET', 'POST']);
    expect(clock.slept[0]).toBe(5_000);
    expect(clock.slept).toHaveLength(2); // the poll's 5 s, then the backoff before the resubmission
  });

  it('a per-call clock overrides the client’s', async () => {
    const own = fakeClock();
    const perCall = fakeClock();
    const server = scripted(
      () => processing(50, 3),
      () => completed(),
    );
    const client = new AgentTtsClient({ apiKey: KEY, fetch: server.fetch, clock: own });
    await client.poll(JOB, { initialDelayMs: 1_000, clock: perCall });
    expect(perCall.slept).toEqual([1_000, 3_000]);
    expect(own.slept).toEqual([]);
  });

  it('an abort during a wait on the clock ends the call with the abort’s reason', async () => {
    const controller = new AbortController();
    const clock: ClientClock = {
      now: () => 0,
      // A clock whose waits end only by abort.
      sleep: (_ms, signal) => new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true })),
    };
    const server = scripted(() => processing(10, 30));
    const client = new AgentTtsClient({ apiKey: KEY, fetch: server.fetch, clock });
    const pending = client.poll(JOB, { signal: controller.signal, initialDelayMs: 1 });
    setTimeout(() => controller.abort(new Error('stop')), 10);
    await expect(pending).rejects.toThrow('stop');
  });

  it('defaults to systemClock, real time', async () => {
    expect(new AgentTtsClient().clock).toBe(systemClock);
    expect(Math.abs(systemClock.now() - Date.now())).toBeLessThan(50);
    const started = performance.now();
    await systemClock.sleep(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });
});
