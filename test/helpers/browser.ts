import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';

/**
 * Headless Chromium for tests of pages: Debian's `chromium` package driven by playwright-core (never a
 * downloaded browser). Without it a suite is skipped and says why, except with CI=true, where a
 * missing browser is a failure (.ci/ensure-chromium.sh installs it).
 */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser cannot be used here, or undefined when it can. */
function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM_PATH) ? undefined : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or .ci/ensure-chromium.sh)`;
}

/**
 * For `describe.skipIf(!browserAvailable(...))`: true when Chromium is there. Otherwise prints one line
 * saying the suite is skipped and why, or, with CI=true, throws so the run fails.
 */
export function browserAvailable(suite: string): boolean {
  const missing = chromiumMissing();
  if (!missing) return true;
  if (process.env.CI === 'true') throw new Error(`Browser suite "${suite}" cannot run with CI=true: ${missing}`);
  console.log(`Browser suite skipped (${suite}): ${missing}`);
  return false;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export interface OpenedPage {
  page: Page;
  /** Every request the page made, allowed or not, in order (URLs). */
  requests: string[];
  /** Requests to anywhere outside `allowedOrigins` (these were aborted, never sent). */
  outside: string[];
  /** Console errors and uncaught page errors. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * Opens `url` in a fresh context. Every request is recorded; one to an origin not in `allowedOrigins`
 * (file: URLs count as the origin `file://`) is aborted and listed in `outside`, so a test can assert
 * that a page makes no request beyond its own deployment (no CDN, no fonts, no analytics).
 */
export async function openPage(browser: Browser, url: string, opts: { allowedOrigins?: string[] } = {}): Promise<OpenedPage> {
  const allowed = new Set(opts.allowedOrigins ?? [originOf(url)]);
  const context = await browser.newContext({ offline: false, javaScriptEnabled: true });
  const page = await context.newPage();
  const requests: string[] = [];
  const outside: string[] = [];
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  // Recorded from the context (file: and data: URLs included); blocked by route (what would leave the machine).
  context.on('request', (request: Request) => requests.push(request.url()));
  await context.route('**/*', async (route) => {
    const target = route.request().url();
    if (allowed.has(originOf(target))) await route.continue();
    else {
      outside.push(target);
      await route.abort('blockedbyclient');
    }
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, requests, outside, errors, close: () => context.close() };
}

function originOf(url: string): string {
  const u = new URL(url);
  return u.protocol === 'file:' ? 'file://' : u.origin;
}
