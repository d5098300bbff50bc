import { readFile } from 'node:fs/promises';
import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../contract/document.js';
import type { InProcessServer } from '../../../test/helpers/in-process.js';
import { createTestServices } from '../../../test/helpers/test-services.js';
import type { AppEnv } from './context.js';

const registeredRoutes = (...apps: OpenAPIHono<AppEnv>[]) =>
  apps.flatMap((app) => app.openAPIRegistry.definitions.flatMap((d) => (d.type === 'route' ? [d.route as RouteConfig] : [])));

describe('the listeners the server is made of', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await createTestServices();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('registers exactly the contract’s routes: the document they make is the committed one', async () => {
    const committed = JSON.parse(await readFile(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'));
    const routes = registeredRoutes(server.app, server.voicesApp);
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'get /api/v1/voices',
      'get /v1/agent-tts',
      'get /v1/audio/{job_id}.mp3',
      'get /v1/captions/{job_id}.{format}',
      'get /v1/stream/{job_id}.mp3',
      'post /v1/agent-tts',
    ]);
    expect(buildOpenApiDocument(routes)).toEqual(committed);
  });

  it('answers unknown paths with NOT_FOUND and the error body, on every listener', async () => {
    for (const app of [server.app, server.voicesApp, server.opsApp]) {
      const res = await app.request('/nowhere');
      expect(res.status).toBe(404);
      const body = await res.json();
      expect(body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' }, meta: { api_version: '2026-04' } });
      expect(res.headers.get('x-request-id')).toBe(body.meta.request_id);
    }
  });

  it('answers another method with 405, Allow and INVALID_REQUEST; a plain OPTIONS with 204 and Allow', async () => {
    const cases: [OpenAPIHono<AppEnv>, string, string][] = [
      [server.app, '/v1/agent-tts', 'GET, POST, OPTIONS'],
      [server.app, '/v1/audio/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f.mp3', 'GET, HEAD, OPTIONS'],
      [server.app, '/v1/captions/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f.vtt', 'GET, HEAD, OPTIONS'],
      [server.voicesApp, '/api/v1/voices', 'GET, OPTIONS'],
    ];
    for (const [app, path, allow] of cases) {
      const res = await app.request(path, { method: 'DELETE' });
      expect(res.status, path).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect((await res.json()).error.code).toBe('INVALID_REQUEST');
      const options = await app.request(path, { method: 'OPTIONS' });
      expect(options.status).toBe(204);
      expect(options.headers.get('allow')).toBe(allow);
    }
  });

  it('serves the voice catalog without a key', async () => {
    const res = await server.voicesApp.request('/api/v1/voices');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.count).toBe(body.voices.length);
    expect(body.voices.map((v: { id: string }) => v.id)).toEqual(expect.arrayContaining(['af_heart', 'st_m1']));
    expect(body.meta.api_version).toBe('2026-04');
  });

  it('serves /healthz, /readyz and /metrics on the API listener when no OPS_PORT is set', async () => {
    expect((await server.app.request('/healthz')).status).toBe(200);
    const ready = await server.app.request('/readyz');
    expect(ready.status).toBe(200);
    expect((await ready.json()).checks).toEqual({ store: 'ok', audio_storage: 'ok' });
    const metrics = await server.app.request('/metrics');
    expect(await metrics.text()).toContain('agent_tts_http_requests_total');
  });
});

describe('with OPS_PORT, operations endpoints leave the public listener', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await createTestServices({ OPS_PORT: '0' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers them on the operations app only', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect((await server.app.request(path)).status, path).toBe(404);
      expect((await server.opsApp.request(path)).status, path).toBe(200);
    }
  });

  it('names the failing check in /readyz without echoing the backend’s error text', async () => {
    const original = server.services.audio.ping.bind(server.services.audio);
    server.services.audio.ping = () => Promise.reject(new Error('EACCES: permission denied, /secret/path'));
    try {
      const res = await server.opsApp.request('/readyz');
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body.error.code).toBe('INTERNAL_ERROR');
      expect(body.error.details.checks).toEqual({ store: 'ok', audio_storage: 'unreachable' });
      expect(body.error.message).toContain('audio_storage unreachable');
      expect(JSON.stringify(body)).not.toContain('/secret/path');
    } finally {
      server.services.audio.ping = original;
    }
  });
});
