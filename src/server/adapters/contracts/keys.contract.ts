import { describe, expect, it } from 'vitest';
import type { KeyRepository } from '../../ports/index.js';
import { type AccountOwner, newKey, type OpenStore, openedStore, storedAccount, T0 } from './fixtures.contract.js';

/**
 * What a KeyRepository owes: keys stored and read back, one active key per account however many
 * creations race, revocation once, renaming and counting use.
 */
export function describeKeyRepositoryContract(open: OpenStore<KeyRepository & AccountOwner>): void {
  describe('API keys', () => {
    const current = openedStore(open);

    it('stores a key and reads it back; unknown keys are undefined', async () => {
      const store = current();
      const a = await storedAccount(store);
      const k = newKey(a.id);
      expect(await store.createKey(k)).toBe(true);
      expect(await store.getKey(k.publicId)).toEqual(k);
      expect(await store.getKey('00000000')).toBeUndefined();
    });

    it('allows one active key per account; revoking frees the place, once', async () => {
      const store = current();
      const a = await storedAccount(store);
      const first = newKey(a.id, { createdAt: T0 });
      expect(await store.createKey(first)).toBe(true);
      expect(await store.createKey(newKey(a.id))).toBe(false);
      // Another account is not affected.
      const other = await storedAccount(store);
      expect(await store.createKey(newKey(other.id))).toBe(true);

      expect(await store.revokeKey(first.publicId, T0 + 10)).toBe(true);
      expect(await store.revokeKey(first.publicId, T0 + 20)).toBe(false);
      expect((await store.getKey(first.publicId))?.revokedAt).toBe(T0 + 10);
      expect(await store.revokeKey('00000000', T0)).toBe(false);

      const second = newKey(a.id, { createdAt: T0 + 30 });
      expect(await store.createKey(second)).toBe(true);
      expect((await store.listKeys(a.id)).map((k) => k.publicId)).toEqual([first.publicId, second.publicId]);
      const all = (await store.listKeys()).map((k) => k.publicId);
      expect(all).toEqual(expect.arrayContaining([first.publicId, second.publicId]));
    });

    it('admits exactly one of many concurrent key creations for one account', async () => {
      const store = current();
      const a = await storedAccount(store);
      const results = await Promise.all(Array.from({ length: 12 }, () => store.createKey(newKey(a.id))));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await store.listKeys(a.id)).filter((k) => k.revokedAt === undefined)).toHaveLength(1);
    });

    it('renames keys and counts their use', async () => {
      const store = current();
      const a = await storedAccount(store);
      const k = newKey(a.id);
      await store.createKey(k);
      expect(await store.renameKey(k.publicId, 'renamed')).toBe(true);
      expect(await store.renameKey('00000000', 'x')).toBe(false);
      await store.recordKeyUse(k.publicId, 3, T0 + 100);
      await store.recordKeyUse(k.publicId, 2, T0 + 50);
      const read = await store.getKey(k.publicId);
      expect(read).toMatchObject({ name: 'renamed', callCount: 5, lastUsedAt: T0 + 100 });
    });
  });
}
