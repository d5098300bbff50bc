import { describe, expect, it } from 'vitest';
import { MAX_AHEAD_SECONDS, MAX_MOVE_SECONDS, SandboxClock } from './clock.js';
import { ClockError } from './public.js';
import { JOURNAL_SIZE, Journal } from './journal.js';
import { outcomeOf } from './outcomes.js';

describe('SandboxClock', () => {
  it('runs work scheduled on it when a move reaches it, and awaits it before the move returns', async () => {
    const clock = new SandboxClock();
    await clock.freeze();
    const start = clock.now();
    const ran: number[] = [];
    clock.schedule(start + 3_000, async () => {
      await new Promise((r) => setTimeout(r, 20));
      ran.push(3);
    });
    clock.schedule(start + 1_000, async () => void ran.push(1));
    await clock.advance(0.5);
    expect(ran).toEqual([]);
    await clock.advance(0.5);
    expect(ran).toEqual([1]);
    await clock.advance(2);
    expect(ran).toEqual([1, 3]);
    expect(clock.now() - start).toBe(3_000);
    clock.close();
  });

  it('stands still while frozen, keeps its offset when unfrozen, returns to real time on reset', async () => {
    const clock = new SandboxClock();
    await clock.freeze();
    const frozen = clock.now();
    await new Promise((r) => setTimeout(r, 30));
    expect(clock.now()).toBe(frozen);
    await clock.advance(3_600);
    await clock.unfreeze();
    expect(clock.state()).toMatchObject({ frozen: false, offset_seconds: 3_600 });
    await clock.reset();
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(1_000);
    clock.close();
  });

  it('only moves forward', async () => {
    const clock = new SandboxClock();
    await expect(clock.set(clock.now() - 60_000)).rejects.toThrow(ClockError);
    await expect(clock.advance(-1)).rejects.toThrow(ClockError);
    const nextYear = new Date(clock.now()).getUTCFullYear() + 1;
    await clock.set(Date.UTC(nextYear, 0, 1));
    expect(clock.state().now.slice(0, 10)).toBe(`${nextYear}-01-01`);
    clock.close();
  });

  it('refuses moves it cannot keep: more than 10 years at once, more than 100 years ahead of real time, not a time', async () => {
    const clock = new SandboxClock();
    await clock.freeze();
    const start = clock.now();
    const refused = async (move: Promise<void>, message: RegExp) => {
      await expect(move).rejects.toThrow(ClockError);
      await expect(move).rejects.toThrow(message);
      expect(clock.now()).toBe(start);
    };
    await refused(clock.advance(MAX_MOVE_SECONDS + 1), /at most 315360000 \(10 years\) in one move/);
    await refused(clock.advance(Number.MAX_VALUE), /at most 315360000/);
    await refused(clock.advance(Infinity), /a number from 0 to 315360000/);
    await refused(clock.advance(NaN), /a number from 0 to 315360000/);
    await refused(clock.advance('60' as unknown as number), /a number from 0 to 315360000/);
    await refused(clock.set(start + MAX_MOVE_SECONDS * 1000 + 1), /at most 10 years .* in one move/);
    await refused(clock.set(8.64e15), /at most 10 years/);
    await refused(clock.set(8.64e15 + 1), /ISO 8601/);
    await refused(clock.set(NaN), /ISO 8601/);
    await refused(clock.set(-Infinity), /ISO 8601/);

    // Ten moves of ten years reach the limit of 100 years ahead of real time; the next is refused.
    for (let i = 0; i < 10; i++) await clock.advance(MAX_MOVE_SECONDS);
    const far = clock.now();
    expect(far - Date.now()).toBeGreaterThan((MAX_AHEAD_SECONDS - 60) * 1000);
    await expect(clock.advance(60)).rejects.toThrow(/at most 100 years .* ahead of real time/);
    await expect(clock.set(far + 60_000)).rejects.toThrow(/at most 100 years/);
    expect(clock.now()).toBe(far);
    expect(() => clock.state()).not.toThrow();
    await clock.reset();
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(1_000);
    clock.close();
  });
});

describe('magic inputs', () => {
  it('read markers anywhere in the text; the estimate decides without one', () => {
    expect(outcomeOf('Hi sandbox:async=3.', 1, 10)).toEqual({ seconds: 3 });
    expect(outcomeOf('sandbox:async', 1, 10)).toEqual({ seconds: 5 });
    expect(outcomeOf('long text sandbox:inline', 60, 10)).toEqual({ seconds: 0 });
    expect(outcomeOf('long text sandbox:inline=2.5', 60, 10)).toEqual({ seconds: 0, realSeconds: 2.5 });
    // Real time only for a job that runs at once; out of range, ignored.
    expect(outcomeOf('sandbox:inline=2 sandbox:async=5', 1, 10)).toEqual({ seconds: 5 });
    expect(outcomeOf('sandbox:inline=0 sandbox:inline=61', 1, 10)).toEqual({ seconds: 0 });
    expect(outcomeOf('sandbox:inline=2 sandbox:inline', 1, 10)).toEqual({ seconds: 0 });
    expect(outcomeOf('sandbox:inline sandbox:inline=2', 1, 10)).toEqual({ seconds: 0, realSeconds: 2 });
    expect(outcomeOf('sandbox:inline=0 sandbox:inline=61', 60, 10)).toEqual({ seconds: 60 });
    expect(outcomeOf('x sandbox:provider_error=40 sandbox:async=5', 1, 10)).toEqual({ seconds: 5, failure: { code: 'TTS_PROVIDER_ERROR', atFraction: 0.4 } });
    expect(outcomeOf('x SANDBOX:INTERNAL_ERROR', 1, 10)).toEqual({ seconds: 0, failure: { code: 'INTERNAL_ERROR', atFraction: 0.5 } });
    expect(outcomeOf('plain', 4, 10)).toEqual({ seconds: 0 });
    expect(outcomeOf('plain', 25, 10)).toEqual({ seconds: 25 });
    // Out of range or unknown: ignored.
    expect(outcomeOf('sandbox:async=0 sandbox:async=999999 sandbox:provider_error=100 sandbox:other', 1, 10)).toEqual({ seconds: 0 });
    expect(outcomeOf('mysandbox:async=3x', 1, 10)).toEqual({ seconds: 0 });
  });
});

describe('Journal', () => {
  it('keeps the newest JOURNAL_SIZE entries', () => {
    const journal = new Journal({ now: () => Date.now() });
    for (let i = 0; i < JOURNAL_SIZE + 5; i++) journal.record({ method: 'GET', path: `/p${i}`, query: {}, headers: {} }, { status: 404 });
    const entries = journal.list();
    expect(entries).toHaveLength(JOURNAL_SIZE);
    expect(entries[0]!.path).toBe('/p5');
    expect(entries.at(-1)!.path).toBe(`/p${JOURNAL_SIZE + 4}`);
  });
});
