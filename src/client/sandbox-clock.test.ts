import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientClockFor, remoteClientClock } from './sandbox-clock.js';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
  await sandbox.clock.freeze();
});
afterAll(() => sandbox?.stop());

describe('sandbox.clock.client', () => {
  it('tells the sandbox clock’s time, and a sleep advances the sandbox clock instead of waiting', async () => {
    const clock = sandbox.clock.client;
    const before = sandbox.clock.now().getTime();
    expect(clock.now()).toBe(before);
    const started = performance.now();
    await clock.sleep(90_000);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(sandbox.clock.now().getTime() - before).toBe(90_000);
    expect(clock.now()).toBe(before + 90_000);
  });

  it('rejects with the reason of an aborted signal, and does not move the clock', async () => {
    const before = sandbox.clock.now().getTime();
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(sandbox.clock.client.sleep(5_000, controller.signal)).rejects.toThrow('stop');
    expect(sandbox.clock.now().getTime()).toBe(before);
  });
});

describe('clientClockFor', () => {
  it('works on any clock with now() and advance(seconds), in milliseconds or a Date', async () => {
    let at = 1_000_000;
    const moves: number[] = [];
    const clock = clientClockFor({
      now: () => at,
      advance: async (s) => {
        moves.push(s);
        at += s * 1000;
      },
    });
    await clock.sleep(2_500);
    expect(moves).toEqual([2.5]);
    expect(clock.now()).toBe(1_002_500);
    expect(clientClockFor({ now: () => new Date(42), advance: async () => undefined }).now()).toBe(42);
  });

  it('ends a sleep as soon as its signal aborts, even while the move is still running', async () => {
    const clock = clientClockFor({ now: () => 0, advance: () => new Promise(() => undefined) });
    const controller = new AbortController();
    const pending = clock.sleep(1_000, controller.signal);
    setTimeout(() => controller.abort(new Error('stop')), 10);
    await expect(pending).rejects.toThrow('stop');
  });
});

describe('remoteClientClock: a sandbox in another process, over HTTP', () => {
  it('tells the sandbox clock’s time and advances it with POST /sandbox/clock', async () => {
    const clock = await remoteClientClock(sandbox.baseUrl);
    const before = sandbox.clock.now().getTime();
    expect(clock.now()).toBe(before); // frozen: exactly its time
    const started = performance.now();
    await clock.sleep(30_000);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(sandbox.clock.now().getTime() - before).toBe(30_000);
    expect(clock.now()).toBe(before + 30_000);
    // A sleep of nothing sends nothing and moves nothing.
    await clock.sleep(0);
    expect(sandbox.clock.now().getTime() - before).toBe(30_000);
    // A move the sandbox refuses rejects with its reason.
    await expect(clock.sleep(11 * 365 * 86_400_000)).rejects.toThrow(
      / refused to advance 346896000 s: HTTP 400: advance_seconds must be a number from 0 to 315360000/,
    );
  });

  it('takes the clock’s URL, and refuses a URL that is not a sandbox’s clock, saying why', async () => {
    const clock = await remoteClientClock('http://unused.invalid', `${sandbox.baseUrl}/sandbox/clock`);
    expect(clock.now()).toBe(sandbox.clock.now().getTime());
    const server: Server = createServer((_req, res) => res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"success":false}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      await expect(remoteClientClock(url)).rejects.toThrow(
        `${url}/sandbox/clock is not a sandbox's test clock (HTTP 404, no agent-tts-sandbox header): only agent-tts-sandbox has a clock to advance`,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    await expect(remoteClientClock('http://127.0.0.1:9')).rejects.toThrow(
      /^Could not reach the sandbox clock at http:\/\/127\.0\.0\.1:9\/sandbox\/clock to tell its time: /,
    );
  });
});
