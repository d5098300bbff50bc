import type { OpenAPIHono } from '@hono/zod-openapi';
import { PROBE_TIMEOUT_MS, TimeoutError, withTimeout } from '../../timeout.js';
import { ApiError } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import type { OpsMetrics } from '../../metrics.js';
import { type AudioStorage, type JobQueue, type Store, StoreUnavailableError } from '../../ports/index.js';
import { type AppEnv, sendError, sendJson } from '../context.js';

export interface OpsDeps {
  store: Pick<Store, 'ping'>;
  log: Logger;
  queue?: Pick<JobQueue, 'ping'>;
  audio?: Pick<AudioStorage, 'ping'>;
  metrics?: OpsMetrics;
}

/** Names what failed without echoing a backend's error text (it may hold addresses or credentials). */
async function probe(check: () => Promise<void>, what: string): Promise<'ok' | 'unreachable' | 'timeout'> {
  try {
    await withTimeout(check(), PROBE_TIMEOUT_MS, what);
    return 'ok';
  } catch (error) {
    return error instanceof TimeoutError || (error instanceof StoreUnavailableError && error.timedOut) ? 'timeout' : 'unreachable';
  }
}

/** Readiness: the store, the queue and the audio storage answer. Shared by the API and the worker. */
async function readiness(deps: Pick<OpsDeps, 'store' | 'queue' | 'audio' | 'log'>): Promise<{ ready: boolean; checks: Record<string, string> }> {
  const { store, queue, audio } = deps;
  const checks: Record<string, () => Promise<void>> = { store: () => store.ping() };
  if (queue?.ping) checks.queue = () => queue.ping!();
  if (audio) checks.audio_storage = () => audio.ping();
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => probe(checks[name]!, name)));
  const named = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
  return { ready: results.every((r) => r === 'ok'), checks: named };
}

/**
 * Operations routes: `/healthz` (the process answers), `/readyz` (every backend answers; otherwise 503
 * with the error body, code INTERNAL_ERROR, naming the failing check), `/metrics` (Prometheus text).
 * On the API listener unless OPS_PORT gives them a listener of their own. Keep them off the public
 * internet.
 */
export function registerOpsRoutes(app: OpenAPIHono<AppEnv>, deps: OpsDeps): void {
  const { metrics, log } = deps;
  const started = Date.now();

  app.get('/healthz', (c) => sendJson(c, 200, { success: true, status: 'ok', uptime_seconds: Math.round((Date.now() - started) / 1000) }));

  app.get('/readyz', async (c) => {
    const { ready, checks } = await readiness(deps);
    if (ready) return sendJson(c, 200, { success: true, status: 'ready', checks });
    log.warn({ request_id: c.get('requestId'), checks }, 'not ready');
    const failing = Object.entries(checks)
      .filter(([, v]) => v !== 'ok')
      .map(([k, v]) => `${k} ${v}`);
    return sendError(c, new ApiError('INTERNAL_ERROR', `The service is not ready: ${failing.join(', ')}. Retry with backoff.`, { checks }, {}, 503));
  });

  app.get('/metrics', async (c) => {
    if (!metrics) return sendError(c, new ApiError('NOT_FOUND', 'Metrics are not enabled in this process.'));
    c.header('Content-Type', metrics.registry.contentType);
    return c.body(await metrics.registry.metrics(), 200);
  });
}
