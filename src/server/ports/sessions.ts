// Dashboard sign-in: one-time sign-in tokens and the sessions they start.

/** A dashboard session: only the SHA-256 of its id is stored. */
export interface SessionRecord {
  idHash: string;
  accountId: string;
  createdAt: number;
  expiresAt: number;
}

/** A one-time sign-in token: only its SHA-256 is stored. */
export interface SignInTokenRecord {
  tokenHash: string;
  accountId: string;
  expiresAt: number;
}
