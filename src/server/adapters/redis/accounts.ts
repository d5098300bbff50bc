import type { Account, AccountRepository } from '../../ports/index.js';
import type { RedisAccess } from './access.js';
import { type Hash, isEmpty, pairs, requiredField } from './hashes.js';
import { CREATE_ACCOUNT, UPDATE_IF_EXISTS } from './scripts.js';

function toAccount(hash: Hash): Account | undefined {
  if (isEmpty(hash) || hash.id === undefined) return undefined;
  return {
    id: hash.id,
    name: requiredField(hash, 'name'),
    plan: hash.plan as Account['plan'],
    subscription: hash.subscription as Account['subscription'],
    createdAt: Number(hash.createdAt),
  };
}

/** Accounts in Redis: a hash each, and an index of all of them by creation time. */
export function redisAccounts(redis: RedisAccess): AccountRepository {
  const { client, keys } = redis;
  const accounts: AccountRepository = {
    async createAccount(a) {
      return redis.guard('createAccount', async () => {
        await CREATE_ACCOUNT.run(
          client,
          [keys.account(a.id), keys.accounts()],
          [a.id, a.createdAt, ...pairs({ id: a.id, name: a.name, plan: a.plan, subscription: a.subscription, createdAt: a.createdAt })],
        );
      });
    },

    async getAccount(id) {
      return redis.guard('getAccount', async () => {
        return redis.record(keys.account(id), toAccount);
      });
    },

    async updateAccount(id, patch) {
      return redis.guard('updateAccount', async () => {
        const allowed = { name: patch.name, plan: patch.plan, subscription: patch.subscription };
        return (await UPDATE_IF_EXISTS.run(client, [keys.account(id)], pairs(allowed))) === 1;
      });
    },

    async listAccounts() {
      return redis.guard('listAccounts', async () => {
        const ids = await client.zRange(keys.accounts(), 0, -1);
        const found = await Promise.all(ids.map((id) => accounts.getAccount(id)));
        return found.filter((a): a is Account => a !== undefined);
      });
    },
  };
  return accounts;
}
