import type { SessionRepository } from '../../ports/index.js';
import type { RedisAccess } from './access.js';

/**
 * Dashboard sessions (a hash each) and one-time sign-in tokens (a string each, `expiresAt:accountId`),
 * both expiring in Redis when they do.
 */
export function redisSessions(redis: RedisAccess): SessionRepository {
  const { client, keys } = redis;
  return {
    async createSession(session) {
      return redis.guard('createSession', async () => {
        const key = keys.session(session.idHash);
        await client
          .multi()
          .hSet(key, { accountId: session.accountId, createdAt: String(session.createdAt), expiresAt: String(session.expiresAt) })
          .pExpireAt(key, session.expiresAt)
          .exec();
      });
    },

    async getSession(idHash, now) {
      return redis.guard('getSession', async () => {
        const hash = await redis.hash(keys.session(idHash));
        if (hash.accountId === undefined || Number(hash.expiresAt) <= now) return undefined;
        return { idHash, accountId: hash.accountId, createdAt: Number(hash.createdAt), expiresAt: Number(hash.expiresAt) };
      });
    },

    async deleteSession(idHash) {
      return redis.guard('deleteSession', async () => {
        await client.del(keys.session(idHash));
      });
    },

    async createSignInToken(token) {
      return redis.guard('createSignInToken', async () => {
        const key = keys.signInToken(token.tokenHash);
        await client.set(key, `${token.expiresAt}:${token.accountId}`, { PXAT: token.expiresAt });
      });
    },

    async consumeSignInToken(tokenHash, now) {
      return redis.guard('consumeSignInToken', async () => {
        // GETDEL takes it in one step: of two requests with the same token, one gets it.
        const value = await client.getDel(keys.signInToken(tokenHash));
        if (value === null) return undefined;
        const at = value.indexOf(':');
        return Number(value.slice(0, at)) > now ? value.slice(at + 1) : undefined;
      });
    },
  };
}
