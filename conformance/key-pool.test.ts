import { describe, expect, it } from 'vitest';
import { KeyPool, NotEnoughKeys } from './key-pool.js';
import { RateModel } from './rate-model.js';

const model = () => new RateModel({ post: 1, get: 30, windowMs: 60_000 });

describe('key pool', () => {
  it('gives each key to one holder at a time', async () => {
    const pool = new KeyPool(['a', 'b'], model());
    const first = await pool.lease({ count: 2 });
    let granted = false;
    const next = pool.lease().then((l) => {
      granted = true;
      return l;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(granted).toBe(false);
    first.release();
    expect((await next).keys).toHaveLength(1);
  });

  it('hands a released key to the rule waiting for it by name before a rule waiting for any key', async () => {
    const pool = new KeyPool(['a', 'b'], model());
    const held = await pool.lease({ specific: 'a' });
    const other = await pool.lease({ specific: 'b' });
    const anyKey = pool.lease();
    const named = pool.lease({ specific: 'a' });
    held.release();
    expect((await named).keys).toEqual(['a']);
    other.release();
    expect((await anyKey).keys).toEqual(['b']);
  });

  it('prefers the key whose POST bucket is ready soonest', async () => {
    const m = model();
    const pool = new KeyPool(['used', 'fresh'], m);
    m.note('used', 'post', true);
    expect((await pool.lease({ fresh: 'post' })).keys).toEqual(['fresh']);
  });

  it('refuses more keys than it has', async () => {
    await expect(new KeyPool(['a'], model()).lease({ count: 2 })).rejects.toBeInstanceOf(NotEnoughKeys);
  });
});

describe('rate model', () => {
  it('admits one POST a window, counting only requests that may have made a job', async () => {
    const m = model();
    const slot = await m.acquire('k', 'post');
    slot.settle({ counted: false });
    expect(m.readyAt('k', 'post')).toBe(0);
    (await m.acquire('k', 'post')).settle({ counted: true });
    expect(m.readyAt('k', 'post')).toBeGreaterThan(Date.now() + 59_000);
    expect(m.readyAt('k', 'get')).toBe(0);
  });

  it('blocks a bucket for Retry-After', () => {
    const m = model();
    m.note('k', 'get', true, 5);
    expect(m.readyAt('k', 'get')).toBeGreaterThan(Date.now() + 4_000);
  });
});
