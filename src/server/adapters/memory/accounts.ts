import type { AccountRepository, KeyRepository } from '../../ports/index.js';
import { byTwo, copy, type MemoryState } from './state.js';

/** Accounts, an id taken once. */
export function memoryAccounts(state: MemoryState): AccountRepository {
  return {
    async createAccount(a) {
      if (state.accounts.has(a.id)) throw new Error(`An account with id ${a.id} already exists.`);
      state.accounts.set(a.id, copy(a));
    },

    async getAccount(id) {
      const a = state.accounts.get(id);
      return a && copy(a);
    },

    async updateAccount(id, patch) {
      const a = state.accounts.get(id);
      if (!a) return false;
      if (patch.name !== undefined) a.name = patch.name;
      if (patch.plan !== undefined) a.plan = patch.plan;
      if (patch.subscription !== undefined) a.subscription = patch.subscription;
      return true;
    },

    async listAccounts() {
      return [...state.accounts.values()]
        .sort(
          byTwo(
            (a) => a.createdAt,
            (a) => a.id,
          ),
        )
        .map(copy);
    },
  };
}

/** API keys: one active key per account, as the SQLite schema's unique index keeps it. */
export function memoryKeys(state: MemoryState): KeyRepository {
  return {
    async createKey(k) {
      if (!state.accounts.has(k.accountId)) throw new Error(`No account ${k.accountId} to create a key for.`);
      if (state.keys.has(k.publicId)) return false;
      for (const other of state.keys.values()) if (other.accountId === k.accountId && other.revokedAt === undefined) return false;
      state.keys.set(k.publicId, copy({ ...k, callCount: 0, lastUsedAt: undefined, revokedAt: undefined }));
      return true;
    },

    async getKey(publicId) {
      const k = state.keys.get(publicId);
      return k && copy(k);
    },

    async listKeys(accountId) {
      const keys = [...state.keys.values()].filter((k) => accountId === undefined || accountId === '' || k.accountId === accountId);
      return keys
        .sort(
          byTwo(
            (k) => k.createdAt,
            (k) => k.publicId,
          ),
        )
        .map(copy);
    },

    async renameKey(publicId, name) {
      const k = state.keys.get(publicId);
      if (!k) return false;
      k.name = name;
      return true;
    },

    async revokeKey(publicId, at) {
      const k = state.keys.get(publicId);
      if (!k || k.revokedAt !== undefined) return false;
      k.revokedAt = at;
      return true;
    },

    async recordKeyUse(publicId, calls, lastUsedAt) {
      const k = state.keys.get(publicId);
      if (!k) return;
      k.callCount += calls;
      k.lastUsedAt = Math.max(k.lastUsedAt ?? 0, lastUsedAt);
    },
  };
}
