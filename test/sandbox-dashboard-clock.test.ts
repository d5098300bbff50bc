import { DashboardSessions, SESSION_TTL_MS, SIGN_IN_TTL_MS } from '../src/server/domain/dashboard.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type SandboxCore } from '../src/sandbox/sandbox.js';

/** The account dashboard under the sandbox's clock: its figures and sessions follow the test clock, not real time. */
let sb: SandboxCore;
const BASE = 'http://sandbox.test';

beforeEach(async () => {
  sb = await createSandbox({ baseUrl: BASE, voicesUrl: 'http://voices.test', env: {} });
});
afterEach(() => sb?.close());

const page = (cookie: string) => Promise.resolve(sb.app.request('/dashboard', { headers: { cookie } }));

/** Signs in to the dashboard of an account on the global clock, by a link made on the sandbox's clock. */
async function signIn(sessions: DashboardSessions): Promise<{ cookie: string; expiresAt: number }> {
  const [account] = await sb.services.store.listAccounts();
  const { url, expiresAt } = await sessions.createSignInLink(account!.id, BASE);
  const res = await sb.app.request('/dashboard/sign-in', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: BASE },
    body: new URLSearchParams({ token: new URL(url).searchParams.get('token')! }).toString(),
  });
  expect(res.status).toBe(303);
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, expiresAt };
}

describe('the dashboard on the sandbox clock', () => {
  it('shows the usage month of the test clock and ends sessions when the test clock passes their end', async () => {
    const at = Date.UTC(2031, 4, 20, 12);
    await sb.clock.set(at);
    const sessions = new DashboardSessions(sb.services.store, sb.services.clock);
    const { cookie, expiresAt } = await signIn(sessions);
    // The link expires 15 minutes after the test clock's time, not after real time.
    expect(expiresAt).toBeGreaterThanOrEqual(at + SIGN_IN_TTL_MS);
    expect(expiresAt).toBeLessThan(at + SIGN_IN_TTL_MS + 60_000);

    const shown = await page(cookie);
    expect(shown.status).toBe(200);
    // The monthly minutes reset at the start of the test clock's next month.
    expect(await shown.text()).toContain('<dt>Resets</dt><dd><time datetime="2031-06-01T00:00:00.000Z">');

    await sb.clock.advance(SESSION_TTL_MS / 1000 + 60);
    // The session has ended on the test clock: the landing page, without the account's figures.
    expect(await (await page(cookie)).text()).not.toContain('<dt>Resets</dt>');
  });

  it('follows the clock into the next month', async () => {
    await sb.clock.set(Date.UTC(2030, 11, 31, 23, 30));
    const { cookie } = await signIn(new DashboardSessions(sb.services.store, sb.services.clock));
    expect(await (await page(cookie)).text()).toContain('<time datetime="2031-01-01T00:00:00.000Z">');
    await sb.clock.advance(3600);
    expect(await (await page(cookie)).text()).toContain('<time datetime="2031-02-01T00:00:00.000Z">');
  });
});
