import { describe, expect, it } from 'vitest';
import { resampleLinear, speechRange, trimSilence } from './pcm.js';

describe('pcm', () => {
  it('resamples to the proportional length and keeps a tone at its frequency', () => {
    const from = 24000;
    const to = 22050;
    const tone = Float32Array.from({ length: from }, (_, i) => Math.sin((2 * Math.PI * 440 * i) / from));
    const out = resampleLinear(tone, from, to);
    expect(out.length).toBe(to);
    let crossings = 0;
    for (let i = 1; i < out.length; i++) if (out[i - 1]! < 0 && out[i]! >= 0) crossings++;
    expect(crossings).toBeGreaterThanOrEqual(439);
    expect(crossings).toBeLessThanOrEqual(441);
    expect(resampleLinear(tone, from, from)).toBe(tone);
  });

  it('trims silence at both ends, keeping a margin around the sound', () => {
    const rate = 1000;
    const x = new Float32Array(1000);
    x.fill(0.5, 300, 600);
    const trimmed = trimSilence(x, rate);
    expect(trimmed.length).toBe(300 + 2 * 20);
    expect(trimSilence(new Float32Array(100), rate).length).toBe(0);
    expect(speechRange(x, rate)).toEqual({ start: 280, end: 620, loudStart: 300, loudEnd: 600 });
    x.fill(0.5, 0, 10);
    expect(speechRange(x, rate)).toMatchObject({ start: 0, loudStart: 0 });
  });
});
