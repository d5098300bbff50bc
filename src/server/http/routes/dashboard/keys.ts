import { AdminError } from '../../../domain/accounts.js';
import { DASHBOARD_PATH } from '../../../domain/dashboard.js';
import type { DashboardAccount } from '../../../domain/dashboard-services.js';
import { type Dashboard, withSession } from './context.js';
import { KEY_NAME_MAX, formLimit, keyNameOf } from './forms.js';
import { SESSION_ENDED, landing, revokePage } from './pages.js';
import { render } from './respond.js';

const NAME_REFUSED = `A key name is 1 to ${KEY_NAME_MAX} characters.`;

/**
 * The account's API keys: create, rename, revoke (after a confirmation page), by the same rules as
 * the admin CLI (AccountAdmin). A key of another account is answered as no key at all.
 */
export function registerKeyRoutes(dash: Dashboard): void {
  const { admin } = dash;
  const ownKey = async (account: DashboardAccount, shown: string) => {
    const key = await admin.requireKey(shown).catch(() => undefined);
    return key && key.accountId === account.id ? key : undefined;
  };

  dash.post(
    `${DASHBOARD_PATH}/keys`,
    formLimit,
    withSession(dash, async (c, s, form) => {
      const name = keyNameOf(form);
      if (!name) return dash.show(c, s, { error: NAME_REFUSED }, 400);
      try {
        const { key } = await admin.createKey(s.account.id, name);
        // Answered here, not redirected: the full key never travels in a URL, and is shown this once.
        return dash.show(c, s, { newKey: key }, 201);
      } catch (error) {
        if (error instanceof AdminError) return dash.show(c, s, { error: error.message }, 409);
        throw error;
      }
    }),
  );

  dash.post(
    `${DASHBOARD_PATH}/keys/:key/rename`,
    formLimit,
    withSession(dash, async (c, s, form) => {
      const key = await ownKey(s.account, c.req.param('key') ?? '');
      if (!key) return dash.show(c, s, { error: 'No such key in this account.' }, 404);
      const name = keyNameOf(form);
      if (!name) return dash.show(c, s, { error: NAME_REFUSED }, 400);
      await admin.renameKey(key.publicId, name);
      return c.redirect(`${DASHBOARD_PATH}?notice=renamed#keys`, 303);
    }),
  );

  dash.app.get(`${DASHBOARD_PATH}/keys/:key/revoke`, async (c) => {
    const s = await dash.sessionOf(c);
    if (!s) return render(c, landing({ error: true, text: SESSION_ENDED }), 401);
    const key = await ownKey(s.account, c.req.param('key') ?? '');
    if (!key || key.revokedAt !== undefined) return dash.show(c, s, { error: 'No active key of that name in this account.' }, 404);
    return render(c, revokePage({ shown: `tts_${key.publicId}`, name: key.name }, s));
  });

  dash.post(
    `${DASHBOARD_PATH}/keys/:key/revoke`,
    formLimit,
    withSession(dash, async (c, s) => {
      const key = await ownKey(s.account, c.req.param('key') ?? '');
      if (!key) return dash.show(c, s, { error: 'No such key in this account.' }, 404);
      await admin.revokeKey(key.publicId);
      return c.redirect(`${DASHBOARD_PATH}?notice=revoked#keys`, 303);
    }),
  );
}
