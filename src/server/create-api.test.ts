import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_PATH, VOICES_PATH } from '@agent-tts/contract/limits.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, createApi, sendJson, type Api } from '@agent-tts/server';

/** createApi, through the package's own "." export: the embedding API the sandbox and src/server/README.md use. */
const SECRET = 'x'.repeat(32);
let api: Api | undefined;
let dataDir: string | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('createApi', () => {
  it('assembles the API from settings, with what `extend` adds on both apps, without listening', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'agent-tts-create-api-'));
    let storeSeen = false;
    api = await createApi({
      env: { DATA_DIR: dataDir, URL_SIGNING_SECRET: SECRET, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'http://api.test' },
      extend: (services) => {
        storeSeen = typeof services.store.getJob === 'function';
        return { headers: { 'X-Embedded': 'yes' }, routes: (app) => app.get('/embedded', (c) => sendJson(c, 200, { ok: true })) };
      },
    });
    expect(storeSeen).toBe(true);
    expect(api.config.dataDir).toBe(dataDir);
    expect(api.config.publicBaseUrl).toBe('http://api.test');

    const own = await api.app.request('/embedded');
    expect(own.status).toBe(200);
    expect(own.headers.get('X-Embedded')).toBe('yes');
    expect(await own.json()).toMatchObject({ ok: true, meta: { request_id: expect.any(String) } });
    // The server's own routes, marked too: a POST without a key is refused as the contract says.
    const refused = await api.app.request(API_PATH, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('X-Embedded')).toBe('yes');
    expect(await refused.json()).toMatchObject({ success: false, error: { code: 'INVALID_KEY' } });
    // No OPS_PORT: the probes are on the API app.
    expect((await api.app.request('/healthz', { headers: { Host: '127.0.0.1' } })).status).toBe(200);

    const voices = await api.voicesApp.request(VOICES_PATH);
    expect(voices.status).toBe(200);
    expect(voices.headers.get('X-Embedded')).toBe('yes');
  });

  it('refuses a bad setting with a ConfigError naming the variable, not its value', async () => {
    const error = await createApi({ env: { URL_SIGNING_SECRET: 'short-secret-value', LOG_LEVEL: 'silent' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('URL_SIGNING_SECRET');
    expect((error as Error).message).not.toContain('short-secret-value');
  });

  it('closes what it assembled when `extend` throws, and passes the error on', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'agent-tts-create-api-'));
    let closeStore: (() => Promise<void>) | undefined;
    const error = await createApi({
      env: { DATA_DIR: dataDir, URL_SIGNING_SECRET: SECRET, LOG_LEVEL: 'silent' },
      extend: (services) => {
        closeStore = () => services.store.getAccount('nobody').then(() => undefined);
        throw new Error('extension refused');
      },
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('extension refused');
    // The store was closed: it answers no more.
    await expect(closeStore?.()).rejects.toThrow();
  });
});
