import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, expectMeta, getJob, postJob, sleep } from '../../../../test/helpers/http.js';
import { startInProcessHttp, type SeededServer } from '../../../../test/helpers/in-process.js';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('authentication (docs/api-rules.md#authentication) and keys (§2.1, §3.2)', () => {
  let server: SeededServer;
  beforeAll(async () => {
    server = await startInProcessHttp({}, { synth: 'instant' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 401 INVALID_KEY with WWW-Authenticate for a missing or malformed header', async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer not-a-key' },
      { authorization: `Bearer tts_ABCDEF12_${'0'.repeat(48)}` },
      { authorization: `Bearer tts_abcdef12_${'0'.repeat(47)}` },
      { authorization: `Bearer xyz_abcdef12_${'0'.repeat(48)}` },
    ];
    for (const headers of cases) {
      const res = await call(`${server.baseUrl}/v1/agent-tts?id=${UNKNOWN_ID}`, { headers });
      expectError(res, 401, 'INVALID_KEY');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('refuses an unknown key and a wrong secret alike, without echoing the secret', async () => {
    const real = server.fixtures.keys.active[0]!;
    const wrongSecret = real.slice(0, 13) + (real[13] === 'a' ? 'b' : 'a') + real.slice(14);
    for (const key of [`tts_0badc0de_${'1'.repeat(48)}`, wrongSecret]) {
      const res = await getJob(server.baseUrl, key, UNKNOWN_ID);
      expectError(res, 401, 'INVALID_KEY');
      expect(JSON.stringify(res.body)).not.toContain(key.slice(13));
    }
  });

  it('refuses revoked keys (401), inactive subscriptions and plans without API access (403)', async () => {
    const { revoked, inactive_subscription, no_api_access } = server.fixtures.keys;
    expectError(await getJob(server.baseUrl, revoked, UNKNOWN_ID), 401, 'INVALID_KEY');
    expectError(await postJob(server.baseUrl, revoked, { text: 'hi' }), 401, 'INVALID_KEY');
    expectError(await getJob(server.baseUrl, inactive_subscription, UNKNOWN_ID), 403, 'INACTIVE_SUBSCRIPTION');
    expectError(await postJob(server.baseUrl, inactive_subscription, { text: 'hi' }), 403, 'INACTIVE_SUBSCRIPTION');
    expectError(await getJob(server.baseUrl, no_api_access, UNKNOWN_ID), 403, 'NO_API_ACCESS');
    const refused = await postJob(server.baseUrl, no_api_access, { text: 'hi' });
    expectError(refused, 403, 'NO_API_ACCESS');
    // The key is valid, so its buckets are reported (and nothing was taken from them); a 401 has none.
    expect(refused.headers.get('ratelimit')).toMatch(/^"post";r=1;t=\d+$/);
    const refusedGet = await getJob(server.baseUrl, inactive_subscription, UNKNOWN_ID);
    expect(refusedGet.headers.get('ratelimit')).toMatch(/^"get";r=30;t=\d+$/);
    expect(refusedGet.headers.get('ratelimit-policy')).toBe('"get";q=30;w=60');
    expect((await getJob(server.baseUrl, revoked, UNKNOWN_ID)).headers.get('ratelimit')).toBeNull();
  });

  it('keeps last-used time and call count per key', async () => {
    const key = server.fixtures.keys.active[1]!;
    const publicId = key.slice(4, 12);
    for (let i = 0; i < 3; i++) expectMeta(await getJob(server.baseUrl, key, UNKNOWN_ID));
    // Counts are written once a second.
    let list!: { stdout: string };
    let row!: { call_count: number; last_used_at: string; created_at: string };
    for (let attempt = 0; attempt < 20; attempt++) {
      await sleep(500);
      list = await server.admin(['key', 'list', '--json']);
      row = JSON.parse(list.stdout).find((r: { display_key: string }) => r.display_key === `tts_${publicId}`);
      if (row.call_count >= 3) break;
    }
    expect(row.call_count).toBe(3);
    expect(Date.parse(row.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(row.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(list.stdout).not.toContain(key.slice(13));
  });

  it('creates a key shown once, refuses a second active key, and revokes at once', async () => {
    const account = JSON.parse((await server.admin(['account', 'create', '--name', 'acme', '--plan', 'pro', '--json'])).stdout);
    const created = await server.admin(['key', 'create', '--account', account.id, '--name', 'ci']);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^tts_[0-9a-f]{8}_[0-9a-f]{48}$/);
    expect(created.stderr).toMatch(/shown once/);

    const second = await server.admin(['key', 'create', '--account', account.id]);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toMatch(/at most 1/);

    expectError(await getJob(server.baseUrl, key, UNKNOWN_ID), 404, 'NOT_FOUND');
    const display = key.slice(0, 12);
    expect((await server.admin(['key', 'rename', display, 'renamed', 'key'])).code).toBe(0);
    // Without a terminal and without --yes, revoking is refused.
    expect((await server.admin(['key', 'revoke', display])).code).toBe(3);
    expectError(await getJob(server.baseUrl, key, UNKNOWN_ID), 404, 'NOT_FOUND');
    const revoke = await server.admin(['key', 'revoke', display, '--yes']);
    expect(revoke.stdout).toContain(`${display} revoked`);
    expectError(await getJob(server.baseUrl, key, UNKNOWN_ID), 401, 'INVALID_KEY');

    const list = JSON.parse((await server.admin(['key', 'list', '--account', account.id, '--json'])).stdout);
    expect(list).toEqual([expect.objectContaining({ display_key: display, name: 'renamed key', state: 'revoked' })]);
    // After revoking, a new key can be created.
    expect((await server.admin(['key', 'create', '--account', account.id])).code).toBe(0);
  });

  it('switches subscription and plan at once through the admin CLI', async () => {
    const account = JSON.parse((await server.admin(['account', 'create', '--name', 'switch', '--plan', 'free', '--json'])).stdout);
    const key = (await server.admin(['key', 'create', '--account', account.id])).stdout.trim();
    expectError(await getJob(server.baseUrl, key, UNKNOWN_ID), 404, 'NOT_FOUND');
    await server.admin(['account', 'set', account.id, '--subscription', 'inactive']);
    expectError(await getJob(server.baseUrl, key, UNKNOWN_ID), 403, 'INACTIVE_SUBSCRIPTION');
    await server.admin(['account', 'set', account.id, '--subscription', 'active', '--plan', 'basic']);
    expectError(await getJob(server.baseUrl, key, UNKNOWN_ID), 403, 'NO_API_ACCESS');
  });

  it('never writes a full key to its logs', async () => {
    for (const key of [...server.fixtures.keys.active, server.fixtures.keys.revoked!]) {
      expect(server.logs()).not.toContain(key.slice(13));
    }
    expect(server.logs()).toContain(`"key":"${server.fixtures.keys.active[1]!.slice(0, 12)}"`);
  });
});
