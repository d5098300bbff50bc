import { describe, expect, it } from 'vitest';
import { newJob } from '../adapters/contracts/fixtures.contract.js';
import { FILE_EXPIRED_MESSAGE } from '../domain/job-messages.js';
import { AudioUrlSigner } from '../domain/signing.js';
import { jobBody } from './job-bodies.js';
import { CompletedJob } from '@agent-tts/contract/job-schemas.js';

const META = { request_id: '6f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', api_version: '2026-04', processing_time_ms: 5 };

const NOW = Date.UTC(2026, 3, 10, 12);
const signer = new AudioUrlSigner('s'.repeat(32), 3600);
const BASE = 'https://api.example.com';

describe('jobBody', () => {
  const job = newJob('acct', { status: 'completed', durationSeconds: 2.5, voice: 'af_heart', speed: 1.2, language: 'en-US' });

  it('a completed job: a freshly signed audio URL, its audio and the month’s billing in minutes', () => {
    const { kind, body } = jobBody({ kind: 'completed', job, now: NOW, usedCentiminutes: 1234, limitCentiminutes: 1000 }, signer, BASE);
    expect(kind).toBe('completed');
    expect(body).toEqual({
      success: true,
      status: 'completed',
      job_id: job.id,
      audio_url: signer.sign(BASE, job.id, NOW),
      audio: { duration_seconds: 2.5, format: 'mp3', voice: 'af_heart', speed: 1.2, language: 'en-US' },
      billing: { mode: 'subscription', estimated_cost_cents: 0, monthly_minutes_used: 12.34, monthly_minutes_limit: 10, monthly_minutes_remaining: 0 },
    });
  });

  it('a completed job that asked for word timings carries their three URLs, valid against the contract, expiring with the audio URL', () => {
    const timed = { ...job, timestamps: 'word' as const };
    const view = jobBody({ kind: 'completed', job: timed, now: NOW, usedCentiminutes: 0, limitCentiminutes: 500 }, signer, BASE);
    if (view.kind !== 'completed') throw new Error(`a ${view.kind} body`);
    const { body } = view;
    expect(body.timings).toEqual(signer.signTimings(BASE, job.id, NOW));
    expect(CompletedJob.safeParse({ ...body, meta: META }).success).toBe(true);
    const expires = (url: string) => new URL(url).searchParams.get('expires');
    for (const url of [body.timings!.json_url, body.timings!.vtt_url, body.timings!.srt_url]) expect(expires(url)).toBe(expires(body.audio_url));
    // Asked for nothing, or not yet completed: no timings.
    expect(jobBody({ kind: 'completed', job, now: NOW, usedCentiminutes: 0, limitCentiminutes: 500 }, signer, BASE).body).not.toHaveProperty('timings');
    expect(jobBody({ kind: 'processing', job: timed, now: NOW, retryAfterSeconds: 3, progressPercent: 40 }, signer, BASE).body).not.toHaveProperty('timings');
  });

  it('a legacy job adds when its audio expires and its size', () => {
    const legacy = { ...job, legacyExpiresAt: NOW + 60_000, fileSizeBytes: 4096 };
    const { body } = jobBody({ kind: 'completed', job: legacy, now: NOW, usedCentiminutes: 0, limitCentiminutes: 500 }, signer, BASE);
    expect(body).toMatchObject({
      audio: { expires_at: new Date(NOW + 60_000).toISOString(), file_size_bytes: 4096 },
      billing: { monthly_minutes_remaining: 5 },
    });
  });

  it('a processing job: where to poll, when, how far it is, and its audio as it is made (signed at the same instant as audio_url would be)', () => {
    const streamUrl = signer.signStream(BASE, job.id, NOW);
    expect(jobBody({ kind: 'processing', job, now: NOW, retryAfterSeconds: 3, progressPercent: 40 }, signer, BASE)).toEqual({
      kind: 'processing',
      body: {
        success: true,
        status: 'processing',
        job_id: job.id,
        status_url: `/v1/agent-tts?id=${job.id}`,
        retry_after_seconds: 3,
        progress_percent: 40,
        stream_url: streamUrl,
      },
    });
    expect(streamUrl).toMatch(new RegExp(`^${BASE}/v1/stream/${job.id}\\.mp3\\?expires=\\d+&sig=[A-Za-z0-9_-]{43}$`));
    expect(new URL(streamUrl).searchParams.get('expires')).toBe(new URL(signer.sign(BASE, job.id, NOW)).searchParams.get('expires'));
  });

  it('a failed job carries its error; an expired one FILE_EXPIRED with the state’s message', () => {
    expect(jobBody({ kind: 'failed', job, now: NOW, code: 'TTS_PROVIDER_ERROR', message: 'upstream down' }, signer, BASE).body).toEqual({
      success: false,
      status: 'failed',
      job_id: job.id,
      error: { code: 'TTS_PROVIDER_ERROR', message: 'upstream down' },
    });
    expect(jobBody({ kind: 'expired', job, now: NOW, message: FILE_EXPIRED_MESSAGE }, signer, BASE).body).toEqual({
      success: false,
      status: 'expired',
      job_id: job.id,
      error: { code: 'FILE_EXPIRED', message: 'The audio file of this job was deleted. Submit a new request.' },
    });
  });
});
