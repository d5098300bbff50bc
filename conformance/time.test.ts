import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../src/sandbox/index.js';
import { RateModel } from './rate-model.js';
import { ClockError, ClockTime, realTime, timeFor } from './time.js';

/** The suite's Time on the sandbox's real test clock (in this process): waits move the clock, never sleep. */
describe('conformance Time on a test clock', () => {
  let sandbox: RunningSandbox;
  let url: string;
  const clockNow = () => sandbox.clock.now().getTime();

  beforeAll(async () => {
    sandbox = await startSandbox();
    url = `${sandbox.baseUrl}/sandbox/clock`;
  });
  afterAll(() => sandbox?.stop());

  it('without a clock URL, time is real', async () => {
    expect(await timeFor(undefined, 1000)).toBe(realTime);
  });

  it('a wait of a minute moves the clock a minute, and the suite reckons the clock’s time', async () => {
    const time = await ClockTime.open(url, 5000);
    const before = clockNow();
    await time.sleep(60_000);
    const moved = clockNow() - before;
    expect(moved).toBeGreaterThanOrEqual(60_000);
    expect(moved).toBeLessThan(61_000 + 5000);
    expect(Math.abs(time.now() - clockNow())).toBeLessThan(1000);
    expect(time.clock.advancedSeconds).toBe(60);
  });

  it('concurrent waits share the moves: two waits of a minute and one of 5 s move the clock one minute in all', async () => {
    const time = await ClockTime.open(url, 5000);
    const before = clockNow();
    const woken: string[] = [];
    await Promise.all([
      time.sleep(60_000).then(() => woken.push('a')),
      time.sleep(5_000).then(() => woken.push('short')),
      time.sleep(60_000).then(() => woken.push('b')),
    ]);
    expect(woken[0]).toBe('short');
    expect(time.clock.advancedSeconds).toBe(60);
    expect(clockNow() - before).toBeLessThan(61_000 + 5000);
  });

  it('maps a moment of this machine to the clock’s time at that moment', async () => {
    const time = await ClockTime.open(url, 5000);
    const realBefore = Date.now();
    const clockBefore = time.now();
    await time.sleep(30_000);
    expect(Math.abs(time.at(realBefore) - clockBefore)).toBeLessThan(50);
    expect(time.at(Date.now()) - time.at(realBefore)).toBeGreaterThanOrEqual(30_000);
  });

  it('a rate model on the clock waits out a window by moving the clock', async () => {
    const time = await ClockTime.open(url, 5000);
    const model = new RateModel({ post: 1, get: 30, windowMs: 60_000 }, time);
    model.note('k', 'post', true);
    const before = clockNow();
    const slot = await model.acquire('k', 'post');
    slot.settle({ counted: true });
    expect(clockNow() - before).toBeGreaterThanOrEqual(60_000);
  });

  it('no move happens while a steady section runs, and a wait inside one is refused, not a hang', async () => {
    const time = await ClockTime.open(url, 5000);
    const events: string[] = [];
    let release!: () => void;
    const section = time.steady(async () => {
      events.push('steady start');
      await new Promise<void>((resolve) => (release = resolve));
      events.push('steady end');
    });
    const waited = time.sleep(10_000).then(() => events.push('woken'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events).toEqual(['steady start']);
    release();
    await Promise.all([section, waited]);
    expect(events).toEqual(['steady start', 'steady end', 'woken']);
    await expect(time.steady(() => time.sleep(1000))).rejects.toThrow(/inside a sequence that must not see time pass/);
  });

  it('a clock URL that answers other than 200 is an error naming the URL', async () => {
    const bad = `${sandbox.baseUrl}/sandbox/no-clock-here`;
    await expect(ClockTime.open(bad, 5000)).rejects.toThrow(`the test clock ${bad} (fixtures clock.url) answered HTTP 404 to {"advance_seconds": 0}, not 200`);
  });

  it('an unreachable clock is an error naming the URL, at open and for a wait after it went away', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const gone = `http://127.0.0.1:${port}/sandbox/clock`;
    await expect(ClockTime.open(gone, 5000)).rejects.toThrow(`cannot reach the test clock ${gone} (fixtures clock.url): ECONNREFUSED`);

    const other = await startSandbox();
    const time = await ClockTime.open(`${other.baseUrl}/sandbox/clock`, 5000);
    await other.stop();
    const error = await time.sleep(1000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClockError);
    expect((error as Error).message).toContain(`${other.baseUrl}/sandbox/clock`);
    // Once broken, later waits fail at once with the same error.
    await expect(time.sleep(1000)).rejects.toBe(error);
  });
});
