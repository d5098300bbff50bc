import { rename, writeFile } from 'node:fs/promises';
import type { ConformanceFixturesT } from '../contract/fixtures.js';
import type { Config } from './config.js';
import { AccountAdmin } from './domain/accounts.js';
import type { Store } from './ports.js';

/**
 * Creates a fresh set of accounts in every state the spec names and returns the conformance fixtures
 * for them. Every run makes new accounts, so their rate-limit buckets and usage start empty.
 */
export async function seed(store: Store, config: Config, activeCount = 8): Promise<ConformanceFixturesT> {
  const admin = new AccountAdmin(store);
  const stamp = new Date().toISOString();
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
    expiresAt: Date.now() - 86_400_000,
    voice: 'af_heart',
    speed: 1,
    language: 'en-US',
    durationSeconds: 3.2,
    fileSizeBytes: 25_600,
  });

  const fixtures: ConformanceFixturesT = {
    base_url: config.publicBaseUrl,
    voices_url: config.publicVoicesUrl,
    keys: {
      active,
      revoked: revoked.key,
      inactive_subscription: inactive.key,
      no_api_access: noAccess.key,
      usage_exhausted: exhausted.key,
    },
    legacy_expired_job: { key: legacy.key, job_id: legacyJob.id },
  };
  const allowed = [...config.cors.origins];
  if (config.cors.previewPatternText) allowed.push(config.cors.previewPatternText.replace('*', 'pr-42'));
  if (allowed.length > 0) fixtures.cors = { allowed_origins: allowed, denied_origin: 'https://denied.example.net' };
  return fixtures;
}

export async function writeFixtures(path: string, fixtures: ConformanceFixturesT): Promise<void> {
  // The file holds full keys: readable by its owner only.
  // Written beside and renamed into place, so a failure never leaves half a file.
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(fixtures, null, 2) + '\n', { mode: 0o600 });
  await rename(temp, path);
}
