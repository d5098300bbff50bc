import { expect, it } from 'vitest';
import { call, journalCount, otherClock, publicPart, speak, until } from './shared.js';

// Runs beside ahead.flow.ts on the same sandbox: while that file moves its clock a month ahead, this
// file's time, rate-limit window and usage do not move.
it('keeps its time, its rate-limit window and its used-up minutes while the other file moves its clock a month ahead', async () => {
  const made = await call('/sandbox/clocks', { method: 'POST', body: { freeze: true } });
  expect(made.status).toBe(201);
  const { id, keys, now } = made.body;

  expect((await speak(keys.active_free, 'One.')).status).toBe(200);
  const limited = await speak(keys.active_free, 'Two.');
  expect(limited.status).toBe(429);
  expect(limited.headers.get('retry-after')).toBe('60');
  expect((await speak(keys.minutes_used_up, 'Anything.')).body.error.code).toBe('USAGE_LIMIT_EXCEEDED');

  // Wait until the other file has moved its clock into next month and its used-up minutes were accepted.
  const ahead = await otherClock(id, false);
  const aheadKeys = (await call(ahead.url)).body.keys;
  await until("the other file's month to turn", async () =>
    (await journalCount({ key: publicPart(aheadKeys.minutes_used_up), status: '200' })) >= 1 ? true : undefined,
  );
  expect(new Date((await call(ahead.url)).body.now).getUTCMonth()).not.toBe(new Date(now).getUTCMonth());

  const mine = (await call(`/sandbox/clocks/${id}`)).body;
  expect(mine.now).toBe(now);
  expect(mine.frozen).toBe(true);
  const still = await speak(keys.active_free, 'Two.');
  expect(still.status).toBe(429);
  expect(still.headers.get('retry-after')).toBe('60');
  expect((await speak(keys.minutes_used_up, 'Anything.')).body.error.code).toBe('USAGE_LIMIT_EXCEEDED');
  // Nor did the global clock move.
  expect(Math.abs((await call('/sandbox/clock')).body.offset_seconds)).toBeLessThanOrEqual(2);
});
