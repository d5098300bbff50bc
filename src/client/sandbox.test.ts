import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWarmSandbox } from '../../test/helpers/sandbox.js';
import type { RunningSandbox } from '../sandbox/index.js';
import { AgentTtsClient } from './client.js';
import { AgentTtsError } from './errors.js';
import type { ProgressEvent, RetryEvent } from './types.js';

/** The typed client against the reference API in the sandbox: real HTTP, its waits moving the sandbox clock. */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startWarmSandbox({ env: { RATE_POST_LIMIT: '10' } });
});
afterAll(() => sandbox.stop());

describe('AgentTtsClient against the sandbox', () => {
  it('speak() polls a 202 job to completion on the sandbox clock, with no real wait', async () => {
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.active_pro, clock: sandbox.clock.client });
    const events: ProgressEvent[] = [];
    const sandboxStart = sandbox.clock.now().getTime();
    const started = performance.now();
    const job = await client.speak({ text: 'A job that takes five seconds. sandbox:async=5' }, { onProgress: (event) => events.push(event) });
    // Five seconds of the job, and of the client's waits, passed on the sandbox clock only.
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(job.status).toBe('completed');
    expect(sandbox.clock.now().getTime() - sandboxStart).toBe(5_000);
    expect(events.map((e) => [e.status, e.percent, e.elapsedMs])).toEqual([
      ['processing', 0, 0],
      ['completed', 100, 5_000],
    ]);
    expect(events[0]!.nextPollMs).toBe(5_000);
    // It waited as long as it was told, on the clock the sandbox judges by.
    sandbox.journal.expectNoFlags({ key: sandbox.keys.active_pro.slice(0, 12) });
  });

  it('sits out a 429’s Retry-After on the sandbox clock, and its retry is accepted', async () => {
    const key = sandbox.keys.active_free;
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: key, clock: sandbox.clock.client });
    for (let i = 0; i < 10; i++) await client.submit({ text: `Number ${i}. sandbox:inline` });
    const retries: RetryEvent[] = [];
    const started = performance.now();
    const { job } = await client.submit({ text: 'One too many. sandbox:inline' }, { onRetry: (e) => retries.push(e) });
    // The Retry-After (about a minute) passed on the sandbox clock, not in real time.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(job.status).toBe('completed');
    expect(retries.map((e) => e.error.code)).toEqual(['RATE_LIMITED']);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(retries[0]!.error.retryAfterSeconds! * 1000);
    const posts = sandbox.journal.list({ method: 'POST', key: key.slice(0, 12) });
    expect(posts.map((e) => e.response.status)).toEqual([...Array(10).fill(200), 429, 200]);
    sandbox.journal.expectNoFlags({ key: key.slice(0, 12) });
  });

  it('with maxResubmits, resubmits a job the provider failed with a fresh Idempotency-Key while the POST bucket has room, then surfaces the failure', async () => {
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.active_ultimate, retry: { baseDelayMs: 1, maxDelayMs: 1 } });
    const error = await client.speak({ text: 'Fails. sandbox:provider_error' }, { maxResubmits: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentTtsError);
    expect((error as AgentTtsError).code).toBe('TTS_PROVIDER_ERROR');
    const posts = sandbox.journal.list({ method: 'POST', key: sandbox.keys.active_ultimate.slice(0, 12) });
    expect(posts.length).toBe(2);
    expect(new Set(posts.map((e) => e.response.status))).toEqual(new Set([502]));
    // Every resubmission after "use a new Idempotency-Key" has a key of its own.
    const keys = posts.map((e) => e.headers['idempotency-key']);
    expect(keys.every((k) => k !== undefined)).toBe(true);
    expect(new Set(keys).size).toBe(posts.length);
    expect(posts.flatMap((e) => e.flags)).toEqual([]);
  });
});
