import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from './index.js';
import { createSandbox, type SandboxCore } from './sandbox.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON read off the wire is walked field by field, and every check tests the value it reads
type Json = Record<string, any>;

/** A refusal of a Host: 403, the error body with meta, a message naming the Host, the names allowed and the setting. */
async function expectRefused(res: Response | { status: number; body: string }, host: string) {
  expect(res.status).toBe(403);
  const body: Json = res instanceof Response ? await res.json() : JSON.parse(res.body);
  expect(body.success).toBe(false);
  expect(body.error.code).toBe('INVALID_REQUEST');
  expect(body.error.message).toContain(`Host "${host}", which is not a name this sandbox is reached by`);
  expect(body.error.message).toContain('localhost, 127.0.0.1 or [::1]');
  expect(body.error.message).toContain('--allowed-hosts');
  expect(body.meta.request_id).toEqual(expect.any(String));
  expect(JSON.stringify(body)).not.toMatch(/tts_[a-z0-9]+_[A-Za-z0-9]{20,}/);
}

describe('the sandbox answers only the Host values it is bound to (in process)', () => {
  let sb: SandboxCore;
  afterAll(() => sb?.close());

  it('refuses the test keys and the journal to a rebound name, reads and writes alike; loopback names, its own and PUBLIC_BASE_URL’s pass', async () => {
    sb = await createSandbox({
      baseUrl: 'http://127.0.0.1:4010',
      voicesUrl: 'http://127.0.0.1:4011',
      env: { PUBLIC_BASE_URL: 'https://sandbox.example.test', ALLOWED_HOSTS: 'dev.internal, box:9000' },
    });
    for (const path of ['/sandbox', '/sandbox/requests', '/sandbox/clock', '/v1/agent-tts?id=x', '/healthz']) {
      await expectRefused(await sb.app.request(`http://rebind.example:4010${path}`), 'rebind.example:4010');
    }
    await expectRefused(await sb.app.request('http://rebind.example:4010/sandbox/requests', { method: 'DELETE' }), 'rebind.example:4010');
    // A listed name with a port is that port only.
    await expectRefused(await sb.app.request('http://box:9001/sandbox'), 'box:9001');
    for (const origin of [
      'http://localhost',
      'http://localhost:4010',
      'http://127.0.0.1:4010',
      'http://127.0.0.1:5555',
      'http://[::1]:4010',
      'https://sandbox.example.test',
      'http://dev.internal:8080',
      'http://box:9000',
    ]) {
      const res = await sb.app.request(`${origin}/sandbox`);
      expect([origin, res.status]).toEqual([origin, 200]);
      expect(((await res.json()) as Json).keys.active_pro).toMatch(/^tts_/);
    }
  });
});

describe('the sandbox answers only the Host values it is bound to (a real socket)', () => {
  let running: RunningSandbox;
  afterAll(() => running?.stop());

  /** A GET to the sandbox's listener with the Host header as given (what a rebound page's browser sends). */
  const getWithHost = (path: string, host: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: running.listening.port, path, headers: { Host: host } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('refuses GET /sandbox and /sandbox/requests with a forged Host, and answers its own', async () => {
    running = await startSandbox();
    const { port } = running.listening;
    for (const path of ['/sandbox', '/sandbox/requests']) await expectRefused(await getWithHost(path, `rebind.example:${port}`), `rebind.example:${port}`);
    const own = await getWithHost('/sandbox', `127.0.0.1:${port}`);
    expect(own.status).toBe(200);
    expect(JSON.parse(own.body).keys.active_pro).toBe(running.keys.active_pro);
    expect((await getWithHost('/sandbox/requests', `localhost:${port}`)).status).toBe(200);
  });
});
