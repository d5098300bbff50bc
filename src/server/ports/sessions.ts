// Dashboard sign-in: one-time sign-in tokens and the sessions they start.

/** A dashboard session: only the SHA-256 of its id is stored. */
interface SessionRecord {
  idHash: string;
  accountId: string;
  createdAt: number;
  expiresAt: number;
}

/** A one-time sign-in token: only its SHA-256 is stored. */
interface SignInTokenRecord {
  tokenHash: string;
  accountId: string;
  expiresAt: number;
}

/** Dashboard sessions and the one-time sign-in tokens that start them. */
export interface SessionRepository {
  createSession(session: SessionRecord): Promise<void>;
  /** The session, unless absent or expired at `now`. */
  getSession(idHash: string, now: number): Promise<SessionRecord | undefined>;
  deleteSession(idHash: string): Promise<void>;
  createSignInToken(token: SignInTokenRecord): Promise<void>;
  /** Atomically takes the token (single use): its account, unless absent, already used or expired at `now`. */
  consumeSignInToken(tokenHash: string, now: number): Promise<string | undefined>;
}
