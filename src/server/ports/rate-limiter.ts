export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window admits another request (≥ 1 when refused). */
  resetSeconds: number;
  /** Present when this check took a place: hand it to `refund` to give the place back. */
  admission?: string;
}

export interface RateLimiter {
  /** Takes one request from the bucket when `consume` is true; otherwise only reports it. */
  check(bucket: string, limit: number, windowMs: number, consume: boolean): Promise<RateLimitDecision>;
  /**
   * Gives back the place an admission took, for a request that turned out to be refused for another
   * reason (a rejected request consumes no quota). A no-op once the admission has left the window.
   */
  refund(bucket: string, admission: string): Promise<void>;
  close(): Promise<void>;
}
