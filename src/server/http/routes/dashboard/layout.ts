import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { DASHBOARD_PATH } from '../../../domain/dashboard.js';
import type { DashboardAccount } from '../../../domain/dashboard-services.js';

/** A rendered piece of a page (hono/html's template result). */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** A time as a `<time>` in UTC to the minute, or "never". */
export function when(ms: number | undefined): Html {
  if (ms === undefined) return html`<span class="muted">never</span>`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/**
 * The frame of every dashboard page: head, icon, stylesheet and script of this origin, and the
 * navigation (with the sign-out form when an account is signed in).
 */
export function page(title: string, body: Html, options: { account?: DashboardAccount; csrf?: string } = {}): Html {
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
