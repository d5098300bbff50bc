import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InProcessServer } from '../../../test/helpers/in-process.js';
import { createTestServices } from '../../../test/helpers/test-services.js';
import { AccountAdmin, AdminError } from './accounts.js';
import { generateKey } from './keys.js';

const T0 = Date.UTC(2026, 2, 15, 12);
const clock = { now: () => T0 };

/**
 * AccountAdmin over the real SQLite store and a fixed clock: keys (shown once, at most one active,
 * renamed, revoked at once), account upkeep and the legacy import.
 */
describe('AccountAdmin', () => {
  let server: InProcessServer;
  let admin: AccountAdmin;
  beforeAll(async () => {
    server = await createTestServices();
    admin = new AccountAdmin(server.services.store, clock);
  });
  afterAll(async () => {
    await server?.close();
  });
  const store = () => server.services.store;
  const authenticate = (key: string) => server.services.auth.authenticate(`Bearer ${key}`, T0);

  it('creates an account with the clock’s time, and names a missing one', async () => {
    const account = await admin.createAccount('acme', 'pro');
    expect(account).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'acme', plan: 'pro', subscription: 'active', createdAt: T0 });
    expect(await store().getAccount(account.id)).toEqual(account);
    expect(await admin.requireAccount(account.id)).toEqual(account);
    await expect(admin.requireAccount('nope')).rejects.toThrow(new AdminError('No account nope.'));
    await expect(admin.createKey('nope')).rejects.toThrow('No account nope.');
  });

  it('creates a key shown once, refuses a second active key, and revokes at once', async () => {
    const account = await admin.createAccount('keys', 'pro');
    const { key, record } = await admin.createKey(account.id, 'ci');
    expect(key).toMatch(/^tts_[0-9a-f]{8}_[0-9a-f]{48}$/);
    expect(record).toEqual({ publicId: key.slice(4, 12), accountId: account.id, secretHash: expect.any(String), name: 'ci', createdAt: T0, callCount: 0 });
    expect(JSON.stringify(await store().listKeys(account.id))).not.toContain(key.slice(13));
    expect((await authenticate(key)).ok).toBe(true);

    await expect(admin.createKey(account.id)).rejects.toThrow('This account already has an active key (at most 1). Revoke it first, then create another.');

    const display = key.slice(0, 12);
    await admin.renameKey(display, 'renamed key');
    expect((await store().getKey(record.publicId))?.name).toBe('renamed key');
    expect(await admin.revokeKey(display)).toBe(true);
    expect(await store().getKey(record.publicId)).toMatchObject({ revokedAt: T0, name: 'renamed key' });
    expect((await authenticate(key)).ok).toBe(false);
    expect(await admin.revokeKey(record.publicId)).toBe(false);

    const next = await admin.createKey(account.id);
    expect(next.record.name).toBe('default');
    expect((await authenticate(next.key)).ok).toBe(true);
  });

  it('draws a public id again when the one drawn is taken, and never overwrites another key', async () => {
    const first = await admin.createAccount('first', 'pro');
    const second = await admin.createAccount('second', 'pro');
    const taken = (await admin.createKey(first.id)).record;
    const draws = [{ ...generateKey(), publicId: taken.publicId }, generateKey()];
    const drawing = new AccountAdmin(store(), clock, () => draws.shift() ?? generateKey());
    const { record } = await drawing.createKey(second.id);
    expect(record.publicId).not.toBe(taken.publicId);
    expect(draws).toHaveLength(0);
    expect(await store().getKey(taken.publicId)).toEqual(taken);

    const always = new AccountAdmin(store(), clock, () => ({ ...generateKey(), publicId: taken.publicId }));
    const third = await admin.createAccount('third', 'pro');
    await expect(always.createKey(third.id)).rejects.toThrow('No free public key id was found in 8 draws; try again.');
  });

  it('finds a key by display key or public id, and names what it could not find', async () => {
    const account = await admin.createAccount('find', 'free');
    const { key, record } = await admin.createKey(account.id);
    expect((await admin.requireKey(key.slice(0, 12))).publicId).toBe(record.publicId);
    expect((await admin.requireKey(record.publicId)).publicId).toBe(record.publicId);
    await expect(admin.requireKey('tts_0badc0de')).rejects.toThrow('No key tts_0badc0de.');
    await expect(admin.requireKey('not a key at all')).rejects.toThrow('No key not a key at.');
  });

  it('sets the used minutes of the clock’s month', async () => {
    const account = await admin.createAccount('usage', 'free');
    await admin.setUsedMinutes(account.id, 12.345);
    expect((await store().getUsage(account.id, '2026-03')).usedCentiminutes).toBe(1235);
    expect((await store().getUsage(account.id, '2026-04')).usedCentiminutes).toBe(0);
  });

  it('imports a legacy job as completed, kept past its audio’s expiry', async () => {
    const account = await admin.createAccount('legacy', 'pro');
    const expiresAt = T0 - 86_400_000;
    const job = await admin.importLegacyJob({
      accountId: account.id,
      keyPublicId: '0123abcd',
      expiresAt,
      voice: 'af_heart',
      speed: 1,
      language: 'en-US',
      durationSeconds: 3,
    });
    expect(job).toMatchObject({
      accountId: account.id,
      status: 'completed',
      createdAt: expiresAt,
      completedAt: expiresAt,
      legacyExpiresAt: expiresAt,
      usageMonth: '2026-03',
      deleteAfter: Number.MAX_SAFE_INTEGER,
      chargedCentiminutes: 0,
    });
    expect(await store().getJob(job.id)).toMatchObject({ id: job.id, status: 'completed', legacyExpiresAt: expiresAt, durationSeconds: 3 });
    await expect(
      admin.importLegacyJob({ accountId: 'nope', keyPublicId: '0123abcd', expiresAt, voice: 'af_heart', speed: 1, language: 'en-US' }),
    ).rejects.toThrow(AdminError);
  });
});
