import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY_PATTERN } from '../contract/limits.js';
import { GLOBAL_CLOCK_ID } from './clocks.js';
import { createSandbox, type SandboxCore } from './sandbox.js';

/** Which clock a key's requests and jobs are on: told to clients, kept while a clock is deleted, kept by each job of a busy queue. */
let sb: SandboxCore | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

const open = async (options: { jobConcurrency?: number } = {}) =>
  (sb = await createSandbox({ baseUrl: 'http://sandbox.test', voicesUrl: 'http://voices.test', ...options }));
const publicId = (key: string) => API_KEY_PATTERN.exec(key)![1]!;
// biome-ignore lint/suspicious/noExplicitAny: JSON read off the wire is walked field by field, and every check tests the value it reads
type Json = Record<string, any>;

describe('GET /sandbox/clocks/mine', () => {
  it("answers the clock of the request's key: a test clock's for its keys, the global clock otherwise", async () => {
    const core = await open();
    const made = (await core.createClock({ freeze: true }))!;
    const mine = async (key?: string) => {
      const res = await core.app.request('/sandbox/clocks/mine', key ? { headers: { Authorization: `Bearer ${key}` } } : {});
      expect(res.status).toBe(200);
      return (await res.json()) as Json;
    };
    const onTest = await mine(made.keys.active_pro);
    expect(onTest).toMatchObject({ id: made.clock.id, url: `/sandbox/clocks/${made.clock.id}`, frozen: true });
    expect(onTest.keys).toBeUndefined();
    expect(await mine(core.keys.active_pro)).toMatchObject({ id: GLOBAL_CLOCK_ID, url: `/sandbox/clocks/${GLOBAL_CLOCK_ID}` });
    expect((await mine()).id).toBe(GLOBAL_CLOCK_ID);
    expect((await core.app.request('/sandbox/clocks/mine', { method: 'POST' })).status).toBe(405);
  });
});

describe('deleting a test clock', () => {
  it('revokes its keys before their requests leave the clock: a key still valid is never on the global clock', async () => {
    const core = await open();
    const made = (await core.createClock())!;
    const key = made.keys.active_ultimate;
    expect(core.clocks.ofKey(publicId(key))).toBe(made.clock);
    const deleting = core.deleteClock(made.clock.id);
    // The deletion is under way (its keys are being revoked): the key is still routed to its own clock.
    expect(core.clocks.ofKey(publicId(key))).toBe(made.clock);
    expect(await deleting).toBe(true);
    expect(core.clocks.get(made.clock.id)).toBeUndefined();
    const res = await core.app.request('/v1/agent-tts?id=00000000-0000-4000-8000-000000000000', { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as Json).error.code).toBe('INVALID_KEY');
  });
});

describe('the queue, one job at a time', () => {
  it('runs a job waiting behind a job of a test clock on its own clock', async () => {
    const core = await open({ jobConcurrency: 1 });
    await core.clock.freeze();
    const year = 365 * 86_400_000;
    const made = (await core.createClock({ set: core.clock.now() + year, freeze: true }))!;
    const submit = (key: string, text: string) =>
      core.app.request('/v1/agent-tts', {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text, voice: 'af_heart' }),
      });
    // A job on the test clock that takes 2 s of real time holds the queue's only place…
    const first = submit(made.keys.active_ultimate, 'sandbox:inline=2 A job on a clock a year ahead.');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // …so a job on the global clock waits, and is started once the first one ends.
    const second = await submit(core.keys.active_ultimate, 'A job on the global clock.');
    const firstJob = (await (await first).json()) as Json;
    const secondJob = (await second.json()) as Json;
    expect(firstJob.status, JSON.stringify(firstJob)).toBe('completed');
    expect(secondJob.status, JSON.stringify(secondJob)).toBe('completed');
    const stored = (await core.services.store.getJob(secondJob.job_id))!;
    expect(stored.completedAt).toBe(core.clock.now());
    expect((await core.services.store.getJob(firstJob.job_id))!.completedAt).toBe(made.clock.now());
  });
});
