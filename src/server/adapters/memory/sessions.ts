import type { SessionRepository } from '../../ports/index.js';
import { copy, type MemoryState } from './state.js';

/** Dashboard sessions and one-time sign-in tokens; expired ones are deleted as new ones are made or taken (as in SQLite). */
export function memorySessions(state: MemoryState): SessionRepository {
  return {
    async createSession(session) {
      for (const [idHash, s] of state.sessions) if (s.expiresAt <= session.createdAt) state.sessions.delete(idHash);
      if (state.sessions.has(session.idHash)) throw new Error('A session with this id already exists.');
      state.sessions.set(session.idHash, copy(session));
    },

    async getSession(idHash, now) {
      const s = state.sessions.get(idHash);
      return s && s.expiresAt > now ? copy(s) : undefined;
    },

    async deleteSession(idHash) {
      state.sessions.delete(idHash);
    },

    async createSignInToken(token) {
      if (state.signInTokens.has(token.tokenHash)) throw new Error('A sign-in token with this hash already exists.');
      state.signInTokens.set(token.tokenHash, copy(token));
    },

    async consumeSignInToken(tokenHash, now) {
      for (const [hash, t] of state.signInTokens) if (t.expiresAt <= now) state.signInTokens.delete(hash);
      const t = state.signInTokens.get(tokenHash);
      state.signInTokens.delete(tokenHash);
      return t && t.expiresAt > now ? t.accountId : undefined;
    },
  };
}
