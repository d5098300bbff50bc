import { describe, expect, it } from 'vitest';
import { Estimator, baseAudioSeconds, speechShares } from './estimate.js';

const prose = 'It was a bright cold day in April, and the clocks were striking thirteen. '.repeat(20);

describe('baseAudioSeconds', () => {
  it('scales with 1/speed and with the length of the text', () => {
    const normal = baseAudioSeconds(prose, 1, 'en');
    expect(baseAudioSeconds(prose, 0.5, 'en') / normal).toBeCloseTo(2, 5);
    expect(baseAudioSeconds(prose + prose, 1, 'en') / normal).toBeCloseTo(2, 1);
  });

  it('knows that Chinese characters each take longer than Latin letters', () => {
    expect(baseAudioSeconds('今天天气很好。', 1, 'zh')).toBeGreaterThan(baseAudioSeconds('Weather.', 1, 'en'));
  });

  it('does not count runs of whitespace as speech', () => {
    expect(baseAudioSeconds(`Hello there.${' '.repeat(5000)}`, 1, 'en')).toBeCloseTo(baseAudioSeconds('Hello there. ', 1, 'en'), 1);
  });
});

describe('speechShares', () => {
  it('places an offset where the estimate of the text before it ends: characters and sentence pauses counted alike', () => {
    const text = 'It was cold.  The clocks struck thirteen! Winston 🙂 slipped in…\nQuickly.';
    const ends = [...text.matchAll(/[.!…]/gu)].map((m) => m.index + m[0].length);
    const shares = speechShares(text, ends, 'en');
    const whole = baseAudioSeconds(text, 1, 'en');
    for (const [i, end] of ends.entries()) expect(shares[i]! * whole).toBeCloseTo(baseAudioSeconds(text.slice(0, end), 1, 'en'), 9);
    expect(shares.at(-1)).toBe(1);
  });

  it('counts a run of whitespace once and an emoji as one character, whatever the language', () => {
    const text = 'one      two 🙂x';
    const [a, b] = speechShares(text, [3, text.length], 'fr');
    const perChar = (a as number) / 3;
    expect(b).toBeCloseTo(perChar * 10, 9);
  });
});

describe('Estimator', () => {
  it('corrects its audio estimate towards the durations jobs turn out to have', () => {
    const estimator = new Estimator('espeak', 2);
    const before = estimator.audioSeconds(prose, 1, 'en');
    for (let i = 0; i < 20; i++) {
      estimator.record({ text: prose, speed: 1, language: 'en', audioSeconds: before * 1.5, elapsedMs: 1000, concurrentJobs: 1 });
    }
    expect(estimator.audioSeconds(prose, 1, 'en') / before).toBeCloseTo(1.5, 1);
  });

  it('learns the pool throughput and shares it among running jobs', () => {
    const estimator = new Estimator('espeak', 2);
    for (let i = 0; i < 30; i++) {
      estimator.record({ text: prose, speed: 1, language: 'en', audioSeconds: 600, elapsedMs: 2000, concurrentJobs: 1 });
    }
    expect(estimator.poolThroughput).toBeCloseTo(300, 0);
    const alone = estimator.wallSeconds(prose, 1, 'en');
    estimator.jobStarted();
    const shared = estimator.wallSeconds(prose, 1, 'en');
    expect(shared).toBeGreaterThan(alone * 1.5);
    estimator.jobEnded();
    expect(estimator.wallSeconds(prose, 1, 'en')).toBeCloseTo(alone, 5);
  });

  it('ignores short jobs when measuring throughput', () => {
    const estimator = new Estimator('espeak', 2);
    const initial = estimator.poolThroughput;
    estimator.record({ text: 'Hi.', speed: 1, audioSeconds: 1, elapsedMs: 500, concurrentJobs: 1 });
    expect(estimator.poolThroughput).toBe(initial);
  });
});
