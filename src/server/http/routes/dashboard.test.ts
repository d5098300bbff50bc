import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../../../../test/helpers/in-process.js';
import { DashboardSessions, SIGN_IN_TTL_MS } from '../../domain/dashboard.js';

let s: InProcessServer;
let sessions: DashboardSessions;

beforeAll(async () => {
  s = await startInProcess({ PUBLIC_BASE_URL: 'https://tts.example.test', BILLING_URL: 'https://tts.example.test/billing' });
  sessions = new DashboardSessions(s.services.store);
}, 60_000);
afterAll(async () => {
  await s?.close();
});

const get = (path: string, cookie?: string) => Promise.resolve(s.app.request(path, { headers: cookie ? { cookie } : {} }));
const post = (path: string, cookie: string | undefined, form: Record<string, string>) =>
  Promise.resolve(
    s.app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(form).toString(),
    }),
  );

/** Signs in through a fresh link; returns the cookie and the page's CSRF token. */
async function signIn(accountId: string): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const { url } = await sessions.createSignInLink(accountId, s.services.config.publicBaseUrl);
  const res = await get(new URL(url).pathname + new URL(url).search);
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe('/dashboard');
  const setCookie = res.headers.get('set-cookie')!;
  const cookie = setCookie.split(';')[0]!;
  const page = await (await get('/dashboard', cookie)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  return { cookie, csrf, setCookie };
}

describe('dashboard sign-in', () => {
  it('a link signs in once, with a rotated HttpOnly, SameSite=Lax, Secure session cookie; the page shows the keys', async () => {
    const { key, accountId } = await s.newKey();
    const { url, expiresAt } = await sessions.createSignInLink(accountId, s.services.config.publicBaseUrl);
    expect(url).toMatch(/^https:\/\/tts\.example\.test\/dashboard\/sign-in\?token=[A-Za-z0-9_-]{43}$/);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(SIGN_IN_TTL_MS);
    const path = new URL(url).pathname + new URL(url).search;

    const first = await get(path, 'agent_tts_session=old; __Host-agent_tts_session=older');
    expect(first.status).toBe(303);
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^__Host-agent_tts_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/Path=\//);
    expect(first.headers.get('referrer-policy')).toBe('no-referrer');

    const page = await get('/dashboard', cookie.split(';')[0]);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const body = await page.text();
    expect(body).toContain(`tts_${key.slice(4, 12)}`);
    expect(body).not.toContain(key);

    // Used once: the same link again is refused, and makes no session.
    const again = await get(path);
    expect(again.status).toBe(400);
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(await again.text()).toContain('used already');
  });

  it('refuses an expired link and a made-up one', async () => {
    const { accountId } = await s.newKey();
    const { url } = await sessions.createSignInLink(accountId, s.services.config.publicBaseUrl, Date.now() - SIGN_IN_TTL_MS - 1);
    const expired = await get(new URL(url).pathname + new URL(url).search);
    expect(expired.status).toBe(400);
    expect(expired.headers.get('set-cookie')).toBeNull();
    for (const token of ['', 'x', 'A'.repeat(43), '<script>']) {
      const res = await get(`/dashboard/sign-in?token=${encodeURIComponent(token)}`);
      expect(res.status).toBe(400);
      expect(await res.text()).not.toContain('<script>');
    }
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

    // With no active key, a new one can be created.
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
    expect(page).toMatch(/<audio controls preload="none" src="https:\/\/tts\.example\.test\/v1\/audio\/[0-9a-f-]{36}\.mp3\?expires=\d+&amp;sig=[A-Za-z0-9_-]{43}"/);
  }, 60_000);
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
