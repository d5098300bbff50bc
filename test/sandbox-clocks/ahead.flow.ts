import { expect, it } from 'vitest';
import { call, journalCount, otherClock, speak, until } from './shared.js';

// Runs beside steady.flow.ts on the same sandbox: it moves its own clock into next month while the
// other file's clock, rate-limit window and usage stay where they were.
it('moves its own clock a month ahead: its used-up minutes reset, its rate-limit window passes', async () => {
  const made = await call('/sandbox/clocks', { method: 'POST' });
  expect(made.status).toBe(201);
  const { id, keys, now } = made.body;

  // Wait for the other file's first steps (a 200 and a 429 on its frozen clock) before moving.
  const steady = await otherClock(id, true);
  await until('the other file to use up its POST window', async () => ((await journalCount({ clock: steady.id, status: '429' })) >= 1 ? true : undefined));

  expect((await speak(keys.minutes_used_up, 'Anything.')).body.error.code).toBe('USAGE_LIMIT_EXCEEDED');
  expect((await speak(keys.active_free, 'One.')).status).toBe(200);
  expect((await speak(keys.active_free, 'Two.')).status).toBe(429);

  const start = new Date(now);
  const nextMonth = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1)).toISOString();
  const moved = await call(`/sandbox/clocks/${id}`, { method: 'POST', body: { set: nextMonth } });
  expect(moved.status).toBe(200);

  expect((await speak(keys.active_free, 'Two.')).status).toBe(200);
  const reset = await speak(keys.minutes_used_up, 'Anything.');
  expect(reset.body.status).toBe('completed');
  expect(reset.body.billing.monthly_minutes_used).toBeLessThan(1);
});
