import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AccountRepository } from '../../ports/index.js';
import { type OpenStore, openedStore, storedAccount, T0 } from './fixtures.contract.js';

/** What an AccountRepository owes: accounts stored, read, updated and listed; an id taken once. */
export function describeAccountRepositoryContract(open: OpenStore<AccountRepository>): void {
  describe('accounts', () => {
    const current = openedStore(open);

    it('stores, reads, updates and lists accounts', async () => {
      const store = current();
      const a = await storedAccount(store, { name: 'first', plan: 'free', createdAt: T0 + 1 });
      const b = await storedAccount(store, { name: 'second', plan: 'ultimate', subscription: 'inactive', createdAt: T0 + 2 });
      expect(await store.getAccount(a.id)).toEqual(a);
      expect(await store.getAccount(b.id)).toEqual(b);
      expect(await store.getAccount(randomUUID())).toBeUndefined();

      expect(await store.updateAccount(a.id, { plan: 'ultimate', subscription: 'inactive' })).toBe(true);
      expect(await store.getAccount(a.id)).toEqual({ ...a, plan: 'ultimate', subscription: 'inactive' });
      expect(await store.updateAccount(a.id, { name: 'renamed' })).toBe(true);
      expect((await store.getAccount(a.id))?.name).toBe('renamed');
      expect(await store.updateAccount(a.id, {})).toBe(true);
      expect(await store.updateAccount(randomUUID(), { name: 'nobody' })).toBe(false);

      const listed = (await store.listAccounts()).filter((x) => x.id === a.id || x.id === b.id);
      expect(listed.map((x) => x.id)).toEqual([a.id, b.id]);
    });

    it('refuses a second account with the same id', async () => {
      const store = current();
      const a = await storedAccount(store);
      await expect(store.createAccount({ ...a, name: 'impostor' })).rejects.toThrow();
      expect((await store.getAccount(a.id))?.name).toBe(a.name);
    });
  });
}
