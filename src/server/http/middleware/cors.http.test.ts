import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, getJob } from '../../../../test/helpers/http.js';
import { startInProcessHttp, type SeededServer } from '../../../../test/helpers/in-process.js';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('browser CORS (docs/api-rules.md#cors)', () => {
  let server: SeededServer;
  beforeAll(async () => {
    server = await startInProcessHttp({}, { synth: 'instant' });
  });
  afterAll(async () => {
    await server.close();
  });

  const preflight = (origin: string) =>
    call(`${server.baseUrl}/v1/agent-tts`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' },
    });

  it('allows the first-party origin and preview origins, on preflight and on the request', async () => {
    for (const origin of ['https://app.example.com', 'https://pr-42.preview.example.com']) {
      const pre = await preflight(origin);
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
      expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
      expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('idempotency-key');
      const res = await getJob(server.baseUrl, server.fixtures.keys.active[0], UNKNOWN_ID, { origin });
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-expose-headers')).toContain('Retry-After');
      expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    }
  });

  it('gives other origins no CORS headers', async () => {
    for (const origin of ['https://evil.example.net', 'https://a.b.preview.example.com', 'http://app.example.com', 'https://preview.example.com']) {
      const pre = await preflight(origin);
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
      const res = await getJob(server.baseUrl, server.fixtures.keys.active[0], UNKNOWN_ID, { origin });
      expect(res.status).toBe(404);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('leaves requests without Origin unaffected', async () => {
    const res = await getJob(server.baseUrl, server.fixtures.keys.active[0], UNKNOWN_ID);
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
