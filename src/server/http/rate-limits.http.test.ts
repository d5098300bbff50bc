import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, getJob, postJob, sleep } from '../../../test/helpers/http.js';
import { startInProcessHttp, type SeededServer } from '../../../test/helpers/in-process.js';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('rate limits (docs/api-rules.md#limits): separate POST and GET buckets per key, Retry-After', () => {
  let server: SeededServer;
  beforeAll(async () => {
    server = await startInProcessHttp({ RATE_WINDOW_SECONDS: '8', RATE_GET_LIMIT: '3' }, { synth: 'instant' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('admits one POST per window; the next gets 429 with Retry-After; polling is unaffected', async () => {
    const key = server.fixtures.keys.active[0];
    const first = await postJob(server.baseUrl, key, { text: 'One.' });
    expect([200, 202]).toContain(first.status);
    expect(first.headers.get('ratelimit')).toMatch(/^"post";r=0;t=[1-8]$/);
    const second = await postJob(server.baseUrl, key, { text: 'Two.' });
    expectError(second, 429, 'RATE_LIMITED');
    const retryAfter = Number(second.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(8);
    expect(second.headers.get('ratelimit-policy')).toBe('"post";q=1;w=8');
    // GET has its own bucket.
    expect((await getJob(server.baseUrl, key, first.body.job_id)).status).toBe(200);
    // Another key has its own POST bucket.
    expect([200, 202]).toContain((await postJob(server.baseUrl, server.fixtures.keys.active[1], { text: 'Other key.' })).status);
    await sleep(retryAfter * 1000 + 200);
    expect([200, 202]).toContain((await postJob(server.baseUrl, key, { text: 'Three.' })).status);
  });

  it('does not spend the POST quota on rejected requests', async () => {
    const key = server.fixtures.keys.active[2];
    expectError(await postJob(server.baseUrl, key, { text: '' }), 400, 'INVALID_REQUEST');
    expectError(await postJob(server.baseUrl, key, { text: 'x', speed: 9 }), 400, 'INVALID_REQUEST');
    const bad = await postJob(server.baseUrl, key, 'not json');
    expectError(bad, 400, 'INVALID_REQUEST');
    expect(bad.headers.get('ratelimit')).toMatch(/;r=1;/);
    expect([200, 202]).toContain((await postJob(server.baseUrl, key, { text: 'Now it counts.' })).status);
  });

  it('does not spend the POST quota on a request refused for usage (USAGE_LIMIT_EXCEEDED)', async () => {
    const key = server.fixtures.keys.usage_exhausted!;
    const refused = await postJob(server.baseUrl, key, { text: 'Over the limit.' });
    expectError(refused, 403, 'USAGE_LIMIT_EXCEEDED');
    expect(refused.headers.get('ratelimit')).toMatch(/^"post";r=1;t=/);
    // Minutes bought back: the one POST of the window is still there.
    const keys = JSON.parse((await server.admin(['key', 'list', '--json'])).stdout) as { display_key: string; account_id: string }[];
    const accountId = keys.find((k) => k.display_key === `tts_${key.split('_')[1]}`)!.account_id;
    expect((await server.admin(['account', 'usage', accountId, '--minutes', '0'])).code).toBe(0);
    const next = await postJob(server.baseUrl, key, { text: 'Now it fits.' });
    expect([200, 202], JSON.stringify(next.body)).toContain(next.status);
  });

  it('admits RATE_GET_LIMIT GETs per window, then 429 with Retry-After', async () => {
    const key = server.fixtures.keys.active[3];
    for (let i = 0; i < 3; i++) expectError(await getJob(server.baseUrl, key, UNKNOWN_ID), 404, 'NOT_FOUND');
    const limited = await getJob(server.baseUrl, key, UNKNOWN_ID);
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit')).toMatch(/^"get";r=0;t=\d+$/);
    expect(limited.headers.get('ratelimit-policy')).toBe('"get";q=3;w=8');
    // The POST bucket is separate.
    expect([200, 202]).toContain((await postJob(server.baseUrl, key, { text: 'Still allowed.' })).status);
    await sleep(Number(limited.headers.get('retry-after')) * 1000 + 200);
    expectError(await getJob(server.baseUrl, key, UNKNOWN_ID), 404, 'NOT_FOUND');
  });
});
