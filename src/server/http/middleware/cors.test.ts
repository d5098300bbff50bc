import { describe, expect, it } from 'vitest';
import { createLogger } from '../../log.js';
import { createApp } from '../create-app.js';
import { cors } from './cors.js';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../context.js';
import { loadConfig } from '../../config.js';

/**
 * The CORS middleware (docs/api-rules.md#cors) with the origins as configuration parses them: the
 * first-party origin and preview origins get CORS headers on preflight and request, any other origin
 * none, and requests without Origin are unaffected.
 */
const { origins, previewPattern } = loadConfig({ CORS_ORIGINS: 'https://app.example.com', CORS_PREVIEW_PATTERN: 'https://*.preview.example.com' }).cors;

function app() {
  const a = new OpenAPIHono<AppEnv>();
  a.use(cors(origins, previewPattern));
  a.get('/v1/agent-tts', (c) => c.json({ ok: true }, 404));
  a.post('/v1/agent-tts', (c) => c.json({ ok: true }));
  return a;
}

const preflight = (origin: string) =>
  app().request('/v1/agent-tts', {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' },
  });

const ALLOWED = ['https://app.example.com', 'https://APP.example.com', 'https://pr-42.preview.example.com'];
const REFUSED = ['https://evil.example.net', 'https://a.b.preview.example.com', 'http://app.example.com', 'https://preview.example.com', 'null'];

describe('cors', () => {
  it('answers a preflight from an allowed origin with 204 and the allowed methods, headers and max age', async () => {
    for (const origin of ALLOWED) {
      const pre = await preflight(origin);
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
      expect(pre.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
      expect(pre.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Idempotency-Key, User-Agent');
      expect(pre.headers.get('access-control-max-age')).toBe('600');
      expect(pre.headers.get('vary')).toBe('Origin');
      expect(await pre.text()).toBe('');
    }
  });

  it('exposes the response headers clients read to an allowed origin, on answers of any status', async () => {
    for (const origin of ALLOWED) {
      for (const method of ['GET', 'POST']) {
        const res = await app().request('/v1/agent-tts', { method, headers: { origin } });
        expect(res.status).toBe(method === 'GET' ? 404 : 200);
        expect(res.headers.get('access-control-allow-origin')).toBe(origin);
        expect(res.headers.get('access-control-expose-headers')).toBe(
          'Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, Idempotent-Replayed, WWW-Authenticate, Agent-TTS-Sandbox',
        );
        expect(res.headers.get('vary')).toBe('Origin');
      }
    }
  });

  it('gives other origins no CORS headers, on preflight and on the request, which still runs', async () => {
    for (const origin of REFUSED) {
      const pre = await preflight(origin);
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
      expect(pre.headers.get('access-control-allow-methods')).toBeNull();
      expect(pre.headers.get('vary')).toBe('Origin');
      const res = await app().request('/v1/agent-tts', { headers: { origin } });
      expect(res.status).toBe(404);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-expose-headers')).toBeNull();
    }
  });

  it('leaves requests without Origin unaffected, and an OPTIONS that is no preflight to the routes', async () => {
    const res = await app().request('/v1/agent-tts');
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('vary')).toBe('Origin');
    // Without Access-Control-Request-Method it is not a preflight: no route answers OPTIONS here.
    const options = await app().request('/v1/agent-tts', { method: 'OPTIONS', headers: { origin: ALLOWED[0]! } });
    expect(options.status).toBe(404);
    expect(options.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('allows no origin at all when none is configured', async () => {
    const a = new OpenAPIHono<AppEnv>();
    a.use(cors([]));
    a.get('/', (c) => c.text('ok'));
    const res = await a.request('/', { headers: { origin: 'https://app.example.com' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers preflights in the app shell too, before the 404 of an unknown path', async () => {
    const shell = createApp({ log: createLogger('silent'), notFoundHint: 'none', cors: { origins, previewPattern } });
    const pre = await shell.request('/nowhere', { method: 'OPTIONS', headers: { origin: ALLOWED[0]!, 'access-control-request-method': 'GET' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(ALLOWED[0]);
    expect(pre.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await shell.request('/nowhere', { headers: { origin: ALLOWED[0]! } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(ALLOWED[0]);
  });
});
