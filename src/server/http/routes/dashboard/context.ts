import type { Hono, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { AccountAdmin } from '../../../domain/accounts.js';
import { DashboardSessions, dashboardView } from '../../../domain/dashboard.js';
import type { AudioUrlSigner } from '../../../domain/signing.js';
import type { Logger } from '../../../log.js';
import type { Account, Clock, PlanSettings, RateLimiter, Store } from '../../../ports/index.js';
import type { AppContext, AppEnv } from '../../context.js';
import { type AccountPageExtra, accountPage } from './account-view.js';
import { readForm, sameOrigin } from './forms.js';
import { SESSION_ENDED, landing } from './pages.js';
import { render } from './respond.js';

export interface DashboardDeps {
  store: Store;
  plans: Record<string, PlanSettings>;
  signer: AudioUrlSigner;
  publicBaseUrl: string;
  billingUrl: string;
  /** The time sessions, sign-in links, the usage month and audio URLs are judged on. */
  clock: Clock;
  /** Counts sign-in attempts per client address (the deployment's limiter: shared by every instance with Redis). */
  limiter: RateLimiter;
  log: Logger;
}

/** A signed-in browser: its session id, its account, and the CSRF token of its forms. */
export interface Session {
  id: string;
  account: Account;
  csrf: string;
}

/** What every route of the dashboard shares: its sub-app, sessions, key administration and session cookie. */
export interface Dashboard {
  readonly app: Hono<AppEnv>;
  readonly deps: DashboardDeps;
  readonly sessions: DashboardSessions;
  readonly admin: AccountAdmin;
  /** The session cookie: `__Host-` and Secure when the public URL is https. */
  readonly cookie: { name: string; secure: boolean };
  /** The live session this request's cookie names, if any. */
  sessionOf(c: AppContext): Promise<Session | undefined>;
  /** Answers the account page of `s`. */
  show(c: AppContext, s: Session, extra?: AccountPageExtra, status?: number): Promise<Response>;
  /** A state-changing route: refused unless sent from this origin, then `handlers`. */
  post(path: string, ...handlers: MiddlewareHandler<AppEnv>[]): void;
}

export function createDashboard(app: Hono<AppEnv>, deps: DashboardDeps): Dashboard {
  const sessions = new DashboardSessions(deps.store, deps.clock);
  const secure = deps.publicBaseUrl.startsWith('https:');
  const cookie = { name: secure ? '__Host-agent_tts_session' : 'agent_tts_session', secure };
  const fromThisOrigin = sameOrigin(new URL(deps.publicBaseUrl).origin);
  return {
    app,
    deps,
    sessions,
    admin: new AccountAdmin(deps.store),
    cookie,
    async sessionOf(c) {
      const id = getCookie(c, cookie.name);
      const account = await sessions.resolve(id);
      return account && id ? { id, account, csrf: sessions.csrfToken(id) } : undefined;
    },
    async show(c, s, extra = {}, status = 200) {
      const view = await dashboardView(s.account, deps);
      return render(c, accountPage(view, s.csrf, extra), status);
    },
    post(path, ...handlers) {
      app.post(path, fromThisOrigin, ...handlers);
    },
  };
}

/**
 * A form of a signed-in session: without a live session it is answered 401 with the sign-in page, and
 * without the session's CSRF token 403 with the account page; otherwise `handler` answers it.
 */
export function withSession(
  dash: Dashboard,
  handler: (c: AppContext, s: Session, form: Record<string, unknown>) => Promise<Response>,
): (c: AppContext) => Promise<Response> {
  return async (c) => {
    const s = await dash.sessionOf(c);
    if (!s) return render(c, landing({ error: true, text: SESSION_ENDED }), 401);
    const form = await readForm(c);
    if (!dash.sessions.csrfMatches(s.id, form.csrf)) {
      return dash.show(c, s, { error: 'The form could not be verified (it may be stale). Reload the page and try again.' }, 403);
    }
    return handler(c, s, form);
  };
}
