import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { PROVIDER_FAILURE_MESSAGE } from './domain/job-messages.js';
import { AudioUrlSigner } from './domain/signing.js';
import { usageMonth } from './domain/usage.js';
import type { ConformanceFixturesT } from '@agent-tts/contract/fixtures.js';
import type { Config } from './config.js';
import { AccountAdmin } from './domain/accounts.js';
import { type Clock, type JobRecord, type Store, systemClock } from './ports/index.js';
import type { AudioStorage } from './domain/job-files.js';

export interface SeedCounts {
  /** Active keys (each its own account) for the rules that create and compare jobs. */
  active?: number;
  /** Keys (each its own account) for the acceptance rules' boundary POSTs, one per window each. */
  acceptance?: number;
}

/** Enough acceptance keys for every boundary POST of the suite in one window (it sends 63). */
export const DEFAULT_ACCEPTANCE_KEYS = 64;

/**
 * One second of silence as MPEG-1 Layer III (128 kbit/s, 44.1 kHz, mono): 39 frames of 417 bytes,
 * each a frame header and zeroed side information, which decoders play as silence.
 */
export function silentMp3(frames = 39): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0xc0]);
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}

/**
 * Creates a fresh set of accounts in every state the API names and returns the conformance fixtures
 * for them. Every run makes new accounts, so their rate-limit buckets and usage start empty.
 */
export async function seed(
  store: Store,
  audioStorage: AudioStorage,
  config: Config,
  counts: SeedCounts = {},
  clock: Clock = systemClock,
): Promise<ConformanceFixturesT> {
  const activeCount = counts.active ?? 8;
  const acceptanceCount = counts.acceptance ?? DEFAULT_ACCEPTANCE_KEYS;
  const admin = new AccountAdmin(store, clock);
  const stamp = new Date(clock.now()).toISOString();
  const keyFor = async (label: string, plan: 'free' | 'pro' | 'ultimate' | 'basic', subscription: 'active' | 'inactive' = 'active') => {
    const account = await admin.createAccount(`seed ${label} ${stamp}`, plan, subscription);
    const { key, record } = await admin.createKey(account.id, `seed ${label}`);
    return { account, key, record };
  };

  const active: string[] = [];
  for (let i = 0; i < activeCount; i++) active.push((await keyFor(`active-${i + 1}`, 'ultimate')).key);

  const revoked = await keyFor('revoked', 'pro');
  await admin.revokeKey(revoked.record.publicId);
  const inactive = await keyFor('inactive-subscription', 'pro', 'inactive');
  const noAccess = await keyFor('no-api-access', 'basic');
  const exhausted = await keyFor('usage-exhausted', 'free');
  await admin.setUsedMinutes(exhausted.account.id, config.plans.free.monthlyMinutes);

  const legacy = await keyFor('legacy', 'pro');
  const legacyJob = await admin.importLegacyJob({
    accountId: legacy.account.id,
    keyPublicId: legacy.record.publicId,
    expiresAt: clock.now() - 86_400_000,
    voice: 'af_heart',
    speed: 1,
    language: 'en-US',
    durationSeconds: 3.2,
    fileSizeBytes: 25_600,
  });

  const acceptance: string[] = [];
  for (let i = 0; i < acceptanceCount; i++) acceptance.push((await keyFor(`acceptance-${i + 1}`, 'ultimate')).key);

  const now = clock.now();
  const failed = await seedFailedJob(store, config, now, await keyFor('failed-job', 'pro'));
  const expired = await seedExpiredAudio(store, audioStorage, config, now, await keyFor('expired-audio', 'pro'));

  const fixtures: ConformanceFixturesT = {
    base_url: config.publicBaseUrl,
    voices_url: config.publicVoicesUrl,
    keys: {
      active,
      revoked: revoked.key,
      inactive_subscription: inactive.key,
      no_api_access: noAccess.key,
      usage_exhausted: exhausted.key,
      ...(acceptance.length > 0 ? { acceptance } : {}),
    },
    legacy_expired_job: { key: legacy.key, job_id: legacyJob.id },
    failed_job: failed,
    expired_audio: expired,
  };
  const allowed = [...config.cors.origins];
  if (config.cors.previewPatternText) allowed.push(config.cors.previewPatternText.replace('*', 'pr-42'));
  if (allowed.length > 0) fixtures.cors = { allowed_origins: allowed, denied_origin: 'https://denied.example.net' };
  return fixtures;
}

/** A seeded account and its key. */
interface SeededKey {
  account: { id: string };
  key: string;
  record: { publicId: string };
}

/** A job of `owner` that finished at `now` (completed unless `extra` says otherwise), kept for the pro plan's retention. */
function finishedJob(config: Config, now: number, owner: SeededKey, extra: Partial<JobRecord>): JobRecord {
  return {
    id: randomUUID(),
    accountId: owner.account.id,
    keyPublicId: owner.record.publicId,
    status: 'completed',
    text: '',
    voice: 'af_heart',
    language: 'en-US',
    speed: 1,
    createdAt: now - 2_000,
    deleteAfter: now + config.plans.pro.retentionDays * 86_400_000,
    reservedCentiminutes: 0,
    chargedCentiminutes: 0,
    usageMonth: usageMonth(now),
    progress: 1,
    completedAt: now - 1_000,
    processingTimeMs: 1_000,
    ...extra,
  };
}

/**
 * A job the speech engine failed, as the job runner records one: the failed-job rules GET it on a
 * deployment whose engine never fails (the eSpeak default). Finished, so no worker ever runs it.
 */
async function seedFailedJob(store: Store, config: Config, now: number, owner: SeededKey): Promise<{ key: string; job_id: string }> {
  const job = finishedJob(config, now, owner, {
    status: 'failed',
    errorCode: 'TTS_PROVIDER_ERROR',
    errorMessage: PROVIDER_FAILURE_MESSAGE,
    completedAt: undefined,
    processingTimeMs: undefined,
  });
  await store.importLegacyJob(job);
  return { key: owner.key, job_id: job.id };
}

/**
 * A completed job with audio in the storage, and an audio URL of it signed to have expired already
 * (the same signer and secret as the server's), so the expired-URL rule needs no waiting.
 */
async function seedExpiredAudio(
  store: Store,
  audioStorage: AudioStorage,
  config: Config,
  now: number,
  owner: SeededKey,
): Promise<{ key: string; job_id: string; audio_url: string }> {
  const audio = silentMp3();
  const job = finishedJob(config, now, owner, { durationSeconds: 1.019, fileSizeBytes: audio.length });
  const writer = await audioStorage.createWriter(job.id);
  await writer.write(audio);
  await writer.commit();
  await store.importLegacyJob(job);
  const signer = new AudioUrlSigner(config.urlSigningSecret, config.audioUrlTtlSeconds);
  return { key: owner.key, job_id: job.id, audio_url: signer.sign(config.publicBaseUrl, job.id, now - (config.audioUrlTtlSeconds + 3_600) * 1000) };
}

/** Where `agent-tts-admin seed` writes its fixtures when no --out is given: a directory .gitignore leaves out. */
export const DEFAULT_FIXTURES_PATH = '.agent-tts/fixtures.server.json';

export async function writeFixtures(path: string, fixtures: ConformanceFixturesT): Promise<void> {
  // The file holds full keys: readable by its owner only. A missing directory (.agent-tts/ by
  // default) is created for it, with mode 0700.
  await mkdir(dirname(resolve(path)), { recursive: true, mode: 0o700 });
  // Written beside and renamed into place, so a failure never leaves half a file.
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(fixtures, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, path);
}
