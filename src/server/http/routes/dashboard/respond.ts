import type { AppContext } from '../../context.js';
import type { Html } from './layout.js';

/**
 * Every page: only this origin (no CDN, no inline script), not framed, and a referrer only for this
 * origin (the sign-in token never leaves in a Referer). Not `no-referrer`: under it, browsers send
 * `Origin: null` with a form's POST, which the Origin check of dashboard POSTs must refuse.
 */
const PAGE_CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The security headers of every web page on the API origin (the dashboard's, and the API reference's with its own CSP). */
export function pageHeaders(c: AppContext, csp = PAGE_CSP): void {
  c.header('Content-Security-Policy', csp);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'same-origin');
}

/** A dashboard page as the answer: its security headers, never cached, with `status`. */
export function render(c: AppContext, body: Html, status = 200): Response | Promise<Response> {
  pageHeaders(c);
  c.header('Cache-Control', 'no-store');
  return c.html(body, status as 200);
}
