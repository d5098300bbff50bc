import { html } from 'hono/html';
import { DASHBOARD_PATH, SIGN_IN_PATH } from '../../../domain/dashboard.js';
import type { DashboardAccount } from '../../../domain/dashboard-services.js';
import { type Html, page } from './layout.js';

/** The notices a redirect after a form names in `?notice=`. */
export const NOTICES: Record<string, string> = {
  renamed: 'The key was renamed.',
  revoked: 'The key was revoked. Requests with it are refused (401) from now on.',
  'signed-out': 'You are signed out.',
};

export const LINK_NOT_VALID =
  'This sign-in link is not valid: it has expired (links last 15 minutes), was used already, or is incomplete. Ask the operator for a new one.';

export const SESSION_ENDED = 'Your session has ended. Sign in again with a new link.';

/**
 * What opening a sign-in link shows: a button that submits the token. Opening the link (GET, HEAD)
 * spends nothing, so a link preview or a mail scanner that fetches it cannot use it up; only the
 * form's POST signs in. The token travels in the form's body, not in its action URL, and the page is
 * sent with `Referrer-Policy: same-origin` (the link's URL never leaves this origin in a Referer) and `no-store`.
 */
export function signInPage(token: string): Html {
  return page(
    'Sign in',
    html`<h1>Sign in to the account dashboard</h1>
      <p>This one-time link signs you in once: select “Sign in” to continue. After that the link no longer works.</p>
      <form class="inline" method="post" action="${SIGN_IN_PATH}">
        <input type="hidden" name="token" value="${token}" />
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">Opening the link alone signs nobody in, so a link preview or a mail scanner cannot use it up.</p>`,
  );
}

/** A page that only says what went wrong and what to do (refusals and failures of the dashboard). */
export function problemPage(title: string, text: string, more: Html | string = ''): Html {
  return page(
    title,
    html`<h1>${title}</h1>
      <p class="error" role="alert">${text}</p>
      ${more}
      <p><a href="${DASHBOARD_PATH}">Back to the dashboard</a></p>`,
  );
}

/** The page without a session: how to sign in, with a notice or an error. */
export function landing(message?: { text: string; error?: boolean }): Html {
  return page(
    'Sign in',
    html`<h1>Account dashboard</h1>
      ${message ? html`<p class="${message.error ? 'error' : 'notice'}" role="${message.error ? 'alert' : 'status'}">${message.text}</p>` : ''}
      <p>Sign in with a one-time sign-in link from your operator. A link is valid for 15 minutes and can be used once.</p>
      <p class="muted">Operators create one with <code>agent-tts-admin account sign-in-link &lt;account-id&gt;</code>.</p>
      <p>The <a href="/docs">API reference</a> needs no sign-in.</p>`,
  );
}

/** The confirmation a revocation asks for: what stops working, and the form that revokes the key. */
export function revokePage(key: { shown: string; name: string }, session: { account: DashboardAccount; csrf: string }): Html {
  const { shown } = key;
  return page(
    'Revoke key',
    html`<h1>Revoke <code>${shown}</code>?</h1>
          <p>Key <code>${shown}</code> (“${key.name}”) will stop working at once: the next request made with it is refused with 401. This cannot be undone; you can create a new key afterwards.</p>
          <form class="inline" method="post" action="${DASHBOARD_PATH}/keys/${shown}/revoke">
            <input type="hidden" name="csrf" value="${session.csrf}" />
            <button class="danger" type="submit">Revoke ${shown}</button>
            <a class="button secondary" href="${DASHBOARD_PATH}#keys">Cancel</a>
          </form>`,
    { account: session.account, csrf: session.csrf },
  );
}
