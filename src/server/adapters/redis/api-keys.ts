import type { ApiKeyRecord, KeyRepository } from '../../ports/index.js';
import type { RedisAccess } from './access.js';
import { type Hash, isEmpty, requiredField } from './hashes.js';
import { CREATE_KEY, RECORD_KEY_USE, REVOKE_KEY, UPDATE_IF_EXISTS } from './scripts.js';

function toKey(hash: Hash): ApiKeyRecord | undefined {
  if (isEmpty(hash) || hash.publicId === undefined) return undefined;
  return {
    publicId: hash.publicId,
    accountId: requiredField(hash, 'accountId'),
    secretHash: requiredField(hash, 'secretHash'),
    name: requiredField(hash, 'name'),
    createdAt: Number(hash.createdAt),
    lastUsedAt: hash.lastUsedAt === undefined ? undefined : Number(hash.lastUsedAt),
    callCount: Number(hash.callCount ?? 0),
    revokedAt: hash.revokedAt === undefined ? undefined : Number(hash.revokedAt),
  };
}

/**
 * API keys in Redis: a hash each, indexed overall and per account by creation time, and per account a
 * marker holding its active key's public id, which is how one active key per account is kept.
 */
export function redisApiKeys(redis: RedisAccess): KeyRepository {
  const { client, keys } = redis;
  const apiKeys: KeyRepository = {
    async createKey(k) {
      return redis.guard('createKey', async () => {
        const created = await CREATE_KEY.run(
          client,
          [keys.apiKey(k.publicId), keys.activeKey(k.accountId), keys.apiKeys(), keys.accountKeys(k.accountId), keys.account(k.accountId)],
          [k.publicId, k.accountId, k.secretHash, k.name, k.createdAt],
        );
        return created === 1;
      });
    },

    async getKey(publicId) {
      return redis.guard('getKey', async () => {
        return redis.record(keys.apiKey(publicId), toKey);
      });
    },

    async listKeys(accountId) {
      return redis.guard('listKeys', async () => {
        const index = accountId === undefined ? keys.apiKeys() : keys.accountKeys(accountId);
        const ids = await client.zRange(index, 0, -1);
        const found = await Promise.all(ids.map((id) => apiKeys.getKey(id)));
        return found.filter((k): k is ApiKeyRecord => k !== undefined);
      });
    },

    async renameKey(publicId, name) {
      return redis.guard('renameKey', async () => {
        return (await UPDATE_IF_EXISTS.run(client, [keys.apiKey(publicId)], ['name', name])) === 1;
      });
    },

    async revokeKey(publicId, at) {
      return redis.guard('revokeKey', async () => {
        // The owning account never changes, so reading it first does not weaken the script's atomicity.
        const accountId = await client.hGet(keys.apiKey(publicId), 'accountId');
        if (!accountId) return false;
        const revoked = await REVOKE_KEY.run(client, [keys.apiKey(publicId), keys.activeKey(accountId)], [at, publicId]);
        return revoked === 1;
      });
    },

    async recordKeyUse(publicId, calls, lastUsedAt) {
      return redis.guard('recordKeyUse', async () => {
        await RECORD_KEY_USE.run(client, [keys.apiKey(publicId)], [calls, lastUsedAt]);
      });
    },
  };
  return apiKeys;
}
