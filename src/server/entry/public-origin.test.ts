import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { adminOrigin, ORIGIN_FILE, recordOrigin } from './public-origin.js';

/** The origin agent-tts-admin builds links on: its own settings, else what the server recorded, else the defaults. */
describe('adminOrigin', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'agent-tts-origin-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('says it used the defaults when nothing names the server', () => {
    const origin = adminOrigin(loadConfig({ DATA_DIR: dataDir }));
    expect(origin.baseUrl).toBe('http://127.0.0.1:8080');
    expect(origin.said).toBe(
      'links on http://127.0.0.1:8080 (the default HOST and PORT: neither PUBLIC_BASE_URL, HOST nor PORT is set, and no server has recorded its origin in DATA_DIR)',
    );
  });

  it("takes the origin a server recorded in DATA_DIR (its bound port when PORT=0), unless the admin's own settings name one", async () => {
    // The server on PORT=24080, the admin in a shell without PORT.
    recordOrigin(loadConfig({ DATA_DIR: dataDir, PORT: '24080', VOICES_PORT: '0' }), { api: 24080, voices: 24081 });
    expect((await stat(join(dataDir, ORIGIN_FILE))).mode & 0o777).toBe(0o600);
    const recorded = adminOrigin(loadConfig({ DATA_DIR: dataDir }));
    expect(recorded).toMatchObject({ baseUrl: 'http://127.0.0.1:24080', voicesUrl: 'http://127.0.0.1:24081' });
    expect(recorded.said).toMatch(
      /^links on http:\/\/127\.0\.0\.1:24080 \(recorded by agent-tts-server at \d{4}-\d\d-\d\dT[\d:.]+Z in DATA_DIR\/public-origin\.json, from its HOST and PORT; set PUBLIC_BASE_URL to choose\)$/,
    );
    expect(adminOrigin(loadConfig({ DATA_DIR: dataDir, PORT: '9000' }))).toMatchObject({
      baseUrl: 'http://127.0.0.1:9000',
      said: 'links on http://127.0.0.1:9000 (from HOST and PORT; set PUBLIC_BASE_URL if clients reach the server elsewhere)',
    });
    expect(adminOrigin(loadConfig({ DATA_DIR: dataDir, PUBLIC_BASE_URL: 'https://tts.example.com/' }))).toMatchObject({
      baseUrl: 'https://tts.example.com',
      said: 'links on https://tts.example.com (from PUBLIC_BASE_URL)',
    });
    // A server's PUBLIC_BASE_URL is recorded as it is.
    recordOrigin(loadConfig({ DATA_DIR: dataDir, PUBLIC_BASE_URL: 'https://proxy.example.com', PORT: '0' }), { api: 40000, voices: 40001 });
    expect(JSON.parse(await readFile(join(dataDir, ORIGIN_FILE), 'utf8'))).toMatchObject({
      base_url: 'https://proxy.example.com',
      voices_url: 'http://127.0.0.1:8081',
      from: 'PUBLIC_BASE_URL',
    });
    expect(adminOrigin(loadConfig({ DATA_DIR: dataDir })).said).toMatch(/^links on https:\/\/proxy\.example\.com \(recorded .*, from its PUBLIC_BASE_URL; /);
  });
});
