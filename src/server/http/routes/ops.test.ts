import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../../../../test/helpers/in-process.js';
import { createTestServices } from '../../../../test/helpers/test-services.js';
import { API_VERSION } from '@agent-tts/contract/limits.js';
import { createLogger } from '../../log.js';
import { createOpsMetrics } from '../../metrics.js';
import { StoreUnavailableError } from '../../ports/index.js';
import { findNativeLibraries } from '../../synth/native.js';
import { opsDepsOf } from '../apps.js';
import { createApp } from '../create-app.js';
import { type OpsDeps, registerOpsRoutes } from './ops.js';
import { Readiness, type ReadinessDeps } from '../../domain/readiness.js';

/**
 * The operations routes over the memory store and a real local audio directory, in an app of their own;
 * the speech engine they name is the real one, in a server of its own.
 */
describe('operations routes', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await createTestServices();
  });
  afterAll(async () => {
    await server?.close();
  });

  function app(overrides: Partial<ReadinessDeps> & Pick<Partial<OpsDeps>, 'metrics'> = {}) {
    const { store, audio } = server.services;
    const { metrics, ...backends } = overrides;
    const a = createApp({ log: createLogger('silent'), notFoundHint: 'none' });
    registerOpsRoutes(a, { readiness: new Readiness({ store, audio, ...backends }), metrics, log: createLogger('silent') });
    return a;
  }

  it('/healthz: the process answers, with its uptime and meta', async () => {
    const res = await app().request('/healthz');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      success: true,
      status: 'ok',
      uptime_seconds: expect.any(Number),
      meta: { request_id: res.headers.get('x-request-id'), api_version: API_VERSION },
    });
    // Whole seconds since the routes were registered, a moment ago.
    expect(Number.isInteger(body.uptime_seconds) && body.uptime_seconds >= 0 && body.uptime_seconds < 5).toBe(true);
  });

  it('/readyz: 200 naming each check when every backend answers', async () => {
    const res = await app({ queue: { ping: () => Promise.resolve() } }).request('/readyz');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true, status: 'ready', checks: { store: 'ok', queue: 'ok', audio_storage: 'ok' } });
    // Without a queue or audio storage to ask, only the store is checked.
    expect((await (await app({ audio: undefined }).request('/readyz')).json()).checks).toEqual({ store: 'ok' });
  });

  it('/readyz: names the speech engine the process runs (native eSpeak NG where installed, by default)', async () => {
    const real = await startInProcess();
    let body;
    try {
      const a = createApp({ log: createLogger('silent'), notFoundHint: 'none' });
      registerOpsRoutes(a, opsDepsOf(real.services, createLogger('silent')));
      body = await (await a.request('/readyz')).json();
    } finally {
      await real.close();
    }
    const native = 'espeak' in findNativeLibraries();
    expect(body.synthesis).toEqual(
      native
        ? { engine: 'espeak-native', detail: expect.stringMatching(/^eSpeak NG [\d.]+.*, LAME [\d.]+/) }
        : { engine: 'espeak-wasm', detail: expect.any(String) },
    );
  });

  it('/readyz: 503 INTERNAL_ERROR naming what failed and how (timeout or unreachable), never the backend’s words', async () => {
    const res = await app({
      store: { ping: () => Promise.reject(new StoreUnavailableError('redis://user:pw@10.0.0.1 timed out', { timedOut: true })) },
      queue: { ping: () => Promise.reject(new Error('ECONNREFUSED 10.0.0.2:6379')) },
    }).request('/readyz');
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.error).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'The service is not ready: store timeout, queue unreachable. Retry with backoff.',
      details: { checks: { store: 'timeout', queue: 'unreachable', audio_storage: 'ok' } },
    });
    expect(JSON.stringify(body)).not.toMatch(/10\.0\.0|pw/);
  });

  it('/metrics: Prometheus text when metrics are on, 404 NOT_FOUND when not', async () => {
    const metrics = createOpsMetrics();
    const res = await app({ metrics }).request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(metrics.registry.contentType);
    expect(await res.text()).toMatch(/^# HELP /m);
    const off = await app().request('/metrics');
    expect(off.status).toBe(404);
    expect((await off.json()).error).toEqual({ code: 'NOT_FOUND', message: 'Metrics are not enabled in this process.' });
  });
});
