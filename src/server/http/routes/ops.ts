import type { OpenAPIHono } from '@hono/zod-openapi';
import { PROBE_TIMEOUT_MS, TimeoutError, withTimeout } from '../../timeout.js';
import { ApiError } from '../api-error.js';
import { outageOf } from '../../domain/errors.js';
import type { Readiness } from '../../domain/readiness.js';
import type { Logger } from '../../log.js';
import type { OpsMetrics } from '../../metrics.js';
import { type AppEnv, sendError, sendJson } from '../context.js';
import type { EngineInfo } from '../services.js';

export interface OpsDeps {
  /** The backends /readyz asks. */
  readiness: Readiness;
  log: Logger;
  metrics?: OpsMetrics;
  /** The speech engine this process runs jobs with: /readyz names it (`synthesis`). */
  engine?: EngineInfo;
}

/** Names what failed without echoing a backend's error text (it may hold addresses or credentials). */
async function probe(check: () => Promise<void>, what: string): Promise<'ok' | 'unreachable' | 'timeout'> {
  try {
    await withTimeout(check(), PROBE_TIMEOUT_MS, what);
    return 'ok';
  } catch (error) {
    return error instanceof TimeoutError || outageOf(error)?.timedOut === true ? 'timeout' : 'unreachable';
  }
}

/** Readiness: the store, the queue and the audio storage answer. Shared by the API and the worker. */
async function readiness(deps: Pick<OpsDeps, 'readiness'>): Promise<{ ready: boolean; checks: Record<string, string> }> {
  const checks = Object.entries(deps.readiness.checks());
  const results = await Promise.all(checks.map(async ([name, check]) => [name, await probe(check, name)] as const));
  return { ready: results.every(([, r]) => r === 'ok'), checks: Object.fromEntries(results) };
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
    const synthesis = deps.engine && { engine: deps.engine.name, ...(deps.engine.detail && { detail: deps.engine.detail }) };
    if (ready) return sendJson(c, 200, { success: true, status: 'ready', checks, ...(synthesis && { synthesis }) });
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
