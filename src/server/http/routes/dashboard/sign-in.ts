import { getConnInfo } from '@hono/node-server/conninfo';
import type { MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { DASHBOARD_PATH, SESSION_TTL_MS, SIGN_IN_PATH, looksLikeToken } from '../../../domain/dashboard.js';
import type { DashboardServices } from '../../../domain/dashboard-services.js';
import type { AppContext, AppEnv } from '../../context.js';
import { type Dashboard, withSession } from './context.js';
import { formLimit, readForm } from './forms.js';
import { LINK_NOT_VALID, landing, problemPage, signInPage } from './pages.js';
import { render } from './respond.js';

/** The connection's peer address; undefined where there is no socket (`app.request()` in tests). */
function clientAddress(c: AppContext): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/**
 * Sign-in attempts per client address (DashboardServices.signInAttempt). The address is the
 * connection's peer (getConnInfo): X-Forwarded-For is never read, as the server has no
 * trusted-proxy setting; behind a proxy, every client shares the proxy's address. A refused attempt
 * spends no token.
 */
function signInLimit(services: DashboardServices): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const attempt = await services.signInAttempt(clientAddress(c));
    if (!attempt.allowed) {
      const wait = attempt.retryAfterSeconds;
      c.header('Retry-After', String(wait));
      return render(
        c,
        problemPage(
          'Too many sign-in attempts',
          `Too many sign-in attempts came from your network in the last minute. Wait ${wait} ${wait === 1 ? 'second' : 'seconds'}, then go back and select “Sign in” again: a refused attempt does not use up the link.`,
        ),
        429,
      );
    }
    await next();
  };
}

/** Spends the form's sign-in token for a new session (its cookie set), ending the one this browser had. */
async function signIn(dash: Dashboard, c: AppContext): Promise<Response> {
  const { sessions, cookie } = dash;
  const form = await readForm(c);
  const signedIn = await sessions.signIn(typeof form.token === 'string' ? form.token : '');
  if (!signedIn) return render(c, landing({ error: true, text: LINK_NOT_VALID }), 400);
  // A new session id at every sign-in; the one this browser had before ends here.
  await sessions.signOut(getCookie(c, cookie.name));
  setCookie(c, cookie.name, signedIn.sessionId, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: cookie.secure,
    path: '/',
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'same-origin');
  return c.redirect(DASHBOARD_PATH, 303);
}

/** Signing in by one-time link (opening it, then its form's POST) and signing out. */
export function registerSignInRoutes(dash: Dashboard): void {
  // Opening the link (GET, and HEAD through it) reads nothing and spends nothing: it shows the button.
  dash.app.get(SIGN_IN_PATH, (c) => {
    const token = c.req.query('token') ?? '';
    if (!looksLikeToken(token)) return render(c, landing({ error: true, text: LINK_NOT_VALID }), 400);
    c.header('X-Robots-Tag', 'noindex, nofollow');
    return render(c, signInPage(token));
  });

  dash.post(SIGN_IN_PATH, signInLimit(dash.deps.services), formLimit, (c) => signIn(dash, c));

  dash.post(
    `${DASHBOARD_PATH}/sign-out`,
    formLimit,
    withSession(dash, async (c, s) => {
      await dash.sessions.signOut(s.id);
      deleteCookie(c, dash.cookie.name, { path: '/', secure: dash.cookie.secure, httpOnly: true, sameSite: 'Lax' });
      return c.redirect(`${DASHBOARD_PATH}?notice=signed-out`, 303);
    }),
  );
}
