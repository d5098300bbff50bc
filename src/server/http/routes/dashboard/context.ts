import type { Hono, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AccountAdmin } from '../../../domain/accounts.js';
import type { DashboardSessions } from '../../../domain/dashboard.js';
import type { DashboardAccount, DashboardServices } from '../../../domain/dashboard-services.js';
import type { Logger } from '../../../log.js';
import type { AppContext, AppEnv } from '../../context.js';
import { type AccountPageExtra, accountPage } from './account-view.js';
import { readForm, sameOrigin } from './forms.js';
import { SESSION_ENDED, landing } from './pages.js';
import { render } from './respond.js';

export interface DashboardDeps {
  /** The domain's services of the dashboard (domain/dashboard-services.ts). */
  services: DashboardServices;
  /** The origin forms must come from, and whether the session cookie is Secure. */
  publicBaseUrl: string;
  log: Logger;
}

/** A signed-in browser: its session id, its account, and the CSRF token of its forms. */
export interface Session {
  id: string;
  account: DashboardAccount;
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
  const { sessions, admin } = deps.services;
  const secure = deps.publicBaseUrl.startsWith('https:');
  const cookie = { name: secure ? '__Host-agent_tts_session' : 'agent_tts_session', secure };
  const fromThisOrigin = sameOrigin(new URL(deps.publicBaseUrl).origin);
  return {
    app,
    deps,
    sessions,
    admin,
    cookie,
    async sessionOf(c) {
      const id = getCookie(c, cookie.name);
      const account = await sessions.resolve(id);
      return account && id ? { id, account, csrf: sessions.csrfToken(id) } : undefined;
    },
    async show(c, s, extra = {}, status = 200) {
      const view = await deps.services.view(s.account);
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
