import { describe, expect, it } from 'vitest';
import { Limiter } from './limiter.js';

describe('Limiter', () => {
  it('grants at most `capacity` slots, then serves waiters in order', async () => {
    const limiter = new Limiter(2);
    const a = await limiter.acquire();
    const b = await limiter.acquire();
    const order: string[] = [];
    const c = limiter.acquire().then((release) => {
      order.push('c');
      return release;
    });
    const d = limiter.acquire().then((release) => {
      order.push('d');
      return release;
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(limiter.queued).toBe(2);
    a();
    a(); // releasing twice frees one slot only
    (await c)();
    b();
    (await d)();
    expect(order).toEqual(['c', 'd']);
    expect(limiter.queued).toBe(0);
    // All slots are free again.
    await Promise.all([limiter.acquire(), limiter.acquire()]);
  });

  it('drops a waiter whose signal aborts', async () => {
    const limiter = new Limiter(1);
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(limiter.queued).toBe(0);
    release();
    const again = await limiter.acquire();
    again();
  });
});
