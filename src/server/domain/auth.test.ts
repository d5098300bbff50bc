import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InProcessServer } from '../../../test/helpers/in-process.js';
import { createTestServices } from '../../../test/helpers/test-services.js';
import { Authenticator } from './auth.js';
import { KeyUsageRecorder } from './key-usage.js';

const INVALID = 'The API key is missing, malformed, unknown or revoked. Send `Authorization: Bearer tts_<public_id>_<secret>`.';

/**
 * Authenticator over the real SQLite store: the order of its checks (key, state, subscription, plan),
 * what each refusal carries, and the use it counts for a key that passes.
 */
describe('Authenticator', () => {
  let server: InProcessServer;
  let usage: KeyUsageRecorder;
  let auth: Authenticator;
  beforeAll(async () => {
    server = await createTestServices();
    // A recorder of its own, flushed by the test rather than by its timer.
    usage = new KeyUsageRecorder(server.services.store, 3_600_000);
    auth = new Authenticator(server.services.store, server.services.config.plans, usage);
  });
  afterAll(async () => {
    await usage?.close();
    await server?.close();
  });

  it('refuses a missing or malformed header without a display key', async () => {
    for (const header of [
      undefined,
      '',
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer not-a-key',
      `Bearer tts_ABCDEF12_${'0'.repeat(48)}`,
      `Token tts_abcdef12_${'0'.repeat(48)}`,
    ]) {
      expect(await auth.authenticate(header, 0)).toEqual({ ok: false, code: 'INVALID_KEY', message: INVALID });
    }
  });

  it('refuses an unknown key, a wrong secret and a revoked key alike, naming the key only by its public part', async () => {
    const { key } = await server.newKey();
    const revoked = await server.newKey();
    await server.admin.revokeKey(revoked.key.slice(0, 12));
    const wrongSecret = key.slice(0, 13) + (key[13] === 'a' ? 'b' : 'a') + key.slice(14);
    for (const presented of [`tts_0badc0de_${'1'.repeat(48)}`, wrongSecret, revoked.key]) {
      const shown = presented.slice(0, 12);
      expect(await auth.authenticate(`Bearer ${presented}`, 0)).toEqual({
        ok: false,
        code: 'INVALID_KEY',
        message: `${INVALID} (key ${shown})`,
        displayKey: shown,
      });
    }
  });

  it('refuses an inactive subscription before a plan without API access, both with the key’s public id', async () => {
    const inactiveBasic = await server.newKey({ plan: 'basic', subscription: 'inactive' });
    expect(await auth.authenticate(`Bearer ${inactiveBasic.key}`, 0)).toEqual({
      ok: false,
      code: 'INACTIVE_SUBSCRIPTION',
      message: 'The subscription of this account is not active. Reactivate it on the billing page.',
      displayKey: inactiveBasic.key.slice(0, 12),
      publicId: inactiveBasic.key.slice(4, 12),
    });
    const basic = await server.newKey({ plan: 'basic' });
    expect(await auth.authenticate(`Bearer ${basic.key}`, 0)).toEqual({
      ok: false,
      code: 'NO_API_ACCESS',
      message: 'The basic plan does not include API access. Check the plan or contact support.',
      displayKey: basic.key.slice(0, 12),
      publicId: basic.key.slice(4, 12),
    });
  });

  it('gives a valid key its principal: key, account, plan settings and display key', async () => {
    const { key, accountId } = await server.newKey({ plan: 'pro' });
    const result = await auth.authenticate(`bearer  ${key} `, 0);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.principal.displayKey).toBe(key.slice(0, 12));
    expect(result.principal.key).toMatchObject({ publicId: key.slice(4, 12), accountId });
    expect(result.principal.account).toMatchObject({ id: accountId, plan: 'pro', subscription: 'active' });
    expect(result.principal.plan).toEqual(server.services.config.plans.pro);
  });

  it('counts the calls and the last use of a key that passes, and nothing for one refused', async () => {
    const { key } = await server.newKey();
    const publicId = key.slice(4, 12);
    await usage.flush();
    for (const at of [1_700_000_000_000, 1_700_000_002_000, 1_700_000_001_000]) expect((await auth.authenticate(`Bearer ${key}`, at)).ok).toBe(true);
    const wrongSecret = key.slice(0, 13) + (key[13] === 'a' ? 'b' : 'a') + key.slice(14);
    expect((await auth.authenticate(`Bearer ${wrongSecret}`, 1_700_000_009_000)).ok).toBe(false);
    expect((await server.services.store.getKey(publicId))?.callCount).toBe(0);
    await usage.flush();
    expect(await server.services.store.getKey(publicId)).toMatchObject({ callCount: 3, lastUsedAt: 1_700_000_002_000 });
  });
});
