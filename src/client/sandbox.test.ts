import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import { AgentTtsClient } from './client.js';
import { AgentTtsError } from './errors.js';
import type { ProgressEvent } from './types.js';

/** The typed client against the reference API in the sandbox: real HTTP, its clock moved by the test. */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ env: { RATE_POST_LIMIT: '10' } });
  await sandbox.clock.freeze();
});
afterAll(() => sandbox.stop());

describe('AgentTtsClient against the sandbox', () => {
  it('speak() polls a 202 job to completion, reporting progress as the sandbox clock moves', async () => {
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.active_pro });
    const events: ProgressEvent[] = [];
    const job = await client.speak(
      { text: 'A job that takes two seconds. sandbox:async=2' },
      {
        onProgress: (event) => {
          events.push(event);
          // Each answer while processing moves the sandbox clock one second (the client waits as told, in real time).
          if (event.status === 'processing') void sandbox.clock.advance(1);
        },
      },
    );
    expect(job.status).toBe('completed');
    expect(events.map((e) => [e.status, e.percent])).toEqual([
      ['processing', 0],
      ['processing', 50],
      ['completed', 100],
    ]);
    expect(events[0]!.nextPollMs).toBe(2_000);
    expect(events[1]!.nextPollMs).toBe(1_000);
    // Two polls; the first came one sandbox second after "retry_after_seconds: 2" (the clock is frozen and
    // was moved one second), and the journal says so.
    const polls = sandbox.journal.list({ method: 'GET', key: sandbox.keys.active_pro.slice(0, 12) });
    expect(polls.map((e) => e.flags.map((f) => f.code))).toEqual([['POLLED_TOO_SOON'], []]);
  });

  it('resubmits a job the provider failed with a fresh Idempotency-Key, then surfaces the failure', async () => {
    const client = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.active_ultimate, retry: { baseDelayMs: 1, maxDelayMs: 1 } });
    const error = await client.speak({ text: 'Fails. sandbox:provider_error' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentTtsError);
    expect((error as AgentTtsError).code).toBe('TTS_PROVIDER_ERROR');
    const posts = sandbox.journal.list({ method: 'POST', key: sandbox.keys.active_ultimate.slice(0, 12) });
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(posts.map((e) => e.response.status))).toEqual(new Set([502]));
    // Every resubmission after "use a new Idempotency-Key" has a key of its own.
    const keys = posts.map((e) => e.headers['idempotency-key']);
    expect(keys.every((k) => k !== undefined)).toBe(true);
    expect(new Set(keys).size).toBe(posts.length);
    expect(posts.flatMap((e) => e.flags)).toEqual([]);
  });
});
