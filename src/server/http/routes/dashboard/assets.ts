import type { Hono } from 'hono';
import { DASHBOARD_PATH } from '../../../domain/dashboard.js';
import type { AppContext, AppEnv } from '../../context.js';

/**
 * The dashboard's stylesheet and its one script, served by the app itself (no build step, no CDN).
 * Colours meet WCAG AA contrast on their backgrounds; the layout works from a 320 px wide phone up.
 */
const DASHBOARD_CSS = `
:root { --fg: #1a1a1a; --muted: #4a4a4a; --bg: #ffffff; --panel: #f4f5f7; --line: #c9ccd1; --accent: #0b57d0;
  --danger: #b3261e; --ok: #146c2e; --warn-bg: #fff4ce; --focus: #0b57d0; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, audio:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px 8px; z-index: 1; }
header { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; justify-content: space-between; padding: 12px 16px;
  border-bottom: 1px solid var(--line); background: var(--panel); }
header .brand { font-weight: 700; color: var(--fg); text-decoration: none; }
header nav { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: center; }
main { max-width: 1040px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.5rem; margin: 8px 0 16px; }
h2 { font-size: 1.25rem; margin: 32px 0 12px; }
section { margin-bottom: 24px; }
.muted { color: var(--muted); }
.notice, .error, .once { border-radius: 6px; padding: 12px 16px; margin: 12px 0; }
.notice { background: #e6f4ea; color: var(--ok); border: 1px solid #9fd3ae; }
.error { background: #fce8e6; color: var(--danger); border: 1px solid #f1a9a3; }
.once { background: var(--warn-bg); border: 1px solid #e0c45c; }
.once p { margin: 0 0 8px; }
.key-value { display: flex; flex-wrap: wrap; gap: 8px; }
.key-value input { flex: 1 1 20ch; min-width: 0; font: 14px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; padding: 8px; }
input[type=text] { padding: 8px; font: inherit; border: 1px solid #767676; border-radius: 4px; max-width: 100%; }
button, .button { font: inherit; padding: 8px 14px; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent);
  color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: var(--bg); color: var(--accent); }
button.danger, .button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
button.link { background: none; border: none; color: var(--accent); text-decoration: underline; padding: 0; }
form.inline { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.status-revoked, .status-failed { color: var(--danger); }
.status-active, .status-completed { color: var(--ok); }
dl.usage { display: grid; grid-template-columns: max-content 1fr; gap: 6px 16px; margin: 0; }
dl.usage dt { font-weight: 600; }
dl.usage dd { margin: 0; }
meter { width: min(100%, 360px); height: 20px; }
audio { width: min(100%, 300px); }
table.jobs td[data-label="Text"] { min-width: 12ch; overflow-wrap: anywhere; }
/* The player keeps its time and scrubber: a table cell would otherwise shrink it to a play button. */
table.jobs audio { width: 280px; max-width: none; display: block; }
table.jobs p.captions { margin: 6px 0 0; font-size: 0.875rem; }
button:disabled, input:disabled { cursor: not-allowed; }
button:disabled { background: #e3e5e8; border-color: #9aa0a6; color: #3c4043; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
@media (max-width: 640px) {
  table, thead, tbody, tr, th, td { display: block; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  tr { border: 1px solid var(--line); border-radius: 6px; margin-bottom: 12px; padding: 4px 0; }
  td { border: none; padding: 4px 12px; }
  td::before { content: attr(data-label); display: block; font-weight: 600; color: var(--muted); font-size: 0.875rem; }
  dl.usage { grid-template-columns: 1fr; gap: 2px; }
  dl.usage dd { margin-bottom: 8px; }
  table.jobs audio { width: 100%; }
}
`;

/** Progressive enhancement: the copy button appears only where the Clipboard API is there. */
const DASHBOARD_JS = `
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  var field = document.getElementById(button.getAttribute('data-copy'));
  var status = document.getElementById(button.getAttribute('data-status'));
  if (!field || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener('click', function () {
    navigator.clipboard.writeText(field.value).then(function () {
      if (status) status.textContent = 'Copied to the clipboard.';
    }, function () {
      field.select();
      if (status) status.textContent = 'Select the key and copy it.';
    });
  });
});
`;

/** The pages' icon (a speaker with sound waves), served at /favicon.svg and /favicon.ico. */
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32">
<rect width="32" height="32" rx="6" fill="#0b57d0"/>
<path d="M7 13h4l6-5v16l-6-5H7z" fill="#fff"/>
<path d="M20 12.5a5 5 0 0 1 0 7M23 9.5a9 9 0 0 1 0 13" fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round"/>
</svg>
`;

/** Serves the stylesheet, the script and the pages' icon (/favicon.ico answers the same SVG, for clients that ask for it by that name). */
export function registerAssetRoutes(app: Hono<AppEnv>): void {
  app.get(`${DASHBOARD_PATH}/assets/dashboard.css`, (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(DASHBOARD_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' });
  });
  app.get(`${DASHBOARD_PATH}/assets/dashboard.js`, (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(DASHBOARD_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
  });
  const favicon = (c: AppContext) => {
    c.header('Cache-Control', 'public, max-age=86400');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Content-Security-Policy', "default-src 'none'");
    return c.body(FAVICON_SVG, 200, { 'Content-Type': 'image/svg+xml' });
  };
  app.get('/favicon.svg', favicon);
  app.get('/favicon.ico', favicon);
}
