import { describe, expect, it } from 'vitest';
import { MAGIC_INPUTS, endSeconds, outcomeOf } from './outcomes.js';

/**
 * Several magic inputs in one text: one timing and at most one failure. sandbox:async wins over
 * sandbox:inline in any order, the last valid marker of a kind counts, the last valid failure marker
 * counts and applies to the timing, and a value out of range is ignored. GET /sandbox serves the
 * same rule (MAGIC_INPUTS) as the README's table.
 */
const INLINE_WAIT = 10;
const of = (text: string, estimate = 1) => outcomeOf(text, estimate, INLINE_WAIT);

describe('magic inputs combined', () => {
  it('fails an async job at the failure’s share of its time: sandbox:async=5 sandbox:provider_error fails 2.5 s in', () => {
    for (const text of ['Hi sandbox:async=5 sandbox:provider_error', 'Hi sandbox:provider_error sandbox:async=5']) {
      const outcome = of(text);
      expect(outcome, text).toEqual({ seconds: 5, failure: { code: 'TTS_PROVIDER_ERROR', atFraction: 0.5 } });
      expect(endSeconds(outcome), text).toBe(2.5);
    }
    expect(endSeconds(of('Hi sandbox:provider_error=40 sandbox:async=5'))).toBe(2);
  });

  it('lets sandbox:async win over sandbox:inline, in either order', () => {
    expect(of('sandbox:inline sandbox:async=7').seconds).toBe(7);
    expect(of('sandbox:async=7 sandbox:inline').seconds).toBe(7);
    expect(of('sandbox:async sandbox:inline').seconds).toBe(5);
  });

  it('counts the last valid marker of a kind, and ignores one out of range', () => {
    expect(of('sandbox:async=3 sandbox:async=9').seconds).toBe(9);
    expect(of('sandbox:async=3 sandbox:async=999999').seconds).toBe(3);
    expect(of('sandbox:provider_error sandbox:internal_error').failure?.code).toBe('INTERNAL_ERROR');
    expect(of('sandbox:internal_error sandbox:provider_error').failure?.code).toBe('TTS_PROVIDER_ERROR');
    expect(of('sandbox:internal_error=20 sandbox:provider_error=100').failure).toEqual({ code: 'INTERNAL_ERROR', atFraction: 0.2 });
  });

  it('fails inline with sandbox:inline, and without a timing marker as the estimate says', () => {
    expect(of('sandbox:inline sandbox:internal_error', 600)).toEqual({ seconds: 0, failure: { code: 'INTERNAL_ERROR', atFraction: 0.5 } });
    expect(of('sandbox:provider_error', 1).seconds).toBe(0);
    expect(of('sandbox:provider_error', 40)).toEqual({ seconds: 40, failure: { code: 'TTS_PROVIDER_ERROR', atFraction: 0.5 } });
  });

  it('is described where GET /sandbox lists the magic inputs, with the example the code gives', () => {
    const several = MAGIC_INPUTS.find((m) => m.marker === '(several markers)');
    expect(several?.effect).toMatch(/sandbox:async=<seconds> wins over sandbox:inline, in any order/);
    expect(several?.effect).toMatch(/the last valid failure marker counts/);
    const example = /\((sandbox:async=5 sandbox:provider_error) fails ([\d.]+) sandbox seconds after submission\)/.exec(several?.effect ?? '');
    expect(example).not.toBeNull();
    expect(endSeconds(of(example![1]!))).toBe(Number(example![2]));
  });
});
