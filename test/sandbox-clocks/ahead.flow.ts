import { expect, it } from 'vitest';
import { call, journalCount, otherClock, speak, until } from './shared.js';

// Runs beside steady.flow.ts on the same sandbox: it moves its own clock into next month while the
// other file's clock, rate-limit window and usage stay where they were.
it('moves its own clock a month ahead: its used-up minutes reset, its rate-limit window passes', async () => {
  // Frozen 30 s before the end of a month (next month's, so not before real time): the move below must
  // pass the rate-limit window as well as the month's end, whatever today's date.
  const today = new Date();
  const lastSeconds = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 2, 0, 23, 59, 30)).toISOString();
  const made = await call('/sandbox/clocks', { method: 'POST', body: { set: lastSeconds, freeze: true } });
  expect(made.status).toBe(201);
  const { id, keys } = made.body;

  // Wait for the other file's first steps (a 200 and a 429 on its frozen clock) before moving.
  const steady = await otherClock(id, true);
  await until('the other file to use up its POST window', async () => ((await journalCount({ clock: steady.id, status: '429' })) >= 1 ? true : undefined));

  expect((await speak(keys.minutes_used_up, 'Anything.')).body.error.code).toBe('USAGE_LIMIT_EXCEEDED');
  expect((await speak(keys.active_free, 'One.')).status).toBe(200);
  expect((await speak(keys.active_free, 'Two.')).status).toBe(429);

  // Two minutes into next month: past the 60 s window of 'One.', made in the month's last minute.
  const current = new Date((await call(`/sandbox/clocks/${id}`)).body.now);
  const nextMonth = new Date(Date.UTC(current.getUTCFullYear(), current.getUTCMonth() + 1, 1, 0, 2)).toISOString();
  const moved = await call(`/sandbox/clocks/${id}`, { method: 'POST', body: { set: nextMonth } });
  expect(moved.status).toBe(200);
  // Running again: the other file knows this clock as the one that runs.
  expect((await call(`/sandbox/clocks/${id}`, { method: 'POST', body: { freeze: false } })).status).toBe(200);

  expect((await speak(keys.active_free, 'Two.')).status).toBe(200);
  const reset = await speak(keys.minutes_used_up, 'Anything.');
  expect(reset.body.status).toBe('completed');
  expect(reset.body.billing.monthly_minutes_used).toBeLessThan(1);
});
