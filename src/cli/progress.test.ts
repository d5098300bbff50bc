import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AgentTtsError } from '../client/errors.js';
import { Output } from './output.js';
import { ProgressDisplay, formatSeconds } from './progress.js';

function display(tty: boolean) {
  const stderr = Object.assign(new PassThrough(), { isTTY: tty });
  let err = '';
  stderr.on('data', (d) => (err += d));
  const progress = new ProgressDisplay(new Output({ stdout: new PassThrough(), stderr }), true);
  return { progress, err: () => err };
}

const JOB = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

describe('ProgressDisplay', () => {
  it('writes plain lines (no control codes) when stderr is not a terminal', () => {
    const d = display(false);
    d.progress.update({ jobId: JOB, status: 'processing', percent: 42.4, elapsedMs: 3200, nextPollMs: 2000, polls: 1 });
    d.progress.update({ jobId: JOB, status: 'completed', percent: 100, elapsedMs: 5300, polls: 2 });
    d.progress.stop();
    expect(d.err()).toBe(
      `job ${JOB}: processing 42%, 3.2s elapsed, next check in 2.0s\njob ${JOB}: completed 100%, 5.3s elapsed\n`,
    );
  });

  it('redraws one line on a terminal and leaves a final line when done', () => {
    const d = display(true);
    d.progress.update({ jobId: JOB, status: 'processing', elapsedMs: 1000, nextPollMs: 1000, polls: 1 });
    d.progress.update({ jobId: JOB, status: 'completed', percent: 100, elapsedMs: 2500, polls: 2 });
    expect(d.err()).toContain(`\r\x1b[2Kjob ${JOB}: processing, 1.0s elapsed`);
    expect(d.err().endsWith(`\r\x1b[2Kjob ${JOB}: completed 100%, 2.5s elapsed\n`)).toBe(true);
  });

  it('says nothing for a job that completed inside the request', () => {
    const d = display(false);
    d.progress.update({ jobId: JOB, status: 'completed', percent: 100, elapsedMs: 800, polls: 0 });
    expect(d.err()).toBe('');
  });

  it('explains a retry and whether the key changes', () => {
    const d = display(false);
    const error = new AgentTtsError({ code: 'TTS_PROVIDER_ERROR', message: 'Failed; retry using a new Idempotency-Key.', status: 502 });
    d.progress.retry({ attempt: 1, delayMs: 1500, error, idempotencyKey: 'k2', method: 'POST' });
    expect(d.err()).toBe('TTS_PROVIDER_ERROR: Failed; retry using a new Idempotency-Key. — retrying with a new Idempotency-Key in 1.5s (attempt 2)\n');
  });

  it('formats durations', () => {
    expect(formatSeconds(250)).toBe('0.3s');
    expect(formatSeconds(42_000)).toBe('42s');
    expect(formatSeconds(125_000)).toBe('2m05s');
  });
});
