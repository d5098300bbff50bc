import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InProcessServer } from '../../../../test/helpers/in-process.js';
import { createTestServices } from '../../../../test/helpers/test-services.js';
import { boundHosts, isLoopbackHost } from './host-guard.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON read off the wire is walked field by field, and every check tests the value it reads
type Json = Record<string, any>;

async function expectRefused(res: Response, host: string, subject: string) {
  expect(res.status).toBe(403);
  const body: Json = await res.json();
  expect(body.error.code).toBe('INVALID_REQUEST');
  expect(body.error.message).toContain(`Host "${host}", which is not a name ${subject} is reached by`);
  expect(body.error.message).toContain('ALLOWED_HOSTS');
  expect(body.meta.request_id).toEqual(expect.any(String));
}

/**
 * The reference server's dashboard and operations endpoints answer only the Host values it is reached
 * by (docs/operations.md#host-names); the API, which needs a key or a signed URL, answers any.
 */
describe('Host of the dashboard and the operations endpoints', () => {
  let server: InProcessServer;
  let open: InProcessServer;
  beforeAll(async () => {
    server = await createTestServices({ PUBLIC_BASE_URL: 'https://tts.example.test', ALLOWED_HOSTS: 'proxy.internal:8443' });
    open = await createTestServices({ ALLOWED_HOSTS: '*' });
  });
  afterAll(async () => {
    await server?.close();
    await open?.close();
  });

  it('refuses a rebound name on the dashboard and the probes of the API listener and on the ops listener; the API still answers it', async () => {
    for (const path of ['/dashboard', '/dashboard/sign-in', '/healthz', '/readyz', '/metrics']) {
      await expectRefused(await server.app.request(`http://rebind.example:8080${path}`), 'rebind.example:8080', 'this server');
    }
    for (const path of ['/healthz', '/metrics']) {
      await expectRefused(await server.opsApp.request(`http://rebind.example:9090${path}`), 'rebind.example:9090', 'this operations listener');
    }
    // The API: a key is what decides (401 without one), not the name it was reached by.
    expect((await server.app.request('http://rebind.example:8080/v1/agent-tts?id=x')).status).toBe(401);
    expect((await server.app.request('http://rebind.example:8080/docs')).status).not.toBe(403);
  });

  it('answers loopback names, PUBLIC_BASE_URL’s host, the bound address and ALLOWED_HOSTS; * answers any', async () => {
    for (const origin of ['http://localhost', 'http://127.0.0.1:8080', 'http://[::1]:1', 'https://tts.example.test', 'http://proxy.internal:8443']) {
      expect([origin, (await server.app.request(`${origin}/healthz`)).status]).toEqual([origin, 200]);
      expect([origin, (await server.opsApp.request(`${origin}/healthz`)).status]).toEqual([origin, 200]);
    }
    await expectRefused(await server.app.request('http://proxy.internal:8444/healthz'), 'proxy.internal:8444', 'this server');
    expect((await open.app.request('http://rebind.example/healthz')).status).toBe(200);
    expect((await open.opsApp.request('http://rebind.example/metrics')).status).toBe(200);
  });

  it('knows the loopback names, and a wildcard address is reached by every address of the machine', () => {
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]']) expect([host, isLoopbackHost(host)]).toEqual([host, true]);
    for (const host of ['rebind.example', '10.0.0.1', 'localhost.evil.test']) expect([host, isLoopbackHost(host)]).toEqual([host, false]);
    expect(boundHosts('10.1.2.3')).toEqual(['10.1.2.3']);
    expect(boundHosts('0.0.0.0')).toContain('127.0.0.1');
  });
});
