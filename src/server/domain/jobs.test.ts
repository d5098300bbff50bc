import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InProcessServer } from '../../../test/helpers/in-process.js';
import { createTestServices } from '../../../test/helpers/test-services.js';
import type { TtsRequestBody } from '@agent-tts/contract/request-schemas.js';
import type { Principal } from './auth.js';
import { RequestRefusedError } from './errors.js';
import type { JobService } from './jobs.js';

/** A submission without its inline wait, with the POST bucket it reported. */
async function submit(jobs: JobService, principal: Principal, body: TtsRequestBody, idempotencyKey: string | undefined) {
  const running = new AbortController().signal;
  const outcome = await jobs.submitAndWait(principal, body, idempotencyKey, { signal: running, shutdown: running, inlineWaitMs: 0 });
  return { ...outcome, bucket: outcome.bucket.decision };
}

/**
 * JobService over the memory store and the instant synthesizer (no rule here needs real speech): the
 * order in which a submission is checked, what each refusal takes (nothing), and idempotency.
 */
describe('JobService', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    // Jobs need not run for these rules: a generous wait keeps the machine's speed out of them.
    server = await createTestServices({ RATE_GET_LIMIT: '3' });
  });
  afterAll(async () => {
    await server?.close();
  });
  const jobs = () => server.services.jobs;
  /** The key's POST bucket as it stands. */
  const postPlaces = async (service: JobService, principal: Principal) => (await service.rateLimits.peek('post', principal.key.publicId)).decision.remaining;

  it('applies the defaults: af_heart, speed 1.2, the voice’s language; en for st_* voices; Kokoro ignores `language`', async () => {
    const cases = [
      [{ text: 'a' }, { voice: 'af_heart', speed: 1.2, language: 'en-US' }],
      [
        { text: 'a', voice: 'st_m3' },
        { voice: 'st_m3', language: 'en' },
      ],
      [{ text: 'a', voice: 'st_m3', language: 'ko' as const }, { language: 'ko' }],
      [{ text: 'a', voice: 'ff_claire', language: 'de' as const }, { language: 'fr' }],
    ] as const;
    for (const [body, expected] of cases) {
      const { key } = await server.newKey();
      const outcome = await submit(jobs(), await server.principal(key), body, undefined);
      expect(outcome.kind).toBe('job');
      if (outcome.kind === 'job') expect(outcome.state.job).toMatchObject(expected);
    }
  });

  it('a voice the deployment cannot speak is refused before the Idempotency-Key and the POST place are taken', async () => {
    const upstreamOnly = await createTestServices({
      TTS_ENGINE: 'openai-compatible',
      UPSTREAM_KOKORO_URL: 'http://127.0.0.1:9',
    });
    try {
      const { key } = await upstreamOnly.newKey();
      const principal = await upstreamOnly.principal(key);
      const refusal = await submit(upstreamOnly.services.jobs, principal, { text: 'a', voice: 'st_f1' }, 'k1').catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(RequestRefusedError);
      expect((refusal as RequestRefusedError).code).toBe('INVALID_REQUEST');
      expect(await postPlaces(upstreamOnly.services.jobs, principal)).toBe(1);
      // The key was not claimed: its first real use creates a job rather than replaying anything.
      const created = await submit(upstreamOnly.services.jobs, principal, { text: 'a', voice: 'af_heart' }, 'k1');
      expect(created).toMatchObject({ kind: 'job', replayed: false });
    } finally {
      await upstreamOnly.close();
    }
  });

  it('checks replay before the rate limit: a replay is answered and consumes nothing; a new key is then rate limited', async () => {
    const { key } = await server.newKey();
    const principal = await server.principal(key);
    const first = await submit(jobs(), principal, { text: 'Once.' }, 'replay-me');
    expect(first).toMatchObject({ kind: 'job', replayed: false });
    expect(first.bucket.remaining).toBe(0);
    const replay = await submit(jobs(), principal, { text: 'Whatever the body says.' }, 'replay-me');
    expect(replay).toMatchObject({ kind: 'job', replayed: true });
    if (replay.kind === 'job' && first.kind === 'job') expect(replay.state.job.id).toBe(first.state.job.id);
    const limited = await submit(jobs(), principal, { text: 'Twice.' }, 'another');
    expect(limited.kind).toBe('rate_limited');
    expect(limited.bucket.resetSeconds).toBeGreaterThanOrEqual(1);
    // The refused request left no claim behind: the key is free for the retry after Retry-After.
    expect(await server.services.store.claimIdempotencyKey(principal.account.id, 'another', 'probe', Date.now(), 30_000)).toEqual({ kind: 'claimed' });
  });

  it('checks usage after the rate limit, and a request refused for usage gives its POST place back', async () => {
    const { key, accountId } = await server.newKey({ plan: 'free' });
    await server.admin.setUsedMinutes(accountId, server.services.config.plans.free.monthlyMinutes);
    const principal = await server.principal(key);
    const refused = await submit(jobs(), principal, { text: 'No minutes left for this.' }, 'usage');
    expect(refused.kind).toBe('usage_exceeded');
    expect(await postPlaces(jobs(), principal)).toBe(1);
    expect(await server.services.store.claimIdempotencyKey(principal.account.id, 'usage', 'probe', Date.now(), 30_000)).toEqual({ kind: 'claimed' });
  });

  it('concurrent submissions with one Idempotency-Key make one job and one charge', async () => {
    const { key } = await server.newKey();
    const principal = await server.principal(key);
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => submit(jobs(), principal, { text: 'Together.' }, 'same')));
    const ids = new Set(outcomes.map((o) => (o.kind === 'job' ? o.state.job.id : o.kind)));
    expect(ids.size).toBe(1);
    expect(outcomes.filter((o) => o.kind === 'job' && !o.replayed)).toHaveLength(1);
  });

  it('a poll takes a GET place (a separate bucket), and finds only the caller’s own jobs', async () => {
    const owner = await server.newKey();
    const other = await server.newKey();
    const ownerPrincipal = await server.principal(owner.key);
    const created = await submit(jobs(), ownerPrincipal, { text: 'Mine.' }, undefined);
    if (created.kind !== 'job') throw new Error(created.kind);
    const jobId = created.state.job.id;
    const admitted = await jobs().admitPoll(ownerPrincipal);
    expect(admitted).toMatchObject({ bucket: { kind: 'get', decision: { limit: 3, remaining: 2 } } });
    expect(admitted.refused).toBeUndefined();
    expect(await jobs().findJob(ownerPrincipal, jobId)).toMatchObject({ kind: 'job', state: { job: { id: jobId } } });
    expect(await postPlaces(jobs(), ownerPrincipal)).toBe(0);
    expect(await jobs().poll(await server.principal(other.key), jobId)).toEqual({
      kind: 'not_found',
      message: 'No job with this id for this account. Check the job id.',
    });
    await jobs().poll(ownerPrincipal, jobId);
    await jobs().poll(ownerPrincipal, jobId);
    expect((await jobs().poll(ownerPrincipal, jobId)).kind).toBe('rate_limited');
  });

  it('a poll of a legacy job past its expiry answers it expired and deletes its audio; one not yet expired keeps it', async () => {
    const { key, accountId } = await server.newKey();
    const principal = await server.principal(key);
    const legacy = (expiresAt: number) =>
      server.admin.importLegacyJob({ accountId, keyPublicId: principal.key.publicId, expiresAt, voice: 'af_heart', speed: 1, language: 'en-US' });
    const expired = await legacy(Date.now() - 1_000);
    const current = await legacy(Date.now() + 3_600_000);
    const audio = server.services.audio;
    const remove = audio.delete;
    const deleted: string[] = [];
    audio.delete = async (jobId) => void deleted.push(jobId);
    try {
      expect(await jobs().poll(principal, expired.id)).toMatchObject({ kind: 'job', state: { kind: 'expired', job: { id: expired.id } } });
      expect(await jobs().poll(principal, current.id)).toMatchObject({ kind: 'job', state: { kind: 'completed' } });
    } finally {
      audio.delete = remove;
    }
    expect(deleted).toEqual([expired.id]);
  });
});
