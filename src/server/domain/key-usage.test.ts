import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InProcessServer } from '../../../test/helpers/in-process.js';
import { createTestServices } from '../../../test/helpers/test-services.js';
import { KeyUsageRecorder } from './key-usage.js';

/** KeyUsageRecorder over the real SQLite store: counts kept in memory, written in one batch per key. */
describe('KeyUsageRecorder', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await createTestServices();
  });
  afterAll(async () => {
    await server?.close();
  });
  const store = () => server.services.store;
  const newPublicId = async () => (await server.newKey()).key.slice(4, 12);

  it('writes nothing until flushed, then the calls and the latest use of each key', async () => {
    const recorder = new KeyUsageRecorder(store(), 3_600_000);
    const [a, b] = [await newPublicId(), await newPublicId()];
    recorder.record(a, 2_000);
    recorder.record(a, 5_000);
    recorder.record(a, 3_000);
    recorder.record(b, 4_000);
    expect((await store().getKey(a))?.callCount).toBe(0);
    await recorder.flush();
    expect(await store().getKey(a)).toMatchObject({ callCount: 3, lastUsedAt: 5_000 });
    expect(await store().getKey(b)).toMatchObject({ callCount: 1, lastUsedAt: 4_000 });
    // A second flush adds only what was recorded since.
    recorder.record(a, 6_000);
    await recorder.flush();
    await recorder.flush();
    expect(await store().getKey(a)).toMatchObject({ callCount: 4, lastUsedAt: 6_000 });
    await recorder.close();
  });

  it('keeps a batch the store refused, for the next flush', async () => {
    const publicId = await newPublicId();
    let refuse = true;
    const flaky = Object.create(store()) as ReturnType<typeof store>;
    flaky.recordKeyUse = (id, calls, at) => (refuse ? Promise.reject(new Error('busy')) : store().recordKeyUse(id, calls, at));
    const recorder = new KeyUsageRecorder(flaky, 3_600_000);
    recorder.record(publicId, 7_000);
    recorder.record(publicId, 8_000);
    await recorder.flush();
    expect((await store().getKey(publicId))?.callCount).toBe(0);
    refuse = false;
    await recorder.flush();
    expect(await store().getKey(publicId)).toMatchObject({ callCount: 2, lastUsedAt: 8_000 });
    await recorder.close();
  });

  it('flushes on close, and on its own timer', async () => {
    const [closed, timed] = [await newPublicId(), await newPublicId()];
    const onClose = new KeyUsageRecorder(store(), 3_600_000);
    onClose.record(closed, 9_000);
    await onClose.close();
    expect(await store().getKey(closed)).toMatchObject({ callCount: 1, lastUsedAt: 9_000 });

    const onTimer = new KeyUsageRecorder(store(), 20);
    onTimer.record(timed, 10_000);
    await expect.poll(async () => (await store().getKey(timed))?.callCount, { timeout: 2_000, interval: 10 }).toBe(1);
    await onTimer.close();
  });
});
