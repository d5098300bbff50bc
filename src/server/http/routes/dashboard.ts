import type { OpenAPIHono } from '@hono/zod-openapi';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { AccountAdmin, AdminError } from '../../domain/accounts.js';
import {
  DASHBOARD_PATH,
  DashboardSessions,
  SESSION_TTL_MS,
  SIGN_IN_ATTEMPTS,
  SIGN_IN_PATH,
  SIGN_IN_WINDOW_MS,
  dashboardView,
  formatDuration,
  looksLikeToken,
  signInBucket,
  type DashboardView,
  type KeyView,
} from '../../domain/dashboard.js';
import type { AudioUrlSigner } from '../../domain/signing.js';
import type { Logger } from '../../log.js';
import type { Account, Clock, PlanSettings, RateLimiter, Store } from '../../ports/index.js';
import type { AppEnv } from '../context.js';
import { DASHBOARD_CSS, DASHBOARD_JS, FAVICON_SVG } from './dashboard-assets.js';

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

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;
type Ctx = Context<AppEnv>;

/**
 * Every page: only this origin (no CDN, no inline script), not framed, and a referrer only for this
 * origin (the sign-in token never leaves in a Referer). Not `no-referrer`: under it, browsers send
 * `Origin: null` with a form's POST, which the Origin check of dashboard POSTs must refuse.
 */
const PAGE_CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export function pageHeaders(c: Ctx, csp = PAGE_CSP): void {
  c.header('Content-Security-Policy', csp);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'same-origin');
}

const KEY_NAME_MAX = 64;
const NOTICES: Record<string, string> = {
  renamed: 'The key was renamed.',
  revoked: 'The key was revoked. Requests with it are refused (401) from now on.',
  'signed-out': 'You are signed out.',
};

function when(ms: number | undefined): Html {
  if (ms === undefined) return html`<span class="muted">never</span>`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** Seconds to at most 3 decimals (an HTML duration allows no more). */
const round3 = (seconds: number) => String(Math.round(seconds * 1000) / 1000);

function page(title: string, body: Html, options: { account?: Account; csrf?: string } = {}): Html {
  const nav = options.account
    ? html`<nav aria-label="Dashboard">
        <a href="${DASHBOARD_PATH}#keys">API keys</a><a href="${DASHBOARD_PATH}#usage">Usage</a><a href="${DASHBOARD_PATH}#jobs">Jobs</a
        ><a href="/docs">API reference</a>
        <form class="inline" method="post" action="${DASHBOARD_PATH}/sign-out">
          <input type="hidden" name="csrf" value="${options.csrf}" /><button class="secondary" type="submit">Sign out</button>
        </form>
      </nav>`
    : html`<nav aria-label="Site"><a href="/docs">API reference</a></nav>`;
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title} · agent-tts</title>
    <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="${DASHBOARD_PATH}/assets/dashboard.css" />
  </head>
  <body>
    <a class="skip" href="#main">Skip to content</a>
    <header><a class="brand" href="${DASHBOARD_PATH}">agent-tts</a>${nav}</header>
    <main id="main">${body}</main>
    <script src="${DASHBOARD_PATH}/assets/dashboard.js" defer></script>
  </body>
</html>`;
}

function keyRow(key: KeyView, csrf: string): Html {
  const id = key.displayKey;
  return html`<tr>
    <td data-label="Key"><code>${id}</code></td>
    <td data-label="Name">${key.name}</td>
    <td data-label="Created">${when(key.createdAt)}</td>
    <td data-label="Last used">${when(key.lastUsedAt)}</td>
    <td data-label="Calls">${key.callCount}</td>
    <td data-label="Status" class="status-${key.active ? 'active' : 'revoked'}">${key.active ? 'active' : html`revoked ${when(key.revokedAt)}`}</td>
    <td data-label="Actions">
      ${
        key.active
          ? html`<form class="inline" method="post" action="${DASHBOARD_PATH}/keys/${id}/rename">
              <input type="hidden" name="csrf" value="${csrf}" />
              <label for="rename-${id}" class="sr-only">New name for ${id}</label>
              <input type="text" id="rename-${id}" name="name" value="${key.name}" required maxlength="${KEY_NAME_MAX}" size="14" />
              <button class="secondary" type="submit">Rename</button>
            </form>
            <p><a class="button danger" href="${DASHBOARD_PATH}/keys/${id}/revoke">Revoke…</a></p>`
          : ''
      }
    </td>
  </tr>`;
}

function dashboardPage(view: DashboardView, csrf: string, extra: { notice?: string; error?: string; newKey?: string } = {}): Html {
  const { usage } = view;
  const created = extra.newKey
    ? html`<section class="once" aria-labelledby="new-key-title">
        <h2 id="new-key-title">Your new API key</h2>
        <p><strong>Copy this key now. It will not be shown again</strong>: only a hash of it is kept, so it cannot be recovered.</p>
        <div class="key-value">
          <label for="new-key" class="sr-only">New API key</label>
          <input id="new-key" type="text" readonly value="${extra.newKey}" spellcheck="false" autocomplete="off" />
          <button type="button" data-copy="new-key" data-status="copy-status" hidden>Copy</button>
        </div>
        <p id="copy-status" role="status" class="muted"></p>
      </section>`
    : '';
  const jobs = view.jobs.length
    ? html`<table class="jobs">
        <thead><tr><th scope="col">Job</th><th scope="col">Text</th><th scope="col">Status</th><th scope="col">Voice</th><th scope="col">Duration</th><th scope="col">Created</th><th scope="col">Audio</th></tr></thead>
        <tbody>
          ${view.jobs.map(
            (j) => html`<tr>
              <td data-label="Job"><code class="job-id" title="${j.id}" data-job-id="${j.id}">${j.id.slice(0, 8)}</code></td>
              <td data-label="Text" class="text">${
                j.textSnippet ? j.textSnippet : html`<span class="muted" title="A job's text is deleted when the job finishes.">not kept</span>`
              }</td>
              <td data-label="Status" class="status-${j.status}">${j.status}</td>
              <td data-label="Voice"><code>${j.voice}</code></td>
              <td data-label="Duration">${
                j.durationSeconds === undefined
                  ? '—'
                  : html`<time datetime="PT${round3(j.durationSeconds)}S" title="${round3(j.durationSeconds)} s">${formatDuration(j.durationSeconds)}</time>`
              }</td>
              <td data-label="Created">${when(j.createdAt)}</td>
              <td data-label="Audio">${
                j.audioUrl
                  ? html`<audio controls preload="none" src="${j.audioUrl}" aria-label="Audio of job ${j.id}"></audio>`
                  : html`<span class="muted">—</span>`
              }</td>
            </tr>`,
          )}
        </tbody>
      </table>`
    : html`<p class="muted">No jobs yet.</p>`;
  const body = html`<h1>${view.account.name}</h1>
    ${extra.notice ? html`<p class="notice" role="status">${extra.notice}</p>` : ''}
    ${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
    ${created}
    <section id="keys" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      ${
        view.keys.length
          ? html`<table>
            <thead><tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Calls</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
            <tbody>${view.keys.map((k) => keyRow(k, csrf))}</tbody>
          </table>`
          : html`<p class="muted">No keys yet.</p>`
      }
      <h3>Create a key</h3>
      ${
        view.hasActiveKey
          ? html`<p class="muted" id="create-hint">This account has an active key, and an account can have only one. Revoke it first, then create another.</p>`
          : ''
      }
      <form class="inline" method="post" action="${DASHBOARD_PATH}/keys">
        <input type="hidden" name="csrf" value="${csrf}" />
        <label for="new-key-name">Name</label>
        ${
          view.hasActiveKey
            ? html`<input type="text" id="new-key-name" name="name" value="default" required maxlength="${KEY_NAME_MAX}" size="16" disabled aria-describedby="create-hint" />
              <button type="submit" disabled aria-describedby="create-hint">Create key</button>`
            : html`<input type="text" id="new-key-name" name="name" value="default" required maxlength="${KEY_NAME_MAX}" size="16" />
              <button type="submit">Create key</button>`
        }
      </form>
    </section>
    <section id="usage" aria-labelledby="usage-title">
      <h2 id="usage-title">Usage this month</h2>
      <dl class="usage">
        <dt>Plan</dt><dd>${usage.plan}</dd>
        <dt>Subscription</dt><dd>${usage.subscription}</dd>
        <dt id="minutes-label">Minutes</dt>
        <dd>
          <meter aria-labelledby="minutes-label" min="0" max="${Math.max(usage.limitMinutes, 0.01)}" low="${usage.limitMinutes * 0.75}"
            high="${usage.limitMinutes * 0.9}" optimum="0" value="${usage.usedMinutes}">${usage.usedMinutes} of ${usage.limitMinutes}</meter>
          <div><span data-field="used">${usage.usedMinutes}</span> used of <span data-field="limit">${usage.limitMinutes}</span>,
            <span data-field="remaining">${usage.remainingMinutes}</span> remaining</div>
        </dd>
        <dt>Resets</dt><dd>${when(usage.resetsAt)}</dd>
        <dt>Audio kept for</dt><dd>${usage.retentionDays} ${usage.retentionDays === 1 ? 'day' : 'days'}</dd>
        <dt>Billing</dt><dd><a href="${usage.billingUrl}">Manage plan and billing</a></dd>
      </dl>
    </section>
    <section id="jobs" aria-labelledby="jobs-title">
      <h2 id="jobs-title">Recent jobs</h2>
      ${jobs}
    </section>`;
  return page('Dashboard', body, { account: view.account, csrf });
}

/** The errors by which a store says its backend did not answer (the Redis adapter's, the port's). */
const STORE_OUTAGES = new Set(['RedisUnavailableError', 'StoreUnavailableError']);

const LINK_NOT_VALID =
  'This sign-in link is not valid: it has expired (links last 15 minutes), was used already, or is incomplete. Ask the operator for a new one.';

/**
 * What opening a sign-in link shows: a button that submits the token. Opening the link (GET, HEAD)
 * spends nothing, so a link preview or a mail scanner that fetches it cannot use it up; only the
 * form's POST signs in. The token travels in the form's body, not in its action URL, and the page is
 * sent with `Referrer-Policy: same-origin` (the link's URL never leaves this origin in a Referer) and `no-store`.
 */
function signInPage(token: string): Html {
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
function problemPage(title: string, text: string, more: Html | string = ''): Html {
  return page(
    title,
    html`<h1>${title}</h1>
      <p class="error" role="alert">${text}</p>
      ${more}
      <p><a href="${DASHBOARD_PATH}">Back to the dashboard</a></p>`,
  );
}

function landing(message?: { text: string; error?: boolean }): Html {
  return page(
    'Sign in',
    html`<h1>Account dashboard</h1>
      ${message ? html`<p class="${message.error ? 'error' : 'notice'}" role="${message.error ? 'alert' : 'status'}">${message.text}</p>` : ''}
      <p>Sign in with a one-time sign-in link from your operator. A link is valid for 15 minutes and can be used once.</p>
      <p class="muted">Operators create one with <code>agent-tts-admin account sign-in-link &lt;account-id&gt;</code>.</p>
      <p>The <a href="/docs">API reference</a> needs no sign-in.</p>`,
  );
}

/**
 * The account dashboard on the API origin (server-rendered, not part of the API contract): sign-in by
 * one-time link, API keys (create, rename, revoke: the same rules as the admin CLI, through
 * AccountAdmin), usage and recent jobs. Every form carries the session's CSRF token, and every form
 * sent from another origin is refused. The pages are a sub-app with their own error handler, so a
 * failure (the store down) answers an HTML page with the pages' security headers, not the API's JSON.
 */
export function registerDashboardRoutes(app: OpenAPIHono<AppEnv>, deps: DashboardDeps): void {
  const dash = new Hono<AppEnv>();
  const sessions = new DashboardSessions(deps.store, deps.clock);
  const admin = new AccountAdmin(deps.store);
  const secure = deps.publicBaseUrl.startsWith('https:');
  const cookieName = secure ? '__Host-agent_tts_session' : 'agent_tts_session';
  const publicOrigin = new URL(deps.publicBaseUrl).origin;

  const render = (c: Ctx, body: Html, status = 200) => {
    pageHeaders(c);
    c.header('Cache-Control', 'no-store');
    return c.html(body, status as 200);
  };
  const sessionOf = async (c: Ctx) => {
    const id = getCookie(c, cookieName);
    const account = await sessions.resolve(id);
    return account && id ? { id, account, csrf: sessions.csrfToken(id) } : undefined;
  };
  const show = async (c: Ctx, s: { account: Account; csrf: string }, extra: Parameters<typeof dashboardPage>[2] = {}, status = 200) => {
    const view = await dashboardView(s.account, deps);
    return render(c, dashboardPage(view, s.csrf, extra), status);
  };

  dash.onError((error, c) => {
    // A store outage is answered 503 with Retry-After: a page says "try again" (the API answers it
    // 500 INTERNAL_ERROR). It is recognised by name, as this layer imports no adapter.
    if (STORE_OUTAGES.has(error.name)) {
      // An outage, not a bug: one warning line, without a stack.
      deps.log.warn({ request_id: c.get('requestId'), path: c.req.path, error: error.message }, 'dashboard: store unavailable');
      c.header('Retry-After', '30');
      return render(
        c,
        problemPage('Temporarily unavailable', 'The dashboard is temporarily unavailable: the service cannot reach its data right now. Try again in a minute.'),
        503,
      );
    }
    deps.log.error({ request_id: c.get('requestId'), path: c.req.path, err: error }, 'dashboard: unhandled error');
    return render(
      c,
      problemPage(
        'Something went wrong',
        'The dashboard could not answer because of an error on our side. Try again; if it keeps happening, tell the operator.',
        html`<p class="muted">Request id: <code>${c.get('requestId')}</code></p>`,
      ),
      500,
    );
  });

  dash.get(`${DASHBOARD_PATH}/assets/dashboard.css`, (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(DASHBOARD_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' });
  });
  dash.get(`${DASHBOARD_PATH}/assets/dashboard.js`, (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(DASHBOARD_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
  });

  // The pages' icon, from the package: /favicon.ico answers the same SVG, for clients that ask for it by that name.
  const favicon = (c: Ctx) => {
    c.header('Cache-Control', 'public, max-age=86400');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Content-Security-Policy', "default-src 'none'");
    return c.body(FAVICON_SVG, 200, { 'Content-Type': 'image/svg+xml' });
  };
  dash.get('/favicon.svg', favicon);
  dash.get('/favicon.ico', favicon);

  dash.get(DASHBOARD_PATH, async (c) => {
    const s = await sessionOf(c);
    if (!s) {
      const notice = NOTICES[c.req.query('notice') ?? ''];
      return render(c, landing(notice ? { text: notice } : undefined));
    }
    return show(c, s, { notice: NOTICES[c.req.query('notice') ?? ''] });
  });

  // Opening the link (GET, and HEAD through it) reads nothing and spends nothing: it shows the button.
  dash.get(SIGN_IN_PATH, (c) => {
    const token = c.req.query('token') ?? '';
    if (!looksLikeToken(token)) return render(c, landing({ error: true, text: LINK_NOT_VALID }), 400);
    c.header('X-Robots-Tag', 'noindex, nofollow');
    return render(c, signInPage(token));
  });

  /**
   * A form sent from another site is refused: a present `Origin` must be this deployment's, either
   * PUBLIC_BASE_URL's origin (behind a proxy that ends TLS) or the origin the request was addressed to
   * (a browser sets Host itself, so another site cannot make it match its own Origin). An absent
   * Origin (older browsers, curl) is let through: the CSRF token still guards the session's forms.
   */
  const sameOrigin: MiddlewareHandler<AppEnv> = async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== publicOrigin && origin !== new URL(c.req.url).origin) {
      return render(
        c,
        problemPage(
          'Request refused',
          'This form was sent from another site, so it was refused and nothing was changed. Open the dashboard and use its own forms.',
        ),
        403,
      );
    }
    await next();
  };

  /**
   * Sign-in attempts per client address. The RateLimiter port already fits (a rolling window per
   * named bucket), so no map of its own: in memory in the embedded mode (idle buckets are swept), in
   * Redis in the distributed mode, where every API instance counts alike. The address is the
   * connection's peer (getConnInfo): X-Forwarded-For is never read, as the server has no
   * trusted-proxy setting; behind a proxy, every client shares the proxy's address. A refused attempt
   * spends no token.
   */
  const signInLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
    const decision = await deps.limiter.check(signInBucket(clientAddress(c)), SIGN_IN_ATTEMPTS, SIGN_IN_WINDOW_MS, true);
    if (!decision.allowed) {
      const wait = Math.max(1, decision.resetSeconds);
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

  // Every state-changing request: from this origin, a form body of bounded size, and (but sign-in)
  // a live session and its CSRF token.
  const limit = bodyLimit({ maxSize: 16 * 1024, onError: (c) => render(c as Ctx, landing({ error: true, text: 'The form is too large.' }), 413) });
  const post = (path: string, ...handlers: MiddlewareHandler<AppEnv>[]) => dash.post(path, sameOrigin, ...handlers);

  post(SIGN_IN_PATH, signInLimit, limit, async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const signedIn = await sessions.signIn(typeof form.token === 'string' ? form.token : '');
    if (!signedIn) return render(c, landing({ error: true, text: LINK_NOT_VALID }), 400);
    // A new session id at every sign-in; the one this browser had before ends here.
    await sessions.signOut(getCookie(c, cookieName));
    setCookie(c, cookieName, signedIn.sessionId, {
      httpOnly: true,
      sameSite: 'Lax',
      secure,
      path: '/',
      maxAge: Math.floor(SESSION_TTL_MS / 1000),
    });
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'same-origin');
    return c.redirect(DASHBOARD_PATH, 303);
  });

  const guarded =
    (handler: (c: Ctx, s: { id: string; account: Account; csrf: string }, form: Record<string, unknown>) => Promise<Response>) => async (c: Ctx) => {
      const s = await sessionOf(c);
      if (!s) return render(c, landing({ error: true, text: 'Your session has ended. Sign in again with a new link.' }), 401);
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      if (!sessions.csrfMatches(s.id, form.csrf)) {
        return show(c, s, { error: 'The form could not be verified (it may be stale). Reload the page and try again.' }, 403);
      }
      return handler(c, s, form);
    };
  const nameOf = (form: Record<string, unknown>): string | undefined => {
    const name = typeof form.name === 'string' ? form.name.trim() : '';
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a key name with a control character in it is refused
    return name.length >= 1 && name.length <= KEY_NAME_MAX && !/[\u0000-\u001f\u007f]/.test(name) ? name : undefined;
  };
  const ownKey = async (account: Account, shown: string) => {
    const key = await admin.requireKey(shown).catch(() => undefined);
    return key && key.accountId === account.id ? key : undefined;
  };

  post(
    `${DASHBOARD_PATH}/sign-out`,
    limit,
    guarded(async (c, s) => {
      await sessions.signOut(s.id);
      deleteCookie(c, cookieName, { path: '/', secure, httpOnly: true, sameSite: 'Lax' });
      return c.redirect(`${DASHBOARD_PATH}?notice=signed-out`, 303);
    }),
  );

  post(
    `${DASHBOARD_PATH}/keys`,
    limit,
    guarded(async (c, s, form) => {
      const name = nameOf(form);
      if (!name) return show(c, s, { error: `A key name is 1 to ${KEY_NAME_MAX} characters.` }, 400);
      try {
        const { key } = await admin.createKey(s.account.id, name);
        // Answered here, not redirected: the full key never travels in a URL, and is shown this once.
        return show(c, s, { newKey: key }, 201);
      } catch (error) {
        if (error instanceof AdminError) return show(c, s, { error: error.message }, 409);
        throw error;
      }
    }),
  );

  post(
    `${DASHBOARD_PATH}/keys/:key/rename`,
    limit,
    guarded(async (c, s, form) => {
      const key = await ownKey(s.account, c.req.param('key') ?? '');
      if (!key) return show(c, s, { error: 'No such key in this account.' }, 404);
      const name = nameOf(form);
      if (!name) return show(c, s, { error: `A key name is 1 to ${KEY_NAME_MAX} characters.` }, 400);
      await admin.renameKey(key.publicId, name);
      return c.redirect(`${DASHBOARD_PATH}?notice=renamed#keys`, 303);
    }),
  );

  dash.get(`${DASHBOARD_PATH}/keys/:key/revoke`, async (c) => {
    const s = await sessionOf(c);
    if (!s) return render(c, landing({ error: true, text: 'Your session has ended. Sign in again with a new link.' }), 401);
    const key = await ownKey(s.account, c.req.param('key') ?? '');
    if (!key || key.revokedAt !== undefined) return show(c, s, { error: 'No active key of that name in this account.' }, 404);
    const shown = `tts_${key.publicId}`;
    return render(
      c,
      page(
        'Revoke key',
        html`<h1>Revoke <code>${shown}</code>?</h1>
          <p>Key <code>${shown}</code> (“${key.name}”) will stop working at once: the next request made with it is refused with 401. This cannot be undone; you can create a new key afterwards.</p>
          <form class="inline" method="post" action="${DASHBOARD_PATH}/keys/${shown}/revoke">
            <input type="hidden" name="csrf" value="${s.csrf}" />
            <button class="danger" type="submit">Revoke ${shown}</button>
            <a class="button secondary" href="${DASHBOARD_PATH}#keys">Cancel</a>
          </form>`,
        { account: s.account, csrf: s.csrf },
      ),
    );
  });

  post(
    `${DASHBOARD_PATH}/keys/:key/revoke`,
    limit,
    guarded(async (c, s) => {
      const key = await ownKey(s.account, c.req.param('key') ?? '');
      if (!key) return show(c, s, { error: 'No such key in this account.' }, 404);
      await admin.revokeKey(key.publicId);
      return c.redirect(`${DASHBOARD_PATH}?notice=revoked#keys`, 303);
    }),
  );

  app.route('/', dash);
}

/** The connection's peer address; undefined where there is no socket (`app.request()` in tests). */
function clientAddress(c: Ctx): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
