import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentTtsError } from '../errors.js';
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
    expect(d.err()).toBe(`job ${JOB}: processing 42%, 3.2s elapsed, next check in 2.0s\njob ${JOB}: completed 100%, 5.3s elapsed\n`);
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

  describe('a rate-limited wait (429)', () => {
    const limited = () =>
      new AgentTtsError({
        code: 'RATE_LIMITED',
        message: 'Too many POST requests for this API key (1 per 60 s). Wait 57 seconds (Retry-After).',
        status: 429,
        retryAfterSeconds: 57,
        rateLimit: { policy: { name: 'post', quota: 1, windowSeconds: 60 }, state: { name: 'post', remaining: 0, resetSeconds: 57 } },
      });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('says on a log what it waits for, how long, and once how to avoid it', () => {
      const d = display(false);
      d.progress.retry({ attempt: 1, delayMs: 57_400, error: limited(), idempotencyKey: 'k', method: 'POST' });
      d.progress.retry({ attempt: 2, delayMs: 2_000, error: limited(), idempotencyKey: 'k', method: 'POST' });
      const lines = d.err().split('\n');
      expect(lines[0]).toBe('rate limited: 1 POST per minute for this key; retrying in 57 s (Retry-After)…');
      expect(lines[1]).toMatch(/^ {2}Limits are per key.*agent-tts-sandbox.*RATE_POST_LIMIT=100/);
      expect(lines[2]).toBe('rate limited: 1 POST per minute for this key; retrying in 2 s (Retry-After)…');
      expect(lines).toHaveLength(4); // the advice once, no countdown, no control codes
      expect(d.err()).not.toContain('\x1b[');
    });

    it('counts down on a terminal, then clears the countdown', () => {
      vi.useFakeTimers();
      const d = display(true);
      d.progress.retry({ attempt: 1, delayMs: 30_000, error: limited(), idempotencyKey: 'k', method: 'POST' });
      expect(d.err()).toContain('rate limited: 1 POST per minute for this key; retrying in 30 s (Retry-After)…\n');
      expect(d.err().endsWith('\r\x1b[2K  retrying in 30 s…')).toBe(true);
      vi.advanceTimersByTime(10_000);
      expect(d.err().endsWith('\r\x1b[2K  retrying in 20 s…')).toBe(true);
      vi.advanceTimersByTime(20_000);
      expect(d.err().endsWith('\r\x1b[2K')).toBe(true);
      const length = d.err().length;
      vi.advanceTimersByTime(5_000);
      expect(d.err()).toHaveLength(length); // nothing more once the retry went out
    });

    it('counts down on the command’s clock: a clock that jumps (a sandbox’s) shortens the countdown', () => {
      vi.useFakeTimers(); // paces the redraw; the times shown come from the clock
      let now = Date.UTC(2030, 0, 1);
      const clock = { now: () => now, sleep: async () => undefined };
      const stderr = Object.assign(new PassThrough(), { isTTY: true });
      let err = '';
      stderr.on('data', (d) => (err += d));
      const progress = new ProgressDisplay(new Output({ stdout: new PassThrough(), stderr }), true, clock);
      progress.retry({ attempt: 1, delayMs: 30_000, error: limited(), idempotencyKey: 'k', method: 'POST' });
      expect(err.endsWith('\r\x1b[2K  retrying in 30 s…')).toBe(true);
      now += 25_000;
      vi.advanceTimersByTime(1_000);
      expect(err.endsWith('\r\x1b[2K  retrying in 5 s…')).toBe(true);
      progress.update({ jobId: JOB, status: 'processing', elapsedMs: 1_000, nextPollMs: 10_000, polls: 1 });
      now += 7_000;
      vi.advanceTimersByTime(1_000);
      expect(err.endsWith(`\r\x1b[2Kjob ${JOB}: processing, 8.0s elapsed`)).toBe(true);
      progress.stop();
    });

    it('names a limit without a RateLimit-Policy header as too many requests', () => {
      const d = display(false);
      const error = new AgentTtsError({ code: 'RATE_LIMITED', message: 'Slow down.', status: 429, retryAfterSeconds: 5 });
      d.progress.retry({ attempt: 1, delayMs: 5_200, error, method: 'GET' });
      expect(d.err().split('\n')[0]).toBe('rate limited: too many GET requests for this key; retrying in 5 s (Retry-After)…');
      expect(d.err()).toContain('RATE_GET_LIMIT=100');
    });
  });

  it('formats durations', () => {
    expect(formatSeconds(250)).toBe('0.3s');
    expect(formatSeconds(42_000)).toBe('42s');
    expect(formatSeconds(125_000)).toBe('2m05s');
  });
});
