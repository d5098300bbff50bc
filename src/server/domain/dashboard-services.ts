import type { AccountRepository, Clock, JobRepository, KeyRepository, PlanSettings, RateLimiter, SessionRepository, UsageRepository } from '../ports/index.js';
import { AccountAdmin } from './accounts.js';
import { DashboardSessions, type DashboardView, dashboardView, SIGN_IN_ATTEMPTS, SIGN_IN_WINDOW_MS, signInBucket } from './dashboard.js';
import type { AudioUrlSigner } from './signing.js';

/** The account the dashboard shows (a signed-in session's). */
export type DashboardAccount = DashboardView['account'];

/** A sign-in attempt from one client address: let through, or refused with the wait before the next. */
type SignInAttempt = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** What the dashboard's pages answer from: sessions, key administration, the account's view, sign-in attempts. */
export interface DashboardServices {
  readonly sessions: DashboardSessions;
  /** Keys by the rules of docs/api-rules.md#key-management (the admin CLI's). */
  readonly admin: AccountAdmin;
  /** Everything the dashboard shows for an account, read through the store (never cached), at the clock's time. */
  view(account: DashboardAccount): Promise<DashboardView>;
  /**
   * Counts a sign-in attempt from `address` (the connection's peer; undefined without one), at most
   * SIGN_IN_ATTEMPTS a SIGN_IN_WINDOW_MS per address or IPv6 /64. The RateLimiter port fits (a
   * rolling window per named bucket): in memory in the embedded mode, in Redis in the distributed
   * mode, where every API instance counts alike. A refused attempt spends no token.
   */
  signInAttempt(address: string | undefined): Promise<SignInAttempt>;
}

export interface DashboardServicesDeps {
  store: AccountRepository & KeyRepository & SessionRepository & UsageRepository & Pick<JobRepository, 'listRecentJobs' | 'importLegacyJob'>;
  plans: Record<string, PlanSettings>;
  signer: AudioUrlSigner;
  publicBaseUrl: string;
  billingUrl: string;
  /** The time sessions, sign-in links, the usage month, keys and audio URLs are judged on. */
  clock: Clock;
  /** Counts sign-in attempts per client address (the deployment's limiter). */
  limiter: RateLimiter;
}

/** The dashboard's services over the deployment's store, limiter and clock (built by a composition root). */
export function dashboardServices(deps: DashboardServicesDeps): DashboardServices {
  return {
    sessions: new DashboardSessions(deps.store, deps.clock),
    admin: new AccountAdmin(deps.store, deps.clock),
    view: (account) => dashboardView(account, deps),
    async signInAttempt(address) {
      const decision = await deps.limiter.check(signInBucket(address), SIGN_IN_ATTEMPTS, SIGN_IN_WINDOW_MS, true);
      return decision.allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: Math.max(1, decision.resetSeconds) };
    },
  };
}
