import { describe, expect, it } from 'vitest';
import { progressLine } from './progress.js';
import { Recorder } from './recorder.js';
import { Schedule } from './schedule.js';

describe('the progress line', () => {
  const r = new Recorder(1000, ['tts_0123abcd']);
  const schedule = new Schedule([{ durationMs: 20_000, target: 2 }], 2);
  for (let i = 0; i < 6; i++) {
    r.onDue(i * 500);
    r.onSent(i * 500, 3, 0, true);
  }
  r.onPath('inline');
  r.onCompleted(800, 'inline', 120, 4);

  it('says what has happened so far', () => {
    const line = progressLine(r, schedule, 3000);
    expect(line).toBe('3s/20s  sent 6 at 2.00/s (due 2.00/s)  inline 1  job 0 (polling 0)  audio 1  429 0  errors 0  tta p95 120ms  lag p99 3ms');
    expect(progressLine(r, schedule, 25_000)).toMatch(/^25s \(sending done\)/);
  });

  it('keeps whole fields within the width of the terminal', () => {
    const line = progressLine(r, schedule, 3000, 80);
    expect(line.length).toBeLessThanOrEqual(80);
    expect(line).toBe('3s/20s  sent 6 at 2.00/s (due 2.00/s)  inline 1  job 0 (polling 0)  audio 1  429 0'.slice(0, line.length));
    expect(line).toMatch(/(audio 1|429 0|errors 0)$/);
  });
});
