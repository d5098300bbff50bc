import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCues, renderSrt, renderWebVtt, textWords } from '@agent-tts/contract/captions.js';
import type { InProcessServer } from '../../../../test/helpers/in-process.js';
import { createTestServices } from '../../../../test/helpers/test-services.js';
import { newJob } from '../../adapters/contracts/fixtures.contract.js';
import { RedisUnavailableError } from '../../adapters/redis/client.js';
import { DashboardSessions, SIGN_IN_ATTEMPTS, SIGN_IN_TTL_MS } from '../../domain/dashboard.js';
import { dashboardServices } from '../../domain/dashboard-services.js';
import type { Store } from '../../ports/index.js';
import { createApiApp } from '../apps.js';
import { closeServer, listen } from '../listen.js';

let s: InProcessServer;
let sessions: DashboardSessions;

beforeAll(async () => {
  s = await createTestServices({ PUBLIC_BASE_URL: 'https://tts.example.test', BILLING_URL: 'https://tts.example.test/billing' });
  sessions = new DashboardSessions(s.services.store, s.services.clock);
}, 60_000);
afterAll(async () => {
  await s?.close();
});

/**
 * What @hono/node-server hands the app for a connection from `address` (its socket), so that
 * `app.request()` sees a client address. Sign-in attempts are limited per address: each sign-in of
 * these tests comes from an address of its own unless a test says otherwise.
 */
const peer = (address: string) => ({
  incoming: { socket: { remoteAddress: address, remotePort: 40_000, remoteFamily: address.includes(':') ? 'IPv6' : 'IPv4' } },
});
let addresses = 0;
const freshAddress = () => `10.${Math.floor(++addresses / 250)}.${addresses % 250}.1`;

const SAME_ORIGIN = 'https://tts.example.test';
const PAGE_HEADERS = {
  'content-security-policy': expect.stringContaining("default-src 'self'"),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
  'content-type': expect.stringMatching(/^text\/html/),
};
const headersOf = (res: Response) => {
  const all: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    all[name] = value;
  });
  return all;
};

const get = (path: string, cookie?: string, init: RequestInit = {}) =>
  Promise.resolve(s.app.request(path, { ...init, headers: { ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string>) } }));
const post = (path: string, cookie: string | undefined, form: Record<string, string>, options: { origin?: string; address?: string } = {}) =>
  Promise.resolve(
    s.app.request(
      path,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(cookie ? { cookie } : {}),
          ...(options.origin ? { origin: options.origin } : {}),
        },
        body: new URLSearchParams(form).toString(),
      },
      peer(options.address ?? freshAddress()) as never,
    ),
  );

const linkPath = (url: string) => new URL(url).pathname + new URL(url).search;
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

/** Opens a fresh link and selects "Sign in" (the form's POST); returns the cookie and the page's CSRF token. */
async function signIn(accountId: string): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const { url } = await sessions.createSignInLink(accountId, s.services.config.publicBaseUrl);
  const opened = await get(linkPath(url));
  expect(opened.status).toBe(200);
  const token = /name="token" value="([^"]+)"/.exec(await opened.text())![1]!;
  const res = await post('/dashboard/sign-in', undefined, { token }, { origin: SAME_ORIGIN });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe('/dashboard');
  const setCookie = res.headers.get('set-cookie')!;
  const cookie = setCookie.split(';')[0]!;
  const page = await (await get('/dashboard', cookie)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  return { cookie, csrf, setCookie };
}

describe('dashboard sign-in', () => {
  it('opening a link (GET, HEAD, a link previewer) signs nobody in and spends nothing: it shows a button that POSTs the token', async () => {
    const { accountId } = await s.newKey();
    const { url } = await sessions.createSignInLink(accountId, s.services.config.publicBaseUrl);
    const path = linkPath(url);

    const preview = await get(path, undefined, { headers: { 'user-agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' } });
    expect(preview.status).toBe(200);
    expect(preview.headers.get('set-cookie')).toBeNull();
    expect(headersOf(preview)).toMatchObject(PAGE_HEADERS);
    expect(preview.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    const page = await preview.text();
    // The token goes in the form's body, not in its action URL; the page has no inline script.
    expect(page).toContain('<form class="inline" method="post" action="/dashboard/sign-in">');
    expect(page).toContain(`<input type="hidden" name="token" value="${tokenOf(url)}" />`);
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)/);

    const head = await get(path, undefined, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('set-cookie')).toBeNull();
    expect(await get(path)).toHaveProperty('status', 200);

    // After all these, the link still signs in, once.
    const signedIn = await post('/dashboard/sign-in', undefined, { token: tokenOf(url) });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('set-cookie')).toMatch(/^__Host-agent_tts_session=/);
  });

  it('the POST signs in once, with a rotated HttpOnly, SameSite=Lax, Secure session cookie; the page shows the keys', async () => {
    const { key, accountId } = await s.newKey();
    const { url, expiresAt } = await sessions.createSignInLink(accountId, s.services.config.publicBaseUrl);
    expect(url).toMatch(/^https:\/\/tts\.example\.test\/dashboard\/sign-in\?token=[A-Za-z0-9_-]{43}$/);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(SIGN_IN_TTL_MS);
    const token = tokenOf(url);

    const first = await post('/dashboard/sign-in', 'agent_tts_session=old; __Host-agent_tts_session=older', { token }, { origin: SAME_ORIGIN });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/dashboard');
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^__Host-agent_tts_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/Path=\//);
    expect(first.headers.get('referrer-policy')).toBe('same-origin');

    const page = await get('/dashboard', cookie.split(';')[0]);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const body = await page.text();
    expect(body).toContain(`tts_${key.slice(4, 12)}`);
    expect(body).not.toContain(key);

    // Used once: the same token again is refused, and makes no session.
    const again = await post('/dashboard/sign-in', undefined, { token });
    expect(again.status).toBe(400);
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(headersOf(again)).toMatchObject(PAGE_HEADERS);
    expect(await again.text()).toContain('used already');
    // The token is read from the form only: one in the query string signs nobody in.
    const inQuery = await post(`/dashboard/sign-in?token=${token}`, undefined, {});
    expect(inQuery.status).toBe(400);
  });

  it('refuses an expired link and a made-up one', async () => {
    const { accountId } = await s.newKey();
    const { url } = await sessions.createSignInLink(accountId, s.services.config.publicBaseUrl, Date.now() - SIGN_IN_TTL_MS - 1);
    const expired = await post('/dashboard/sign-in', undefined, { token: tokenOf(url) });
    expect(expired.status).toBe(400);
    expect(expired.headers.get('set-cookie')).toBeNull();
    expect(await expired.text()).toContain('This sign-in link is not valid');
    for (const token of ['', 'x', 'A'.repeat(43), '<script>']) {
      const res = await post('/dashboard/sign-in', undefined, { token });
      expect(res.status).toBe(400);
      expect(await res.text()).not.toContain('<script>');
    }
    // A link whose token cannot be one is refused when opened (a shape check: nothing is read or spent).
    for (const token of ['', 'x', '<script>']) {
      const res = await get(`/dashboard/sign-in?token=${encodeURIComponent(token)}`);
      expect(res.status).toBe(400);
      const page = await res.text();
      expect(page).toContain('This sign-in link is not valid');
      expect(page).not.toContain('<script>');
    }
  });

  it(`limits sign-in attempts to ${SIGN_IN_ATTEMPTS} a minute per client address (429 with Retry-After); a refused attempt spends no token`, async () => {
    // Through a real socket: the address is the connection's (127.0.0.1 here), X-Forwarded-For is not read.
    // As src/server/entry/server.ts does: the adapter hands app.fetch the connection along with the request.
    const server = await listen(s.app.fetch, 0, '127.0.0.1', 'PORT');
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const attempt = (token: string, headers: Record<string, string> = {}) =>
        fetch(`${base}/dashboard/sign-in`, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual', headers });
      for (let i = 0; i < SIGN_IN_ATTEMPTS; i++) {
        const res = await attempt('A'.repeat(43), { 'x-forwarded-for': `192.0.2.${i}` });
        expect(res.status, `attempt ${i + 1}`).toBe(400);
        await res.arrayBuffer();
      }
      const { accountId } = await s.newKey();
      const { url } = await sessions.createSignInLink(accountId, s.services.config.publicBaseUrl);
      const limited = await attempt(tokenOf(url), { 'x-forwarded-for': '192.0.2.200' });
      expect(limited.status).toBe(429);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers.get('set-cookie')).toBeNull();
      expect(headersOf(limited)).toMatchObject(PAGE_HEADERS);
      const page = await limited.text();
      expect(page).toContain('Too many sign-in attempts');
      expect(page).toContain(`Wait ${retryAfter} second`);

      // Another address is not limited, and the token refused above still signs in.
      const elsewhere = await post('/dashboard/sign-in', undefined, { token: tokenOf(url) }, { address: '203.0.113.7' });
      expect(elsewhere.status).toBe(303);
    } finally {
      await closeServer(server);
    }
  });

  it('counts an IPv6 client by its /64', async () => {
    for (let i = 0; i < SIGN_IN_ATTEMPTS; i++) {
      expect((await post('/dashboard/sign-in', undefined, { token: 'x' }, { address: `2001:db8:aa:bb::${i + 1}` })).status).toBe(400);
    }
    expect((await post('/dashboard/sign-in', undefined, { token: 'x' }, { address: '2001:db8:aa:bb:ffff:1:2:3' })).status).toBe(429);
    expect((await post('/dashboard/sign-in', undefined, { token: 'x' }, { address: '2001:db8:aa:bc::1' })).status).toBe(400);
  });

  it('refuses a form sent from another origin (403, nothing spent or changed); its own origin and no Origin pass', async () => {
    const { key, accountId } = await s.newKey();
    const { url } = await sessions.createSignInLink(accountId, s.services.config.publicBaseUrl);
    for (const origin of ['https://evil.example', 'http://tts.example.test', 'null']) {
      const res = await post('/dashboard/sign-in', undefined, { token: tokenOf(url) }, { origin });
      expect(res.status, origin).toBe(403);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(headersOf(res)).toMatchObject(PAGE_HEADERS);
      expect(await res.text()).toContain('This form was sent from another site');
    }
    // The token was not spent by the refusals.
    const signedIn = await post('/dashboard/sign-in', undefined, { token: tokenOf(url) }, { origin: SAME_ORIGIN });
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = /name="csrf" value="([^"]+)"/.exec(await (await get('/dashboard', cookie)).text())![1]!;

    const shown = `tts_${key.slice(4, 12)}`;
    for (const [path, form] of [
      [`/dashboard/keys/${shown}/revoke`, { csrf }],
      [`/dashboard/keys/${shown}/rename`, { csrf, name: 'hijacked' }],
      ['/dashboard/keys', { csrf, name: 'x' }],
      ['/dashboard/sign-out', { csrf }],
    ] as const) {
      const res = await post(path, cookie, form, { origin: 'https://evil.example' });
      expect(res.status, path).toBe(403);
    }
    const [record] = await s.services.store.listKeys(accountId);
    expect(record!.revokedAt).toBeUndefined();
    expect(record!.name).toBe('default');
    expect((await get('/dashboard', cookie)).status).toBe(200);
    expect(await (await get('/dashboard', cookie)).text()).toContain('Sign out');

    // The request's own origin (here app.request's http://localhost) and no Origin at all are accepted.
    expect((await post(`/dashboard/keys/${shown}/rename`, cookie, { csrf, name: 'same origin' }, { origin: SAME_ORIGIN })).status).toBe(303);
    expect((await post(`/dashboard/keys/${shown}/rename`, cookie, { csrf, name: 'addressed' }, { origin: 'http://localhost' })).status).toBe(303);
    expect((await post(`/dashboard/keys/${shown}/rename`, cookie, { csrf, name: 'no origin' })).status).toBe(303);
    expect((await s.services.store.getKey(shown.slice(4)))!.name).toBe('no origin');
  });

  it('without a session shows the sign-in explanation, and refuses forms', async () => {
    const landing = await get('/dashboard', 'agent_tts_session=nonsense');
    expect(landing.status).toBe(200);
    expect(await landing.text()).toContain('sign-in-link');
    const refused = await post('/dashboard/keys', undefined, { name: 'x', csrf: 'x' });
    expect(refused.status).toBe(401);
  });

  it('signs out: the session ends on the server, the cookie is cleared', async () => {
    const { accountId } = await s.newKey();
    const { cookie, csrf } = await signIn(accountId);
    const out = await post('/dashboard/sign-out', cookie, { csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    // The old cookie, replayed, is no session any more.
    expect(await (await get('/dashboard', cookie)).text()).toContain('one-time sign-in link');
  });
});

describe('dashboard pages when the store fails', () => {
  /** The API app over the same services, but a store that throws `outage.error` while it is set. */
  const outage: { error?: Error } = {};
  const logged: Record<string, unknown>[] = [];
  let app: ReturnType<typeof createApiApp>;
  beforeAll(() => {
    const store = new Proxy(s.services.store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (outage.error) throw outage.error;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as Store;
    const log = pino(
      { level: 'warn' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          logged.push(JSON.parse(chunk.toString()));
          done();
        },
      }),
    );
    app = createApiApp({
      services: { ...s.services, dashboard: dashboardServices({ ...s.services, ...s.services.config, store }) },
      log,
      shutdown: new AbortController().signal,
      withOps: false,
    });
  });

  it('answers an HTML page with the security headers: 503 with Retry-After when the store does not answer, 500 otherwise', async () => {
    const { accountId } = await s.newKey();
    const { url } = await sessions.createSignInLink(accountId, s.services.config.publicBaseUrl);
    const signedIn = await app.request('/dashboard/sign-in', { method: 'POST', body: new URLSearchParams({ token: tokenOf(url) }) });
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const { url: unused } = await sessions.createSignInLink(accountId, s.services.config.publicBaseUrl);

    outage.error = new RedisUnavailableError('Redis did not answer (GET agent-tts:session:…): no answer within the command timeout');
    try {
      const failures = [
        await app.request('/dashboard', { headers: { cookie } }),
        await app.request('/dashboard/sign-in', { method: 'POST', body: new URLSearchParams({ token: tokenOf(unused) }) }),
      ];
      for (const res of failures) {
        expect(res.status).toBe(503);
        expect(headersOf(res)).toMatchObject({ ...PAGE_HEADERS, 'retry-after': '30' });
        const page = await res.text();
        expect(page).toContain('temporarily unavailable');
        expect(page).not.toContain('Redis');
      }
      // One warning line per outage answered (no stack: an outage is not a bug).
      expect(logged.map((line) => [line.level, line.msg])).toEqual([
        [40, 'dashboard: store unavailable'],
        [40, 'dashboard: store unavailable'],
      ]);
      expect(logged[0]).toMatchObject({ request_id: failures[0]!.headers.get('x-request-id'), path: '/dashboard', error: outage.error.message });

      // Opening a link reads nothing from the store: it still shows the button.
      expect((await app.request(linkPath(unused))).status).toBe(200);

      outage.error = new Error('SQLITE_CORRUPT: database disk image is malformed');
      const broken = await app.request('/dashboard', { headers: { cookie } });
      expect(broken.status).toBe(500);
      expect(headersOf(broken)).toMatchObject(PAGE_HEADERS);
      expect(broken.headers.get('retry-after')).toBeNull();
      const page = await broken.text();
      expect(page).toContain('Something went wrong');
      expect(page).toContain(broken.headers.get('x-request-id'));
      expect(page).not.toContain('SQLITE');
      expect(logged[2]).toMatchObject({
        level: 50,
        msg: 'dashboard: unhandled error',
        request_id: broken.headers.get('x-request-id'),
        err: { message: outage.error.message },
      });
    } finally {
      outage.error = undefined;
    }
    // Once the store answers again, so do the pages, and the link that failed still signs in.
    expect((await app.request('/dashboard', { headers: { cookie } })).status).toBe(200);
    expect((await app.request('/dashboard/sign-in', { method: 'POST', body: new URLSearchParams({ token: tokenOf(unused) }) })).status).toBe(303);
  });
});

describe('dashboard forms', () => {
  it('refuses every form without the session CSRF token, changing nothing', async () => {
    const { key, accountId } = await s.newKey();
    const { cookie, csrf } = await signIn(accountId);
    const shown = `tts_${key.slice(4, 12)}`;
    const other = await signIn(accountId);
    expect(other.csrf).not.toBe(csrf);
    for (const [path, form] of [
      [`/dashboard/keys/${shown}/revoke`, {}],
      [`/dashboard/keys/${shown}/revoke`, { csrf: other.csrf }],
      [`/dashboard/keys/${shown}/rename`, { name: 'hijacked', csrf: csrf.slice(1) }],
      ['/dashboard/sign-out', { csrf: 'x' }],
    ] as const) {
      const res = await post(path, cookie, form);
      expect(res.status, path).toBe(403);
    }
    const [record] = await s.services.store.listKeys(accountId);
    expect(record!.revokedAt).toBeUndefined();
    expect(record!.name).toBe('default');
    expect((await s.request('GET', '/v1/voices', { key })).status).not.toBe(401);
  });

  it('creates a key shown once, refuses a second while one is active, renames and revokes it (the API then answers 401)', async () => {
    const account = await s.admin.createAccount('forms', 'pro');
    const { cookie, csrf } = await signIn(account.id);

    const created = await post('/dashboard/keys', cookie, { name: 'laptop', csrf });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const page = await created.text();
    const key = /id="new-key" type="text" readonly value="(tts_[0-9a-f]{8}_[0-9a-f]{48})"/.exec(page)![1]!;
    expect(page).toContain('It will not be shown again');
    const shown = key.slice(0, 12);
    // Shown once: the next view of the page lists it by its display key only.
    const later = await (await get('/dashboard', cookie)).text();
    expect(later).toContain(shown);
    expect(later).not.toContain(key);
    // While it is active, "Create key" is rendered disabled, with the reason next to it.
    expect(later).toContain('<button type="submit" disabled aria-describedby="create-hint">Create key</button>');
    expect(later).toMatch(/<p class="muted" id="create-hint">[^<]*can have only one/);

    const jobs = await s.request('GET', '/v1/agent-tts?id=00000000-0000-4000-8000-000000000000', { key });
    expect(jobs.status).toBe(404);

    const second = await post('/dashboard/keys', cookie, { name: 'another', csrf });
    expect(second.status).toBe(409);
    expect(await second.text()).toContain('already has an active key');

    const renamed = await post(`/dashboard/keys/${shown}/rename`, cookie, { name: '<b>desk & "co"</b>', csrf });
    expect(renamed.status).toBe(303);
    const afterRename = await (await get('/dashboard', cookie)).text();
    expect(afterRename).toContain('&lt;b&gt;desk &amp; &quot;co&quot;&lt;/b&gt;');
    expect(afterRename).not.toContain('<b>desk');
    expect((await s.services.store.getKey(shown.slice(4)))!.name).toBe('<b>desk & "co"</b>');

    const badName = await post(`/dashboard/keys/${shown}/rename`, cookie, { name: '   ', csrf });
    expect(badName.status).toBe(400);

    const confirm = await get(`/dashboard/keys/${shown}/revoke`, cookie);
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain(`Revoke ${shown}`);
    // Showing the confirmation revokes nothing.
    expect((await s.services.store.getKey(shown.slice(4)))!.revokedAt).toBeUndefined();

    const revoked = await post(`/dashboard/keys/${shown}/revoke`, cookie, { csrf });
    expect(revoked.status).toBe(303);
    const refused = await s.request('GET', '/v1/agent-tts?id=00000000-0000-4000-8000-000000000000', { key });
    expect(refused.status).toBe(401);

    // With no active key, "Create key" is enabled, and a new one can be created.
    const afterRevoke = await (await get('/dashboard', cookie)).text();
    expect(afterRevoke).toMatch(/<button type="submit">Create key<\/button>/);
    expect(afterRevoke).not.toContain('id="create-hint"');
    expect((await post('/dashboard/keys', cookie, { name: 'next', csrf })).status).toBe(201);
  });

  it("cannot touch another account's key", async () => {
    const victim = await s.newKey();
    const { accountId } = await s.newKey();
    const { cookie, csrf } = await signIn(accountId);
    const shown = `tts_${victim.key.slice(4, 12)}`;
    expect((await post(`/dashboard/keys/${shown}/revoke`, cookie, { csrf })).status).toBe(404);
    expect((await post(`/dashboard/keys/${shown}/rename`, cookie, { csrf, name: 'x' })).status).toBe(404);
    expect((await get(`/dashboard/keys/${shown}/revoke`, cookie)).status).toBe(404);
    expect((await s.services.store.getKey(shown.slice(4)))!.revokedAt).toBeUndefined();
  });

  it('shows usage (meter, reset date, retention, billing link) and recent jobs with signed audio URLs', async () => {
    const { key, accountId } = await s.newKey({ plan: 'pro' });
    await s.admin.setUsedMinutes(accountId, 12.5);
    const submitted = await s.request('POST', '/v1/agent-tts', { key, body: { text: 'Hello dashboard.', voice: 'af_heart' } });
    expect(submitted.status).toBe(200);
    const { cookie } = await signIn(accountId);
    const page = await (await get('/dashboard', cookie)).text();
    expect(page).toMatch(/<meter[^>]* max="600"[^>]*value="12\.\d+"/);
    expect(page).toContain('https://tts.example.test/billing');
    expect(page).toContain('7 days');
    const now = new Date();
    const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(page).toContain(`datetime="${reset}"`);
    expect(page).toMatch(
      /<audio controls preload="none" src="https:\/\/tts\.example\.test\/v1\/audio\/[0-9a-f-]{36}\.mp3\?expires=\d+&amp;sig=[A-Za-z0-9_-]{43}"/,
    );
  }, 60_000);

  it('a job that asked for word timings shows download links of its captions (WebVTT, SRT, JSON) that work; a job that did not, none', async () => {
    const { key, accountId } = await s.newKey({ plan: 'pro' });
    const plain = await s.request('POST', '/v1/agent-tts', { key, body: { text: 'No captions here.' } });
    expect(plain.status).toBe(200);
    const plainId = ((await plain.json()) as { job_id: string }).job_id;
    // A finished job that asked, as its run leaves it: completed, its timings beside its audio.
    const text = 'Captions & <cues>, for the dashboard.';
    const timed = newJob(accountId, { text, timestamps: 'word', createdAt: Date.now() + 1000, deleteAfter: Date.now() + 86_400_000 });
    expect(await s.services.store.createJob(timed, 1_000_000)).toEqual({ kind: 'created' });
    await s.services.store.completeJob(timed.id, {
      durationSeconds: 2,
      fileSizeBytes: 1,
      completedAt: Date.now(),
      processingTimeMs: 1,
      chargedCentiminutes: 4,
    });
    const words = textWords(text).map((w, i) => ({ ...w, start: i * 0.4, end: i * 0.4 + 0.3 }));
    const file = { job_id: timed.id, granularity: 'word', duration_seconds: 2, words, cues: buildCues(text, words) };
    await s.services.audio.putTimings(timed.id, new TextEncoder().encode(JSON.stringify(file)));

    const { cookie } = await signIn(accountId);
    const page = await (await get('/dashboard', cookie)).text();
    const links = [...page.matchAll(/<a href="([^"]+)" download="([^"]+)" aria-label="([^"]+)">([^<]+)<\/a>/g)].map((m) => ({
      href: m[1]!.replaceAll('&amp;', '&'),
      download: m[2],
      label: m[3],
      text: m[4],
    }));
    expect(links.map(({ download, label, text: shown }) => [download, label, shown])).toEqual([
      [`${timed.id}.vtt`, `WebVTT captions of job ${timed.id}`, 'WebVTT'],
      [`${timed.id}.srt`, `SRT captions of job ${timed.id}`, 'SRT'],
      [`${timed.id}.json`, `Word timings of job ${timed.id}`, 'JSON'],
    ]);
    expect(page).not.toContain(`download="${plainId}.`);
    const answers = await Promise.all(links.map(({ href }) => get(linkPath(href))));
    expect(answers.map((r) => [r.status, r.headers.get('content-type')])).toEqual([
      [200, 'text/vtt; charset=utf-8'],
      [200, 'application/x-subrip; charset=utf-8'],
      [200, 'application/json'],
    ]);
    const [vtt, srt, json] = await Promise.all(answers.map((r) => r.text()));
    expect(vtt).toBe(renderWebVtt(file));
    expect(srt).toBe(renderSrt(file));
    expect(JSON.parse(json!)).toEqual(file);
  }, 60_000);

  it('names each job by a short id and the start of its text (escaped, cut with an ellipsis) while the store keeps it; durations as m:ss', async () => {
    const { key, accountId } = await s.newKey({ plan: 'pro' });
    const submitted = await s.request('POST', '/v1/agent-tts', { key, body: { text: 'Hello dashboard.', voice: 'af_heart' } });
    expect(submitted.status).toBe(200);
    const doneId = ((await submitted.json()) as { job_id: string }).job_id;
    const done = (await s.services.store.getJob(doneId))!;
    // A job still running keeps its text (the store deletes it when the job finishes).
    const text = 'A <b>bold</b> & "quoted" start,\n then enough words to go past sixty characters of text.';
    const running = { ...done, id: '0f1e2d3c-4b5a-4968-8776-655443322110', status: 'processing' as const, text, progress: 0.5, createdAt: Date.now() + 1000 };
    for (const field of ['completedAt', 'durationSeconds', 'fileSizeBytes', 'processingTimeMs', 'chargedCentiminutes', 'idempotencyKey'] as const)
      delete running[field];
    expect(await s.services.store.createJob(running, 1_000_000)).toEqual({ kind: 'created' });
    const { cookie } = await signIn(accountId);
    const page = await (await get('/dashboard', cookie)).text();
    expect(page).toContain(`<code class="job-id" title="${running.id}" data-job-id="${running.id}">0f1e2d3c</code>`);
    expect(page).toContain('<td data-label="Text" class="text">A &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot; start, then enough words to go past…</td>');
    expect(page).not.toContain('<b>bold');
    // The finished job: its id, no text (deleted), its duration as m:ss with the exact seconds.
    expect(page).toContain(`<code class="job-id" title="${doneId}" data-job-id="${doneId}">${doneId.slice(0, 8)}</code>`);
    expect(page).toMatch(/<td data-label="Text" class="text"><span class="muted" title="[^"]*deleted when the job finishes[^"]*">not kept<\/span><\/td>/);
    const seconds = done.durationSeconds!;
    const exact = Math.round(seconds * 1000) / 1000;
    const shown = `${Math.floor(Math.round(seconds) / 60)}:${String(Math.round(seconds) % 60).padStart(2, '0')}`;
    expect(page).toContain(`<time datetime="PT${exact}S" title="${exact} s">${shown}</time>`);
    expect(page).not.toMatch(/\d s<\/td>/);
  }, 60_000);
});

describe('icon', () => {
  it('serves an SVG icon from the package at /favicon.svg and /favicon.ico, linked from every page', async () => {
    const svg = await get('/favicon.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(svg.headers.get('x-content-type-options')).toBe('nosniff');
    expect(svg.headers.get('content-security-policy')).toBe("default-src 'none'");
    const body = await svg.text();
    expect(body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(body).not.toMatch(/<script|href=/i);
    const ico = await get('/favicon.ico');
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/svg+xml');
    expect(await ico.text()).toBe(body);
    const { accountId } = await s.newKey();
    const { cookie } = await signIn(accountId);
    for (const page of [await get('/dashboard'), await get('/dashboard', cookie), await get(`/dashboard/sign-in?token=${'a'.repeat(43)}`)]) {
      expect(headersOf(page)).toMatchObject(PAGE_HEADERS);
      expect(await page.text()).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml" />');
    }
  });
});

describe('API reference', () => {
  it('serves the committed document, Swagger UI from the package and the page', async () => {
    const json = await get('/openapi.json');
    expect(json.status).toBe(200);
    const doc = (await json.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(Object.keys(doc.paths).length).toBeGreaterThan(2);
    const yaml = await get('/openapi.yaml');
    expect(yaml.headers.get('content-type')).toContain('yaml');
    expect(await yaml.text()).toMatch(/^openapi: /m);
    const bundle = await get('/docs/assets/swagger-ui-bundle.js');
    expect(bundle.headers.get('content-type')).toContain('javascript');
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    const page = await get('/docs');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self';/);
    const body = await page.text();
    expect(body).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(body).not.toMatch(/https?:\/\//);
    expect(body).not.toMatch(/<script>/);
  });
});
