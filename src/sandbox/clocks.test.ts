import { afterEach, describe, expect, it } from 'vitest';
import { AgentTtsClient } from '../client/client.js';
import { GLOBAL_CLOCK_ID, SandboxClocks } from './clocks.js';
import { MAX_CLOCKS } from './public.js';
import { ClockError, remoteClientClock, type RunningSandbox, startSandbox } from './index.js';
import { createSandbox, type SandboxCore } from './sandbox.js';

let sb: SandboxCore;
const BASE = 'http://sandbox.test';
const DAY = 86_400;

async function open(env: Record<string, string> = {}) {
  sb = await createSandbox({ baseUrl: BASE, voicesUrl: 'http://voices.test', env });
}
afterEach(() => sb?.close());

// biome-ignore lint/suspicious/noExplicitAny: JSON read off the wire is walked field by field, and every check tests the value it reads
type Json = Record<string, any>;
const post = (key: string, body: unknown) =>
  sb.app.request('/v1/agent-tts', {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
const get = (key: string, id: string) => sb.app.request(`/v1/agent-tts?id=${id}`, { headers: { Authorization: `Bearer ${key}` } });
const send = (path: string, method: string, body?: unknown) =>
  sb.app.request(path, {
    method,
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
const json = async (res: Response | Promise<Response>) => (await (await res).json()) as Json;
/** Makes a test clock over HTTP and returns its answer. */
const newClock = async (body?: unknown) => {
  const res = await send('/sandbox/clocks', 'POST', body);
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
};
const move = async (id: string, body: unknown) => {
  const res = await send(`/sandbox/clocks/${id}`, 'POST', body);
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
};
const moveGlobal = async (body: unknown) => {
  const res = await send('/sandbox/clock', 'POST', body);
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
};
const audioPath = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};
const nextMonth = (iso: string) => {
  const now = new Date(iso);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
};
const STATES = ['active_free', 'active_pro', 'active_ultimate', 'inactive_subscription', 'minutes_almost_used', 'minutes_used_up', 'no_api_access', 'revoked'];

describe('test clocks over HTTP: /sandbox/clocks', () => {
  it('POST makes a clock with fresh keys of every state on new accounts; GET lists and shows it; GET /sandbox names the endpoints', async () => {
    await open();
    const res = await send('/sandbox/clocks', 'POST');
    expect(res.status).toBe(201);
    const made = (await res.json()) as Json;
    expect(made.id).toMatch(/^clk_[0-9a-f]{24}$/);
    expect(made.url).toBe(`/sandbox/clocks/${made.id}`);
    expect(res.headers.get('location')).toBe(made.url);
    expect(made.frozen).toBe(false);
    expect(Math.abs(made.offset_seconds)).toBeLessThanOrEqual(1);
    expect(made.meta).toBeDefined();
    expect(Object.keys(made.keys).sort()).toEqual(STATES.sort());
    for (const state of STATES) expect(made.keys[state]).not.toBe((sb.keys as unknown as Json)[state]);
    // The states behave as the global keys' do.
    expect((await post(made.keys.active_pro, { text: 'Hello.' })).status).toBe(200);
    expect((await json(post(made.keys.no_api_access, { text: 'Hello.' }))).error.code).toBe('NO_API_ACCESS');
    expect((await json(post(made.keys.inactive_subscription, { text: 'Hello.' }))).error.code).toBe('INACTIVE_SUBSCRIPTION');
    expect((await json(post(made.keys.revoked, { text: 'Hello.' }))).error.code).toBe('INVALID_KEY');
    expect((await json(post(made.keys.minutes_used_up, { text: 'Hello.' }))).error.code).toBe('USAGE_LIMIT_EXCEEDED');

    const listed = await json(send('/sandbox/clocks', 'GET'));
    expect(listed.clocks.map((c: Json) => c.id)).toEqual([GLOBAL_CLOCK_ID, made.id]);
    expect(listed.count).toBe(1);
    expect(listed.max).toBe(MAX_CLOCKS);
    const shown = await json(send(made.url, 'GET'));
    expect(shown.keys).toEqual(made.keys);
    expect((await json(send('/sandbox/clocks/global', 'GET'))).keys).toEqual(sb.keys);
    const index = await json(send('/sandbox', 'GET'));
    expect(index.clocks).toMatchObject({ url: '/sandbox/clocks', count: 1, max: MAX_CLOCKS });
    expect(index.journal.filters).toContain('clock');
  });

  it('takes set and freeze at creation; refuses bad bodies, unknown ids and deleting the global clock with the error body', async () => {
    await open();
    const at = '2031-03-04T05:06:07.000Z';
    const made = await newClock({ set: at, freeze: true });
    expect(made.now).toBe(at);
    expect(made.frozen).toBe(true);
    const moved = await move(made.id, { advance_seconds: 60 });
    expect(moved.now).toBe('2031-03-04T05:07:07.000Z');
    expect(moved.id).toBe(made.id);

    const refusals: Array<[string, string, unknown, number, RegExp]> = [
      ['/sandbox/clocks', 'POST', { set: '2001-01-01T00:00:00Z' }, 400, /starts at real time .* only moves forward/],
      ['/sandbox/clocks', 'POST', { set: 'tomorrow' }, 400, /set must be an ISO 8601 date-time/],
      ['/sandbox/clocks', 'POST', { set: 5 }, 400, /set must be an ISO 8601 date-time.*Got 5\./],
      ['/sandbox/clocks', 'POST', { freeze: 'yes' }, 400, /freeze must be true or false\. Got "yes"\./],
      ['/sandbox/clocks', 'POST', { advance_seconds: 5 }, 400, /A new clock takes "set" and "freeze", not "advance_seconds"/],
      ['/sandbox/clocks', 'POST', '{', 400, /The body must be JSON/],
      [`/sandbox/clocks/${made.id}`, 'POST', { advance_seconds: -1 }, 400, /advance_seconds must be a number from 0/],
      [`/sandbox/clocks/${made.id}`, 'POST', { set: '2030-01-01T00:00:00Z' }, 400, /only moves forward/],
      [`/sandbox/clocks/${made.id}`, 'POST', { freeze: true, reset: true }, 400, /One change per request/],
      [
        '/sandbox/clocks/clk_000000000000000000000000',
        'GET',
        undefined,
        404,
        /No test clock "clk_000000000000000000000000" in this sandbox.*GET \/sandbox\/clocks lists them/,
      ],
      ['/sandbox/clocks/clk_000000000000000000000000', 'POST', { reset: true }, 404, /No test clock/],
      ['/sandbox/clocks/clk_000000000000000000000000', 'DELETE', undefined, 404, /No test clock/],
      ['/sandbox/clocks/global', 'DELETE', undefined, 400, /The global clock cannot be deleted.*"reset": true/],
      ['/sandbox/clocks', 'DELETE', undefined, 405, /Method DELETE is not allowed here; use GET or POST/],
      [`/sandbox/clocks/${made.id}`, 'PUT', { reset: true }, 405, /use GET or POST or DELETE/],
    ];
    for (const [path, method, body, status, message] of refusals) {
      const res = await send(path, method, body);
      const answer = (await res.json()) as Json;
      expect({ path, method, status: res.status }).toEqual({ path, method, status });
      expect(answer.success).toBe(false);
      expect(answer.error.code).toBe(status === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST');
      expect(answer.error.message).toMatch(message);
      expect(answer.meta).toBeDefined();
    }
    // None of the refusals moved the clock.
    expect((await json(send(made.url, 'GET'))).now).toBe('2031-03-04T05:07:07.000Z');
  });

  it('DELETE deletes the clock and what it owns: its keys answer 401, its jobs and their audio are gone; other clocks keep theirs', async () => {
    await open();
    const doomed = await newClock();
    const kept = await newClock();
    const job = await json(post(doomed.keys.active_pro, { text: 'Goodbye.' }));
    const other = await json(post(kept.keys.active_pro, { text: 'Still here.' }));
    expect((await sb.app.request(audioPath(job.audio_url))).status).toBe(200);

    const res = await send(doomed.url, 'DELETE');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: doomed.id, deleted: true });
    expect((await json(get(doomed.keys.active_pro, job.job_id))).error.code).toBe('INVALID_KEY');
    expect(await sb.services.store.getJob(job.job_id)).toBeUndefined();
    expect((await sb.app.request(audioPath(job.audio_url))).status).toBe(404);
    expect((await send(doomed.url, 'GET')).status).toBe(404);
    expect((await json(send('/sandbox/clocks', 'GET'))).clocks.map((c: Json) => c.id)).toEqual([GLOBAL_CLOCK_ID, kept.id]);

    expect((await get(kept.keys.active_pro, other.job_id)).status).toBe(200);
    expect((await sb.app.request(audioPath(other.audio_url))).status).toBe(200);
  });

  it(`holds at most ${MAX_CLOCKS} test clocks: the next is refused with 409 until one is deleted`, async () => {
    await open();
    const ids: string[] = [];
    for (let i = 0; i < MAX_CLOCKS; i++) ids.push((await sb.createClock())!.clock.id);
    const refused = await send('/sandbox/clocks', 'POST');
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as Json;
    expect(body.error.code).toBe('INVALID_REQUEST');
    expect(body.error.message).toMatch(/already holds 1000 test clocks.*DELETE \/sandbox\/clocks\/<id>/);
    expect(body.meta).toBeDefined();
    expect((await send(`/sandbox/clocks/${ids[0]}`, 'DELETE')).status).toBe(200);
    await newClock();
  }, 120_000);
});

describe('test clocks: keys on different clocks never see each other’s time', () => {
  it('the month: moving one clock into next month resets its minutes only', async () => {
    await open();
    const a = await newClock();
    const b = await newClock();
    await move(a.id, { set: nextMonth(a.now) });
    expect((await json(post(a.keys.minutes_used_up, { text: 'Anything.' }))).status).toBe('completed');
    expect((await json(post(b.keys.minutes_used_up, { text: 'Anything.' }))).error.code).toBe('USAGE_LIMIT_EXCEEDED');
    expect((await json(post(sb.keys.minutes_used_up, { text: 'Anything.' }))).error.code).toBe('USAGE_LIMIT_EXCEEDED');
    // And the global clock's month turning resets the global keys' minutes, not the test clocks'.
    await moveGlobal({ set: nextMonth(new Date(sb.clock.now()).toISOString()) });
    expect((await json(post(sb.keys.minutes_used_up, { text: 'Anything.' }))).status).toBe('completed');
    expect((await json(post(b.keys.minutes_used_up, { text: 'Anything.' }))).error.code).toBe('USAGE_LIMIT_EXCEEDED');
  });

  it('the rate-limit window: a 429 lasts until its own clock passes it, whichever other clock moves', async () => {
    await open();
    const a = await newClock({ freeze: true });
    await moveGlobal({ freeze: true });
    expect((await post(a.keys.active_free, { text: 'One.' })).status).toBe(200);
    expect((await post(sb.keys.active_free, { text: 'One.' })).status).toBe(200);
    expect((await post(a.keys.active_free, { text: 'Two.' })).status).toBe(429);

    await moveGlobal({ advance_seconds: 61 });
    const other = await newClock();
    await move(other.id, { advance_seconds: 3600 });
    const still = await post(a.keys.active_free, { text: 'Two.' });
    expect(still.status).toBe(429);
    expect(still.headers.get('retry-after')).toBe('60');
    expect((await post(sb.keys.active_free, { text: 'Two.' })).status).toBe(200);

    await move(a.id, { advance_seconds: 60 });
    expect((await post(a.keys.active_free, { text: 'Two.' })).status).toBe(200);
  });

  it('audio-URL expiry and retention are judged on the clock of the job’s account', async () => {
    await open();
    const a = await newClock();
    const onA = await json(post(a.keys.active_free, { text: 'On clock A.' }));
    const onGlobal = await json(post(sb.keys.active_free, { text: 'On the global clock.' }));

    // The global clock two days ahead: past the free plan's one day of retention and the URL's hour.
    await moveGlobal({ advance_seconds: 2 * DAY });
    expect(await sb.services.store.getJob(onGlobal.job_id)).toBeUndefined();
    expect((await get(a.keys.active_free, onA.job_id)).status).toBe(200);
    expect((await sb.app.request(audioPath(onA.audio_url))).status).toBe(200);

    // Clock A past the URL's expiry, then past the retention.
    await move(a.id, { advance_seconds: 3601 });
    expect((await sb.app.request(audioPath(onA.audio_url))).status).toBe(404);
    const fresh = await json(get(a.keys.active_free, onA.job_id));
    expect((await sb.app.request(audioPath(fresh.audio_url))).status).toBe(200);
    const keptOnGlobal = await json(post(sb.keys.active_pro, { text: 'Made after the global move.' }));
    await move(a.id, { advance_seconds: DAY });
    expect((await get(a.keys.active_free, onA.job_id)).status).toBe(404);
    // A clock behind the global one does not delete the global clock's jobs, nor does one ahead (A is now ahead of nothing it does not own).
    expect((await get(sb.keys.active_pro, keptOnGlobal.job_id)).status).toBe(200);
  });

  it('a clock far ahead deletes none of the jobs of other clocks', async () => {
    await open();
    const ahead = await newClock();
    const b = await newClock();
    const onB = await json(post(b.keys.active_free, { text: 'On clock B.' }));
    const onGlobal = await json(post(sb.keys.active_free, { text: 'On the global clock.' }));
    await move(ahead.id, { advance_seconds: 365 * DAY });
    expect((await get(b.keys.active_free, onB.job_id)).status).toBe(200);
    expect((await get(sb.keys.active_free, onGlobal.job_id)).status).toBe(200);
  });

  it('an async job on a clock frozen in 2031 is held, progresses, completes and expires on that clock; the global time never appears', async () => {
    await open();
    const at = Date.parse('2031-01-01T00:00:00Z');
    const a = await newClock({ set: new Date(at).toISOString(), freeze: true });
    const res = await post(a.keys.active_pro, { text: 'Hello there. sandbox:async=4' });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as Json;
    // The global clock moving (and its retention sweep) neither completes nor touches it.
    await moveGlobal({ advance_seconds: 10 });
    expect((await json(get(a.keys.active_pro, accepted.job_id))).status).toBe('processing');

    await move(a.id, { advance_seconds: 2 });
    const half = await json(get(a.keys.active_pro, accepted.job_id));
    expect(half.progress_percent).toBe(50);
    await move(a.id, { advance_seconds: 2 });
    const done = await json(get(a.keys.active_pro, accepted.job_id));
    expect(done.status).toBe('completed');

    const job = (await sb.services.store.getJob(accepted.job_id))!;
    expect(new Date(job.createdAt).toISOString()).toBe('2031-01-01T00:00:00.000Z');
    expect(new Date(job.completedAt!).toISOString()).toBe('2031-01-01T00:00:04.000Z');
    expect(new Date(job.deleteAfter).toISOString()).toBe('2031-01-08T00:00:00.000Z');
    expect(job.usageMonth).toBe('2031-01');
    // The audio URL is signed on the clock: it expires an hour after 2031-01-01T00:00:04Z.
    expect(Number(new URL(done.audio_url).searchParams.get('expires')) * 1000).toBe(at + 4_000 + 3_600_000);
    expect((await sb.app.request(audioPath(done.audio_url))).status).toBe(200);

    // The journal stamps the clock's requests with its time and its id (the audio URL's too: its job's clock).
    const entries = sb.journal.list({ clock: a.id });
    expect(entries.map((e) => `${e.method} ${e.path}`)).toEqual([
      'POST /v1/agent-tts',
      ...Array<string>(3).fill('GET /v1/agent-tts'),
      `GET /v1/audio/${accepted.job_id}.mp3`,
    ]);
    expect(entries.every((e) => e.clock === a.id && e.at.startsWith('2031-01-01T00:00:0'))).toBe(true);
    expect(sb.journal.list({ clock: GLOBAL_CLOCK_ID })).toEqual([]);
    expect((await json(send(`/sandbox/requests?clock=${a.id}`, 'GET'))).count).toBe(5);
    expect((await send('/sandbox/requests?clock=nope', 'GET')).status).toBe(400);
  });
});

describe('test clocks in process: RunningSandbox.createClock', () => {
  let running: RunningSandbox | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('gives a clock with keys that moves like sandbox.clock, a client clock whose waits advance it, and delete()', async () => {
    running = await startSandbox({ env: { LOG_LEVEL: 'silent' } });
    const clock = await running.createClock({ set: '2032-06-30T23:59:58Z', freeze: true });
    expect(clock.id).toMatch(/^clk_[0-9a-f]{24}$/);
    expect(clock.now().toISOString()).toBe('2032-06-30T23:59:58.000Z');
    expect((await clock.advance(1)).now).toBe('2032-06-30T23:59:59.000Z');
    await expect(clock.set('2030-01-01T00:00:00Z')).rejects.toThrow(/only moves forward/);

    // A client on this clock: the wait for an async job advances this clock, not the global one.
    const globalBefore = running.clock.now().getTime();
    const client = new AgentTtsClient({ baseUrl: running.baseUrl, apiKey: clock.keys.active_pro, clock: clock.client });
    const result = await client.speak({ text: 'Hello from the future. sandbox:async=6' });
    expect(result.status).toBe('completed');
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(Date.parse('2032-07-01T00:00:05Z'));
    expect(running.clock.now().getTime() - globalBefore).toBeLessThan(5_000);

    // From another process: remoteClientClock on the clock's URL advances this clock.
    const remote = await remoteClientClock(running.baseUrl, `${running.baseUrl}/sandbox/clocks/${clock.id}`);
    const before = clock.now().getTime();
    await remote.sleep(30_000);
    expect(clock.now().getTime() - before).toBe(30_000);

    await expect(running.createClock({ set: '2001-01-01T00:00:00Z' })).rejects.toBeInstanceOf(ClockError);
    await clock.delete();
    await expect(clock.advance(1)).rejects.toThrow(/was deleted/);
    const after = await fetch(`${running.baseUrl}/v1/agent-tts?id=${result.job_id}`, { headers: { Authorization: `Bearer ${clock.keys.active_pro}` } });
    expect(after.status).toBe(401);
  });
});

describe('SandboxClocks: the clock of the work at hand', () => {
  it('reads the clock run on, the global one outside; scheduled work runs inside its clock; background timers read the earliest clock', async () => {
    const clocks = new SandboxClocks();
    try {
      const made = await clocks.create(async () => ({ accountIds: ['acc'], keyIds: ['0123abcd'] }));
      const a = made!.clock;
      await a.freeze();
      await clocks.global.freeze();
      await clocks.global.advance(7200);
      expect(clocks.ofKey('0123abcd')).toBe(a);
      expect(clocks.ofAccount('acc')).toBe(a);
      expect(clocks.ofKey('ffffffff')).toBe(clocks.global);
      expect(clocks.now()).toBe(clocks.global.now());
      expect(clocks.runOn(a, () => clocks.now())).toBe(a.now());

      // Scheduled while on A, fired by a move made outside any clock's work: it still runs on A.
      let firedOn: string | undefined;
      clocks.runOn(a, () =>
        clocks.schedule(a.now() + 1000, async () => {
          firedOn = clocks.clock().id;
        }),
      );
      await a.advance(1);
      expect(firedOn).toBe(a.id);

      // A timer started in the background (the rate limiter's sweep) reads the earliest clock.
      const read = await clocks.background(() => new Promise<number>((resolve) => setTimeout(() => resolve(clocks.now()), 1)));
      expect(read).toBe(a.now());
      expect(read).toBeLessThan(clocks.global.now());
    } finally {
      clocks.close();
    }
  });
});
