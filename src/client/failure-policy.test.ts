import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox, TestClock } from '../sandbox/index.js';
import { startWarmSandbox } from '../../test/helpers/sandbox.js';
import { AgentTtsClient } from './client.js';
import { AgentTtsError } from './errors.js';
import type { RetryEvent } from './types.js';

/**
 * The failure policy and the deadline of docs/clients.md#failure-policy, against the sandbox on the
 * API's own limits (1 POST a minute per key). Each test has a test clock of its own, and so keys of its
 * own: the journal filtered by key is that test's requests, and its waits move its clock only.
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startWarmSandbox();
});
afterAll(() => sandbox.stop());

const publicPart = (key: string) => key.slice(0, 12);
const posts = (key: string) => sandbox.journal.list({ method: 'POST', key: publicPart(key) });

async function testClock(): Promise<TestClock> {
  return sandbox.createClock({ freeze: true });
}

/** Seconds the test clock moved while `run` ran. */
async function onClock<T>(clock: TestClock, run: () => Promise<T>): Promise<{ result: T; seconds: number }> {
  const before = clock.now().getTime();
  const result = await run();
  return { result, seconds: (clock.now().getTime() - before) / 1000 };
}

describe('a job that failed is the answer: returned at once, never retried', () => {
  it('speak() of sandbox:provider_error rejects with TTS_PROVIDER_ERROR, its job id and action, after one POST and no wait', async () => {
    const clock = await testClock();
    const key = clock.keys.active_free;
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: key, clock: clock.client });
    const retries: RetryEvent[] = [];
    const started = performance.now();
    const { result: error, seconds } = await onClock(clock, () =>
      client.speak({ text: 'Fails inline. sandbox:provider_error' }, { onRetry: (e) => retries.push(e) }).catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(AgentTtsError);
    const failure = error as AgentTtsError;
    expect(failure).toMatchObject({ code: 'TTS_PROVIDER_ERROR', status: 502, jobFailed: true, suggestedAction: 'Retry with backoff.' });
    expect(failure.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(failure.details).toMatchObject({ job_id: failure.jobId });
    expect(failure.requestId).toMatch(/^[0-9a-f-]{36}$/);
    // A fresh key for a retry the caller may choose to make: this one is bound to the failed job.
    expect(failure.retryIdempotencyKey).not.toBe(posts(key)[0]!.headers['idempotency-key']);
    expect(retries).toEqual([]);
    expect(posts(key).map((e) => e.response.status)).toEqual([502]);
    expect(seconds).toBe(0);
    expect(performance.now() - started).toBeLessThan(10_000);
    sandbox.journal.expectNoFlags({ key: publicPart(key) });
  });

  it('speak() of sandbox:internal_error rejects with INTERNAL_ERROR and its job id after one POST', async () => {
    const clock = await testClock();
    const key = clock.keys.active_pro;
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: key, clock: clock.client });
    const { result: error, seconds } = await onClock(clock, () =>
      client.speak({ text: 'Breaks. sandbox:internal_error sandbox:inline' }).catch((e: unknown) => e),
    );
    expect(error).toMatchObject({
      name: 'AgentTtsError',
      code: 'INTERNAL_ERROR',
      status: 500,
      jobFailed: true,
      jobId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(posts(key).map((e) => e.response.status)).toEqual([500]);
    expect(seconds).toBe(0);
  });

  it('a job that fails while polled rejects with its code and job id, one POST, polls as told', async () => {
    const clock = await testClock();
    const key = clock.keys.active_ultimate;
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: key, clock: clock.client });
    const error = (await client.speak({ text: 'Fails half-way. sandbox:async=6 sandbox:provider_error' }).catch((e: unknown) => e)) as AgentTtsError;
    expect(error).toMatchObject({ code: 'TTS_PROVIDER_ERROR', jobFailed: true });
    expect(error.jobId).toBe(posts(key)[0]!.response.job_id);
    expect(posts(key)).toHaveLength(1);
    sandbox.journal.expectNoFlags({ key: publicPart(key) });
  });
});

describe('maxResubmits: resubmission is opt-in and never spends a POST it knows is refused', () => {
  it('within a timeoutMs shorter than the POST bucket’s refill, does not resubmit: the failure is the answer', async () => {
    const clock = await testClock();
    const key = clock.keys.active_free;
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: key, clock: clock.client });
    const { result: error, seconds } = await onClock(clock, () =>
      client.speak({ text: 'Fails. sandbox:provider_error' }, { maxResubmits: 1, timeoutMs: 10_000 }).catch((e: unknown) => e),
    );
    expect(error).toMatchObject({ code: 'TTS_PROVIDER_ERROR', jobFailed: true });
    // The 502 said RateLimit "post";r=0: a second POST within the minute would be a certain 429.
    expect(posts(key).map((e) => e.response.status)).toEqual([502]);
    expect(seconds).toBe(0);
  });

  it('within a timeoutMs that holds the refill, waits it out (on the clock), then resubmits with a fresh key', async () => {
    const clock = await testClock();
    const key = clock.keys.active_pro;
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: key, clock: clock.client });
    const retries: RetryEvent[] = [];
    const { result: error, seconds } = await onClock(clock, () =>
      client.speak({ text: 'Fails twice. sandbox:provider_error' }, { maxResubmits: 1, onRetry: (e) => retries.push(e) }).catch((e: unknown) => e),
    );
    expect(error).toMatchObject({ code: 'TTS_PROVIDER_ERROR' });
    const sent = posts(key);
    expect(sent.map((e) => e.response.status)).toEqual([502, 502]);
    expect(sent[1]!.headers['idempotency-key']).not.toBe(sent[0]!.headers['idempotency-key']);
    expect(retries).toHaveLength(1);
    expect(seconds).toBeGreaterThanOrEqual(60);
    expect(seconds).toBeLessThan(63);
    // Neither a 429 nor a POST before the Retry-After: the journal saw no mistake.
    sandbox.journal.expectNoFlags({ key: publicPart(key) });
  });
});

describe('one deadline: timeoutMs covers the Retry-After waits', () => {
  it('speak({ timeoutMs: 2000 }) on a limited key rejects with RATE_LIMITED at once, without sitting out the Retry-After', async () => {
    const clock = await testClock();
    const key = clock.keys.active_free;
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: key, clock: clock.client });
    await client.speak({ text: 'Takes the minute’s POST. sandbox:inline' });
    const started = performance.now();
    const { result: error, seconds } = await onClock(clock, () =>
      client.speak({ text: 'One too many. sandbox:inline' }, { timeoutMs: 2000 }).catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(AgentTtsError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, attempts: 1 });
    expect((error as AgentTtsError).retryAfterSeconds).toBeGreaterThan(2);
    expect((error as AgentTtsError).rateLimit?.state).toMatchObject({ name: 'post', remaining: 0 });
    // It did not wait the Retry-After: the clock it waits in did not move, and real time stayed short.
    expect(seconds).toBe(0);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(posts(key).map((e) => e.response.status)).toEqual([200, 429]);
  });

  it('on real time too: the default clock rejects at once instead of after about a minute', async () => {
    const clock = await testClock();
    const key = clock.keys.active_pro;
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: key });
    await client.speak({ text: 'First. sandbox:inline' });
    const started = performance.now();
    const error = await client.speak({ text: 'Second. sandbox:inline' }, { timeoutMs: 2000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AgentTtsError', code: 'RATE_LIMITED' });
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('an AbortSignal that aborts while a job is waited for rejects with AgentTtsError ABORTED, never a DOMException', async () => {
    const clock = await testClock();
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: clock.keys.active_ultimate });
    const controller = new AbortController();
    const error = await client
      .speak({ text: 'A long one. sandbox:async=600' }, { signal: controller.signal, onProgress: () => controller.abort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentTtsError);
    expect(error).toMatchObject({ code: 'ABORTED', suggestedAction: expect.stringMatching(/job id/) });
    expect((error as AgentTtsError).cause).toBeInstanceOf(DOMException);
  });
});

describe('what a successful call answered: request id and rate-limit state', () => {
  it('speak() of an inline job exposes lastResponse (request id, POST bucket) without it in the body', async () => {
    const clock = await testClock();
    const key = clock.keys.active_free;
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: key, clock: clock.client });
    const job = await client.speak({ text: 'Hello. sandbox:inline' });
    expect(job.lastResponse.requestId).toBe(job.meta.request_id);
    expect(job.lastResponse).toMatchObject({ status: 200, rateLimit: { policy: { name: 'post', quota: 1 }, state: { remaining: 0 } } });
    expect(job.submitResponse).toBe(job.lastResponse);
    expect(JSON.parse(JSON.stringify(job))).not.toHaveProperty('lastResponse');
    expect(Object.keys(job)).not.toContain('submitResponse');
  });

  it('speak() of a polled job: lastResponse is the last GET’s (its bucket), submitResponse the POST’s', async () => {
    const clock = await testClock();
    const key = clock.keys.active_pro;
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: key, clock: clock.client });
    const job = await client.speak({ text: 'Polled. sandbox:async=3' });
    const gets = sandbox.journal.list({ method: 'GET', key: publicPart(key) });
    expect(job.lastResponse).toMatchObject({ status: 200, requestId: job.meta.request_id, rateLimit: { policy: { name: 'get', quota: 30 } } });
    expect(job.lastResponse.rateLimit!.state.remaining).toBe(30 - gets.length);
    expect(job.submitResponse).toMatchObject({ status: 202, rateLimit: { policy: { name: 'post' }, state: { remaining: 0 } } });
    expect(job.submitResponse.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const fetched = await client.getJob(job.job_id);
    expect(fetched.lastResponse).toMatchObject({ status: 200, rateLimit: { policy: { name: 'get' } } });
  });
});
