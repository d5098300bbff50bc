import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { API_VERSION } from '@agent-tts/contract/limits.js';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../log.js';
import { voiceCatalog } from '../../synth/index.js';
import { createApp } from '../create-app.js';
import { registerVoiceRoutes } from './voices.js';

/** The public voice catalog route, with the catalog the embedded engine offers. */
describe('GET /api/v1/voices', () => {
  // loadConfig makes DATA_DIR and its URL-signing secret: a directory of this test's own, removed after.
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-tts-voices-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const voices = voiceCatalog(config.engine, config.upstream);
  function app() {
    const a = createApp({ log: createLogger('silent'), notFoundHint: 'The catalog is at /api/v1/voices.' });
    registerVoiceRoutes(a, voices);
    return a;
  }

  it('serves the catalog without a key, cacheable, with meta', async () => {
    const res = await app().request('/api/v1/voices');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const body = await res.json();
    expect(body.count).toBe(voices.length);
    expect(body.count).toBeGreaterThan(300);
    expect(body.voices).toEqual(voices);
    const ids = new Set(body.voices.map((v: { id: string }) => v.id));
    for (const id of ['af_heart', 'st_m1', 'st_f5', 'zm_chen', 'bm_george']) expect(ids.has(id)).toBe(true);
    expect(body.meta).toEqual({ request_id: res.headers.get('x-request-id'), api_version: API_VERSION });
  });

  it('answers another method with 405 and Allow, and another path with 404', async () => {
    const post = await app().request('/api/v1/voices', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, OPTIONS');
    expect((await post.json()).error.code).toBe('INVALID_REQUEST');
    const missing = await app().request('/nope');
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toBe('No route GET /nope. The catalog is at /api/v1/voices.');
  });
});
