import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SessionRepository } from '../../ports/index.js';
import { type AccountOwner, type OpenStore, openedStore, storedAccount } from './fixtures.contract.js';

/**
 * What a SessionRepository owes the dashboard: sessions kept until they expire or are deleted, and
 * sign-in tokens handed out once.
 */
export function describeSessionRepositoryContract(open: OpenStore<SessionRepository & AccountOwner>): void {
  describe('dashboard sessions and sign-in tokens', () => {
    const current = openedStore(open);
    const hashOf = () => randomBytes(32).toString('hex');

    it('keeps a session until it expires or is deleted', async () => {
      const store = current();
      const a = await storedAccount(store);
      const idHash = hashOf();
      const now = Date.now();
      await store.createSession({ idHash, accountId: a.id, createdAt: now, expiresAt: now + 60_000 });
      expect(await store.getSession(idHash, now + 1)).toEqual({ idHash, accountId: a.id, createdAt: now, expiresAt: now + 60_000 });
      expect(await store.getSession(idHash, now + 60_000)).toBeUndefined();
      expect(await store.getSession(hashOf(), now)).toBeUndefined();
      await store.deleteSession(idHash);
      expect(await store.getSession(idHash, now + 1)).toBeUndefined();
    });

    it('hands a sign-in token out once, and never once expired', async () => {
      const store = current();
      const a = await storedAccount(store);
      const now = Date.now();
      const tokenHash = hashOf();
      await store.createSignInToken({ tokenHash, accountId: a.id, expiresAt: now + 60_000 });
      const takes = await Promise.all([store.consumeSignInToken(tokenHash, now), store.consumeSignInToken(tokenHash, now)]);
      expect(takes.filter((t) => t !== undefined)).toEqual([a.id]);
      expect(await store.consumeSignInToken(tokenHash, now)).toBeUndefined();
      const expired = hashOf();
      await store.createSignInToken({ tokenHash: expired, accountId: a.id, expiresAt: now + 1_000 });
      expect(await store.consumeSignInToken(expired, now + 1_000)).toBeUndefined();
      expect(await store.consumeSignInToken(hashOf(), now)).toBeUndefined();
    });
  });
}
