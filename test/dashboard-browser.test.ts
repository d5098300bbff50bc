import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformanceCli } from '../conformance/testing/run-cli.js';
import { renderSrt, renderWebVtt, timingsProblems } from '../src/contract/captions.js';
import { browserAvailable, launchBrowser, openPage, type OpenedPage } from './helpers/browser.js';
import { call, getJob, longText, postJob } from './helpers/http.js';
import { runLoadCommand } from './helpers/load.js';
import { ROOT, removeDir } from './helpers/server.js';
import { listen, type ListeningServer } from './helpers/in-process.js';

/**
 * The account dashboard and the API reference in headless Chromium (Debian's package), against the
 * built reference server: sign-in with a link from the admin CLI (opening it shows a button, which
 * signs in), keys (refused second key, revoke, create shown once, rename, revoke), usage, a job's
 * audio played, /docs listing every operation; then the conformance and load reports. No page may
 * request anything outside the deployment. Screenshots go to a temporary folder, or to
 * docs/screenshots/ with UPDATE_SCREENSHOTS=1.
 */
const DESKTOP = { width: 1280, height: 860 };
const JOB_TEXT = 'Hello from the account dashboard.';
const PHONE = { width: 390, height: 844 };

describe.skipIf(!browserAvailable('dashboard and API reference'))('dashboard and API reference in Chromium', () => {
  let server: ListeningServer;
  let browser: Browser;
  let shots: string;
  let accountId: string;
  let cliKey: string;
  let jobId: string;
  let dash: OpenedPage;
  const opened: OpenedPage[] = [];

  const shoot = async (target: Page | Locator, name: string, fullPage = true) => {
    const path = join(shots, `${name}.png`);
    if ('goto' in target) await target.screenshot({ path, fullPage });
    else await target.screenshot({ path });
  };
  /** Desktop and phone screenshots of what the page shows now. */
  const shootBoth = async (page: Page, name: string, part?: string) => {
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await shoot(part ? page.locator(part) : page, `${name}-${size}`);
      // Nothing overflows sideways at either width.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `${name} ${size} width`).toBe(true);
    }
    await page.setViewportSize(DESKTOP);
  };
  const admin = async (args: string[]) => {
    const run = await server.admin([...args, '--json']);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout);
  };

  beforeAll(async () => {
    shots = process.env.UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs/screenshots') : await mkdtemp(join(tmpdir(), 'agent-tts-screens-'));
    await mkdir(shots, { recursive: true });
    [server, browser] = await Promise.all([
      listen({ RATE_POST_LIMIT: '1000', RATE_GET_LIMIT: '1000', BILLING_URL: 'https://billing.example.com/account' }),
      launchBrowser(),
    ]);
    accountId = (await admin(['account', 'create', '--name', 'Ada Lovelace', '--plan', 'pro'])).id;
    cliKey = (await admin(['key', 'create', '--account', accountId, '--name', 'from the CLI'])).key;
    const posted = await postJob(server.baseUrl, cliKey, { text: JOB_TEXT, voice: 'af_heart', timestamps: 'word' });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    jobId = posted.body.job_id;
  }, 120_000);

  afterAll(async () => {
    for (const page of opened) await page.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    if (server) await removeDir(server.dataDir);
  });

  const expectClean = (page: OpenedPage) => {
    expect(page.outside, 'requests outside the deployment').toEqual([]);
    expect(page.errors, 'console errors').toEqual([]);
  };

  it('without a session, explains how to sign in', async () => {
    const landing = await openPage(browser, `${server.baseUrl}/dashboard`);
    opened.push(landing);
    expect(await landing.page.locator('h1').textContent()).toBe('Account dashboard');
    expect(await landing.page.locator('main').textContent()).toContain('one-time sign-in link');
    await shootBoth(landing.page, 'sign-in');
    expectClean(landing);
  });

  it("a link from `account sign-in-link` opens the account's dashboard with its keys and jobs", async () => {
    const unknown = await server.admin(['account', 'sign-in-link', 'no-such-account']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No account no-such-account.');
    const human = await server.admin(['account', 'sign-in-link', accountId]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(`^${server.baseUrl}/dashboard/sign-in\\?token=[A-Za-z0-9_-]{43}\nvalid until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, for one sign-in\n$`),
    );
    const link = await admin(['account', 'sign-in-link', accountId]);
    expect(link.url).toMatch(new RegExp(`^${server.baseUrl}/dashboard/sign-in\\?token=[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(link.expires_at) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(Date.parse(link.expires_at) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    dash = await openPage(browser, link.url);
    opened.push(dash);
    const { page } = dash;
    // Opening the link signs nobody in (a link preview would not use it up): the button does.
    expect(await page.locator('h1').textContent()).toBe('Sign in to the account dashboard');
    expect(await page.context().cookies()).toEqual([]);
    await Promise.all([page.waitForURL(`${server.baseUrl}/dashboard`), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    expect(await page.locator('h1').textContent()).toBe('Ada Lovelace');
    const cookies = await page.context().cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: 'agent_tts_session', httpOnly: true, sameSite: 'Lax' });
    const row = page.locator('#keys tbody tr');
    expect(await row.count()).toBe(1);
    expect(await row.locator('td[data-label="Key"]').textContent()).toBe(cliKey.slice(0, 12));
    expect(await row.locator('td[data-label="Name"]').textContent()).toBe('from the CLI');
    expect(await row.locator('td[data-label="Calls"]').textContent()).toBe('1');
    expect(await page.locator('#jobs tbody tr td[data-label="Status"]').first().textContent()).toBe('completed');
    // The same link a second time signs nobody in.
    const reused = await openPage(browser, link.url);
    opened.push(reused);
    await Promise.all([reused.page.waitForURL(`${server.baseUrl}/dashboard/sign-in`), reused.page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(await reused.page.locator('.error').textContent()).toContain('used already');
    expect(await reused.page.context().cookies()).toEqual([]);
    expectClean(dash);
  });

  it('every field has a label, and the forms are reachable by keyboard', async () => {
    const { page } = dash;
    const unlabelled = await page.evaluate(() =>
      Array.from(document.querySelectorAll('input:not([type=hidden]), meter, audio'))
        .filter((el) => !(el as HTMLInputElement).labels?.length && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
        .map((el) => el.outerHTML),
    );
    expect(unlabelled).toEqual([]);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    const reached = new Set<string>();
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press('Tab');
      reached.add(await page.evaluate(() => document.activeElement?.textContent?.trim() || (document.activeElement as HTMLInputElement)?.name || ''));
    }
    for (const label of ['Sign out', 'Rename', 'Revoke…']) expect([...reached]).toContain(label);
    // While a key is active, "Create key" is disabled, so the keyboard skips it.
    expect([...reached]).not.toContain('Create key');
  });

  it('disables "Create key" while a key is active, saying why; the server still refuses it; revoking after confirmation makes the API answer 401', async () => {
    const { page } = dash;
    const create = page.getByRole('button', { name: 'Create key' });
    expect(await create.isDisabled()).toBe(true);
    expect(await page.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
    const hint = page.locator('#create-hint');
    expect(await hint.isVisible()).toBe(true);
    expect(await hint.textContent()).toContain('can have only one');
    expect(await create.getAttribute('aria-describedby')).toBe('create-hint');
    // A form sent anyway (a page edited in the browser's tools) is refused by the server.
    await Promise.all([
      page.waitForURL(`${server.baseUrl}/dashboard/keys`),
      page.evaluate(() => {
        const form = document.querySelector<HTMLFormElement>('form[action="/dashboard/keys"]')!;
        form.querySelectorAll<HTMLInputElement | HTMLButtonElement>('input, button').forEach((el) => {
          el.disabled = false;
        });
        form.requestSubmit();
      }),
    ]);
    await page.waitForLoadState('load');
    expect(await page.locator('[role=alert]').textContent()).toContain('already has an active key');
    expect(await page.locator('#new-key').count()).toBe(0);
    // The refusal is answered 409, which the browser reports; that is the only error expected here.
    expect(dash.errors).toEqual([expect.stringContaining('409')]);
    dash.errors.length = 0;

    await page.getByRole('link', { name: 'Revoke…' }).click();
    await page.waitForLoadState('load');
    const shown = cliKey.slice(0, 12);
    expect(await page.locator('h1').textContent()).toBe(`Revoke ${shown}?`);
    // Until confirmed, the key works.
    expect((await getJob(server.baseUrl, cliKey, jobId)).status).toBe(200);
    await page.getByRole('button', { name: `Revoke ${shown}` }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('[role=status]').first().textContent()).toContain('revoked');
    expect(await page.locator('#keys tbody tr td[data-label="Status"]').first().textContent()).toMatch(/^revoked /);
    const refused = await getJob(server.baseUrl, cliKey, jobId);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('INVALID_KEY');
    // With no active key, "Create key" is enabled again.
    expect(await page.getByRole('button', { name: 'Create key' }).isEnabled()).toBe(true);
    expect(await page.locator('#create-hint').count()).toBe(0);
  });

  it('creates a key shown once with a copy button, renames it, revokes it (then the API answers 401)', async () => {
    const { page } = dash;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await page.getByLabel('Name', { exact: true }).fill('laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForLoadState('load');
    const key = await page.locator('#new-key').inputValue();
    expect(key).toMatch(/^tts_[0-9a-f]{8}_[0-9a-f]{48}$/);
    expect(await page.locator('.once').textContent()).toContain('It will not be shown again');
    const copy = page.getByRole('button', { name: 'Copy' });
    expect(await copy.isVisible()).toBe(true);
    await copy.click();
    await expect.poll(() => page.locator('#copy-status').textContent()).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await shootBoth(page, 'keys-new-key');

    // The key works, and is never shown in full again.
    const shown = key.slice(0, 12);
    expect((await getJob(server.baseUrl, key, jobId)).status).toBe(200);
    await page.goto(`${server.baseUrl}/dashboard`);
    expect(await page.locator('#new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    expect(await page.locator('#keys tbody tr').first().locator('td[data-label="Key"]').textContent()).toBe(shown);
    // Calls are counted in memory and written once a second: the page shows them after that.
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('#keys tbody tr').first().locator('td[data-label="Calls"]').textContent();
        },
        { timeout: 10_000, interval: 500 },
      )
      .toBe('1');
    expect(await page.locator('#keys tbody tr').first().locator('td[data-label="Last used"] time').count()).toBe(1);

    await page.getByLabel(`New name for ${shown}`).fill('desk <script>');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('[role=status]').first().textContent()).toBe('The key was renamed.');
    expect(await page.locator('#keys tbody tr').first().locator('td[data-label="Name"]').textContent()).toBe('desk <script>');

    await page.getByRole('link', { name: 'Revoke…' }).click();
    await page.waitForLoadState('load');
    await page.getByRole('button', { name: `Revoke ${shown}` }).click();
    await page.waitForLoadState('load');
    expect((await getJob(server.baseUrl, key, jobId)).status).toBe(401);
    expect(await page.locator('#keys td[data-label="Status"]').allTextContents()).toEqual([
      expect.stringMatching(/^revoked /),
      expect.stringMatching(/^revoked /),
    ]);
    expectClean(dash);
  });

  it('shows usage as a meter with the reset date, retention and billing link', async () => {
    const { page } = dash;
    const usage = page.locator('#usage');
    const meter = usage.locator('meter');
    expect(Number(await meter.getAttribute('max'))).toBe(600);
    expect(Number(await meter.getAttribute('value'))).toBeGreaterThan(0);
    const used = Number(await usage.locator('[data-field=used]').textContent());
    const remaining = Number(await usage.locator('[data-field=remaining]').textContent());
    expect(used + remaining).toBeCloseTo(600, 2);
    expect(await usage.textContent()).toContain('7 days');
    expect(await usage.getByRole('link', { name: 'Manage plan and billing' }).getAttribute('href')).toBe('https://billing.example.com/account');
    const now = new Date();
    expect(await usage.locator('time').getAttribute('datetime')).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
    await shootBoth(page, 'usage', '#usage');
  });

  it("plays a completed job's audio from its signed URL", async () => {
    const { page } = dash;
    const audio = page.locator('#jobs audio');
    expect(await audio.count()).toBe(1);
    expect(await audio.getAttribute('src')).toMatch(new RegExp(`^${server.baseUrl}/v1/audio/${jobId}\\.mp3\\?expires=\\d+&sig=`));
    const played = await audio.evaluate(async (el: HTMLAudioElement) => {
      el.muted = true;
      await el.play();
      await new Promise<void>((resolve, reject) => {
        const check = () => (el.currentTime > 0.2 ? resolve() : undefined);
        el.addEventListener('timeupdate', check);
        el.addEventListener('error', () => reject(new Error(`media error ${el.error?.code}`)));
        setTimeout(() => reject(new Error('no playback within 10 s')), 10_000);
      });
      el.pause();
      return { duration: el.duration, currentTime: el.currentTime };
    });
    expect(played.duration).toBeGreaterThan(0.5);
    expect(played.currentTime).toBeGreaterThan(0.2);
    // At a desktop width the player is wide enough for Chromium to show its time and scrubber.
    await page.setViewportSize(DESKTOP);
    expect((await audio.boundingBox())!.width).toBeGreaterThanOrEqual(250);
    // The row names the job (short id, the full one in its title). A finished job's text is deleted
    // by the store, which the row says.
    const row = page.locator('#jobs tbody tr').filter({ has: page.locator('audio') });
    const id = row.locator('td[data-label="Job"] code');
    expect(await id.textContent()).toBe(jobId.slice(0, 8));
    expect(await id.getAttribute('title')).toBe(jobId);
    expect(await row.locator('td[data-label="Text"]').textContent()).toBe('not kept');
    // The duration as m:ss, the exact seconds in the <time> element.
    const duration = row.locator('td[data-label="Duration"] time');
    const seconds = Number(/^PT([\d.]+)S$/.exec((await duration.getAttribute('datetime'))!)![1]);
    expect(seconds).toBeCloseTo(played.duration, 0);
    expect(await duration.getAttribute('title')).toBe(`${seconds} s`);
    expect(await duration.textContent()).toBe(`0:${String(Math.round(seconds)).padStart(2, '0')}`);
    await shootBoth(page, 'jobs', '#jobs');
    await shootBoth(page, 'dashboard');
    expectClean(dash);
  });

  it("downloads a completed job's captions from its row: WebVTT, SRT and the word timings as JSON", async () => {
    const { page } = dash;
    await page.goto(`${server.baseUrl}/dashboard`);
    const row = page.locator('#jobs tbody tr').filter({ has: page.locator('audio') });
    const files: Record<string, string> = {};
    for (const [name, file] of [
      [`WebVTT captions of job ${jobId}`, `${jobId}.vtt`],
      [`SRT captions of job ${jobId}`, `${jobId}.srt`],
      [`Word timings of job ${jobId}`, `${jobId}.json`],
    ] as const) {
      const link = row.getByRole('link', { name });
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      expect(download.suggestedFilename()).toBe(file);
      files[file] = await readFile((await download.path())!, 'utf8');
    }
    const timings = JSON.parse(files[`${jobId}.json`]!);
    expect(timings).toMatchObject({ job_id: jobId, granularity: 'word' });
    expect(timingsProblems(JOB_TEXT, timings)).toEqual([]);
    expect(files[`${jobId}.vtt`]).toBe(renderWebVtt(timings));
    expect(files[`${jobId}.vtt`]).toMatch(/^WEBVTT\n\n1\n00:00:\d\d\.\d{3} --> /);
    expect(files[`${jobId}.srt`]).toBe(renderSrt(timings));
    expectClean(dash);
  });

  it('every dashboard page has its icon from the deployment, and /favicon.ico answers it too', async () => {
    const { page } = dash;
    for (const path of ['/dashboard', `/dashboard/sign-in?token=${'a'.repeat(43)}`]) {
      await page.goto(`${server.baseUrl}${path}`);
      const href = await page.locator('link[rel="icon"]').evaluate((el: HTMLLinkElement) => el.href);
      expect(href).toBe(`${server.baseUrl}/favicon.svg`);
    }
    // The browser fetched the linked icon, and both names give an image it can draw under the page's
    // CSP (a query string makes each a fresh load, not the copy the browser took for the tab).
    expect(dash.requests).toContain(`${server.baseUrl}/favicon.svg`);
    const drawn = await page.evaluate(
      (srcs) =>
        Promise.all(
          srcs.map(
            (src) =>
              new Promise<number | string>((resolve) => {
                const img = new Image();
                img.onload = () => resolve(img.naturalWidth);
                img.onerror = () => resolve(`${src} failed`);
                img.src = `${src}?check`;
              }),
          ),
        ),
      ['/favicon.svg', '/favicon.ico'],
    );
    expect(drawn).toEqual([32, 32]);
    await page.goto(`${server.baseUrl}/dashboard`);
    expectClean(dash);
  });

  it('/docs renders every operation of the committed document from the package (no CDN)', async () => {
    const doc = JSON.parse(await readFile(join(ROOT, 'openapi/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const expected = Object.entries(doc.paths)
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      )
      .sort();
    expect(expected.length).toBeGreaterThan(2);
    const docs = await openPage(browser, `${server.baseUrl}/docs`);
    opened.push(docs);
    const { page } = docs;
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
    const shown = await page
      .locator('.opblock .opblock-summary')
      .evaluateAll((els) =>
        els.map(
          (el) => `${el.querySelector('.opblock-summary-method')?.textContent?.trim()} ${el.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
        ),
      );
    expect([...new Set(shown)].sort()).toEqual(expected);
    expect(docs.requests.some((u) => u.endsWith('/openapi.json'))).toBe(true);
    expect(await page.locator('.swagger-ui .info .title').textContent()).toContain(
      JSON.parse(await readFile(join(ROOT, 'openapi/openapi.json'), 'utf8')).info.title,
    );
    // No validator badge (validatorUrl: null).
    expect(await page.locator('.validator-badge, img[src*="validator"]').count()).toBe(0);
    await shootBoth(page, 'docs');
    expectClean(docs);
    const yaml = await call(`${server.baseUrl}/openapi.yaml`);
    expect(yaml.body).toBe(await readFile(join(ROOT, 'openapi/openapi.yaml'), 'utf8'));
  }, 60_000);

  it("the conformance suite's report.html renders, with nothing fetched from outside", async () => {
    const run = await runConformanceCli(['--fixtures', server.fixturesPath, '--only', 'auth.*']);
    expect(run.code, run.stderr).toBe(0);
    const report = await openPage(browser, `file://${run.outputDir}/report.html`);
    opened.push(report);
    const { page } = report;
    expect(await page.title()).toBe('agent-tts conformance report');
    expect(await page.locator('h1').isVisible()).toBe(true);
    const rules = page.locator('details.rule');
    expect(await rules.count()).toBe(Object.keys(run.outcomes).length);
    expect(await rules.first().isVisible()).toBe(true);
    expect(await page.locator('details.rule.pass').count()).toBeGreaterThan(0);
    expectClean(report);
    await removeDir(run.outputDir);
  }, 90_000);

  it("the load tool's report renders its charts, with nothing fetched from outside", async () => {
    const out = join(server.dataDir, 'load');
    const run = await runLoadCommand([
      '--fixtures',
      server.fixturesPath,
      '--rate',
      '1',
      '--duration',
      '3s',
      '--mix',
      'short=100',
      '--post-limit',
      '1000',
      '--out-dir',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = await openPage(browser, `file://${out}/report.html`);
    opened.push(report);
    const { page } = report;
    expect(await page.title()).toContain('agent-tts-load report');
    expect(await page.locator('svg.chart').count()).toBe(4);
    for (const chart of await page.locator('svg.chart').all()) expect(await chart.isVisible()).toBe(true);
    expectClean(report);
  }, 90_000);
});

/**
 * A running job plays on the dashboard while it is made: its row's player is on the job's signed
 * stream URL (same origin), and Chromium buffers and plays it while polls still say processing.
 * A server of its own that answers every long job 202 at once (INLINE_WAIT_MS 0).
 */
describe.skipIf(!browserAvailable('dashboard, a running job'))('dashboard in Chromium: a running job plays while it is made', () => {
  let server: ListeningServer;
  let browser: Browser;
  let dash: OpenedPage | undefined;

  beforeAll(async () => {
    [server, browser] = await Promise.all([listen({ RATE_POST_LIMIT: '1000', RATE_GET_LIMIT: '1000', INLINE_WAIT_MS: '0' }), launchBrowser()]);
  }, 120_000);
  afterAll(async () => {
    await dash?.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    if (server) await removeDir(server.dataDir);
  });

  it("a processing job's row has a player on its stream_url that buffers and plays before the job completes", async () => {
    const adminJson = async (args: string[]) => {
      const run = await server.admin([...args, '--json']);
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout);
    };
    const accountId = (await adminJson(['account', 'create', '--name', 'Grace Hopper', '--plan', 'pro'])).id;
    const key = (await adminJson(['key', 'create', '--account', accountId, '--name', 'streaming'])).key;
    const link = await adminJson(['account', 'sign-in-link', accountId]);
    // About 100,000 characters: far longer to make than the few seconds the test plays of it.
    const posted = await postJob(server.baseUrl, key, { text: longText(1_200) });
    expect(posted.status, JSON.stringify(posted.body)).toBe(202);
    const jobId: string = posted.body.job_id;

    dash = await openPage(browser, link.url);
    const { page } = dash;
    await Promise.all([page.waitForURL(`${server.baseUrl}/dashboard`), page.getByRole('button', { name: 'Sign in' }).click()]);
    const row = page.locator('#jobs tbody tr');
    expect(await row.count()).toBe(1);
    expect(await row.locator('td[data-label="Status"]').textContent()).toBe('processing');
    const audio = row.locator('audio');
    expect(await audio.count()).toBe(1);
    expect(await audio.getAttribute('src')).toMatch(new RegExp(`^${server.baseUrl}/v1/stream/${jobId}\\.mp3\\?expires=\\d+&sig=[A-Za-z0-9_-]{43}$`));
    expect(await audio.getAttribute('aria-label')).toBe(`Audio of job ${jobId}, as it is made`);
    // Nothing is fetched until it is played.
    expect(dash.requests.filter((u) => u.includes('/v1/stream/'))).toEqual([]);

    const played = await audio.evaluate(async (el: HTMLAudioElement) => {
      el.muted = true;
      await el.play();
      await new Promise<void>((resolve, reject) => {
        const check = () => (el.currentTime > 1 ? resolve() : undefined);
        el.addEventListener('timeupdate', check);
        el.addEventListener('error', () => reject(new Error(`media error ${el.error?.code}`)));
        setTimeout(() => reject(new Error('no 1 s of playback within 20 s')), 20_000);
      });
      return { currentTime: el.currentTime, buffered: el.buffered.length ? el.buffered.end(0) : 0 };
    });
    // Checked after the audio played: the job was still being made all along.
    const polled = await getJob(server.baseUrl, key, jobId);
    expect(polled.body.status).toBe('processing');
    expect(played.currentTime).toBeGreaterThan(1);
    expect(played.buffered).toBeGreaterThan(played.currentTime);
    // The player's requests went to this deployment only, to the stream URL.
    expect(dash.requests.filter((u) => u.includes(`/v1/stream/${jobId}.mp3`)).length).toBeGreaterThanOrEqual(1);
    expect(dash.outside).toEqual([]);
    expect(dash.errors).toEqual([]);
    await audio.evaluate((el: HTMLAudioElement) => {
      el.pause();
      el.removeAttribute('src');
      el.load();
    });
  }, 120_000);
});
