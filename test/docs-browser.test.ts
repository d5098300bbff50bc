import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_EXAMPLE } from '../src/contract/parameter-schemas.js';
import { browserAvailable, launchBrowser, openPage, type OpenedPage } from './helpers/browser.js';
import { removeDir } from './helpers/server.js';
import { listen, type ListeningServer } from './helpers/in-process.js';

/**
 * The API reference's Try-it-out in headless Chromium (Debian's package), against the built reference
 * server: the page offers the origin it is served from as its first server, a submission made there
 * reaches that server (an HTTP answer, not the browser's "Failed to fetch" under the page's
 * Content-Security-Policy), and two submissions carry two different Idempotency-Keys, so the second
 * is a job of its own rather than a replay of the first.
 */
describe.skipIf(!browserAvailable('API reference Try-it-out'))('/docs Try-it-out in Chromium', () => {
  let server: ListeningServer;
  let browser: Browser;
  let docs: OpenedPage;

  beforeAll(async () => {
    [server, browser] = await Promise.all([listen({ RATE_POST_LIMIT: '10' }), launchBrowser()]);
    docs = await openPage(browser, `${server.baseUrl}/docs`);
    await docs.page.locator('#operations-Jobs-submitTts').waitFor({ timeout: 20_000 });
  }, 120_000);

  afterAll(async () => {
    await docs?.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    if (server) await removeDir(server.dataDir);
  });

  /** Clicks Execute and returns the request the page sent and the status line Swagger UI shows. */
  async function execute(page: Page): Promise<{ request: Request; status: number; body: { job_id?: string }; replayed: string | null }> {
    const sent = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/v1/agent-tts');
    const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/v1/agent-tts', { timeout: 60_000 });
    await page.locator('#operations-Jobs-submitTts button.execute').click();
    const [request, response] = await Promise.all([sent, answered]);
    return {
      request,
      status: response.status(),
      body: (await response.json()) as { job_id?: string },
      replayed: response.headers()['idempotent-replayed'] ?? null,
    };
  }

  it('offers the serving origin first, and a submission there reaches the server with a fresh Idempotency-Key each time', async () => {
    const { page } = docs;
    // The servers menu: this deployment first, the document's placeholder after it.
    const servers = await page.locator('.servers select option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
    expect(servers[0]).toBe(server.baseUrl);
    expect(servers).toContain('https://tts.example.com');

    // Authorize with a seeded key.
    await page.locator('button.authorize').first().click();
    await page.locator('.auth-container input').first().fill(server.fixtures.keys.active[0]!);
    await page.locator('.auth-btn-wrapper button.authorize').click();
    await page.locator('.auth-btn-wrapper button.btn-done').click();

    // Open the submission, try it out with the example body.
    await page.locator('#operations-Jobs-submitTts .opblock-summary').click();
    await page.locator('#operations-Jobs-submitTts button.try-out__btn').click();

    const first = await execute(page);
    expect(new URL(first.request.url()).origin).toBe(server.baseUrl);
    // An answer of the server (a job, or at worst the rate limit), never the browser's refusal.
    expect([200, 202, 429], JSON.stringify(first.body)).toContain(first.status);
    const firstKey = first.request.headers()['idempotency-key'];
    expect(firstKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(firstKey).not.toBe(IDEMPOTENCY_KEY_EXAMPLE);
    await expect
      .poll(() => page.locator('#operations-Jobs-submitTts .live-responses-table tbody .response-col_status').first().textContent())
      .toContain(String(first.status));
    expect(await page.locator('#operations-Jobs-submitTts').textContent()).not.toContain('Failed to fetch');

    const second = await execute(page);
    expect([200, 202, 429], JSON.stringify(second.body)).toContain(second.status);
    const secondKey = second.request.headers()['idempotency-key'];
    expect(secondKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(secondKey).not.toBe(firstKey);
    // A job of its own, not a replay of the first.
    expect(second.replayed).toBeNull();
    if (first.status !== 429 && second.status !== 429) expect(second.body.job_id).not.toBe(first.body.job_id);

    expect(docs.outside, 'requests outside the deployment').toEqual([]);
    expect(docs.errors, 'console errors').toEqual([]);
  }, 120_000);
});
