import { describe, expect, it } from 'vitest';
import { newJob } from '../adapters/contracts/fixtures.contract.js';
import type { UsageRepository } from '../ports/index.js';
import type { Principal } from './auth.js';
import { isLegacyExpired, JobStates, type LiveProgressSource } from './job-state.js';

const NOW = Date.UTC(2026, 3, 10, 12);
const principal = { plan: { monthlyMinutes: 100 } } as Principal;

/** JobStates over a usage store that records what it is asked, an estimator of 10 s, and live progress. */
function states(live: Record<string, { fraction: number; elapsedMs: number }> = {}) {
  const asked: string[] = [];
  const store: Pick<UsageRepository, 'getUsage'> = {
    getUsage: async (accountId, month) => {
      asked.push(`${accountId} ${month}`);
      return { usedCentiminutes: 250 };
    },
  };
  const source: LiveProgressSource = { get: (id) => live[id] };
  const estimator = { estimateAudioSeconds: () => 10, estimateWallSeconds: () => 10 };
  return { asked, states: new JobStates({ store: store as UsageRepository, estimator, live: source }) };
}

describe('isLegacyExpired', () => {
  it('holds from a legacy job’s expiry on, and never for a job without one', () => {
    expect(isLegacyExpired({ legacyExpiresAt: NOW }, NOW)).toBe(true);
    expect(isLegacyExpired({ legacyExpiresAt: NOW + 1 }, NOW)).toBe(false);
    expect(isLegacyExpired({}, NOW)).toBe(false);
  });
});

describe('JobStates', () => {
  it('a completed job: the month’s usage of its account at `now`, and the plan’s minutes', async () => {
    const { states: s, asked } = states();
    const job = newJob('acct', { status: 'completed' });
    expect(await s.at(principal, job, NOW)).toEqual({ kind: 'completed', job, now: NOW, usedCentiminutes: 250, limitCentiminutes: 10_000 });
    expect(asked).toEqual(['acct 2026-04']);
  });

  it('a processing job: when to poll again and how far it is, from live progress when there is some', async () => {
    const job = newJob('acct', { status: 'processing', progress: 0.5 });
    expect(await states().states.at(principal, job, NOW)).toEqual({ kind: 'processing', job, now: NOW, retryAfterSeconds: 5, progressPercent: 50 });
    const live = states({ [job.id]: { fraction: 0.25, elapsedMs: 3_000 } });
    expect(await live.states.at(principal, job, NOW)).toMatchObject({ retryAfterSeconds: 9, progressPercent: 25 });
  });

  it('a failed job: its recorded error, or INTERNAL_ERROR with the default message', async () => {
    const failed = newJob('acct', { status: 'failed', errorCode: 'TTS_PROVIDER_ERROR', errorMessage: 'upstream down' });
    expect(await states().states.at(principal, failed, NOW)).toMatchObject({ kind: 'failed', code: 'TTS_PROVIDER_ERROR', message: 'upstream down' });
    const bare = newJob('acct', { status: 'failed' });
    expect(await states().states.at(principal, bare, NOW)).toMatchObject({ kind: 'failed', code: 'INTERNAL_ERROR', message: 'Synthesis failed.' });
  });

  it('a legacy job past its expiry is expired whatever its status, and judging it reads nothing', async () => {
    const { states: s, asked } = states();
    const job = newJob('acct', { status: 'completed', legacyExpiresAt: NOW - 1 });
    expect(await s.at(principal, job, NOW)).toEqual({
      kind: 'expired',
      job,
      now: NOW,
      message: 'The audio file of this job was deleted. Submit a new request.',
    });
    expect(asked).toEqual([]);
  });
});
