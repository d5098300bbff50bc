import type { OpenAPIHono } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { DASHBOARD_PATH } from '../../../domain/dashboard.js';
import type { AppEnv } from '../../context.js';
import { registerAssetRoutes } from './assets.js';
import { type Dashboard, type DashboardDeps, createDashboard } from './context.js';
import { dashboardErrors } from './errors.js';
import { registerKeyRoutes } from './keys.js';
import { NOTICES, landing } from './pages.js';
import { render } from './respond.js';
import { registerSignInRoutes } from './sign-in.js';

/** The dashboard's own page: the account page with a session, how to sign in without one. */
function registerAccountPage(dash: Dashboard): void {
  dash.app.get(DASHBOARD_PATH, async (c) => {
    const s = await dash.sessionOf(c);
    if (!s) {
      const notice = NOTICES[c.req.query('notice') ?? ''];
      return render(c, landing(notice ? { text: notice } : undefined));
    }
    return dash.show(c, s, { notice: NOTICES[c.req.query('notice') ?? ''] });
  });
}

/**
 * The account dashboard on the API origin (server-rendered, not part of the API contract): sign-in by
 * one-time link, API keys (create, rename, revoke: the same rules as the admin CLI, through
 * AccountAdmin), usage and recent jobs. Every form carries the session's CSRF token, and every form
 * sent from another origin is refused. The pages are a sub-app with their own error handler, so a
 * failure (the store down) answers an HTML page with the pages' security headers, not the API's JSON.
 */
export function registerDashboardRoutes(app: OpenAPIHono<AppEnv>, deps: DashboardDeps): void {
  const sub = new Hono<AppEnv>();
  sub.onError(dashboardErrors(deps.log));
  const dash = createDashboard(sub, deps);
  registerAssetRoutes(sub);
  registerAccountPage(dash);
  registerSignInRoutes(dash);
  registerKeyRoutes(dash);
  app.route('/', sub);
}
