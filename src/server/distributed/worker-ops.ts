import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { type AppContext, type AppEnv, sendError } from '../http/context.js';
import { ApiError } from '../http/errors.js';
import { mountOps, type OpsDeps } from '../http/ops.js';

/**
 * A worker's own operations listener (WORKER_OPS_PORT): /healthz, /readyz and /metrics — the job
 * metrics of a worker exist only in its process, so Prometheus scrapes each worker here.
 */
export function createWorkerOpsApp(deps: OpsDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    const requestId = randomUUID();
    c.set('requestId', requestId);
    c.set('receivedAt', Date.now());
    c.header('X-Request-Id', requestId);
    await next();
  });
  mountOps(app, deps);
  app.onError((error, c) => {
    deps.log.error({ request_id: c.get('requestId'), err: error }, 'unhandled error');
    return sendError(c as AppContext, new ApiError('INTERNAL_ERROR', 'Internal server error. Retry with backoff.'));
  });
  app.notFound((c) =>
    sendError(c as AppContext, new ApiError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}: a worker serves /healthz, /readyz and /metrics only.`)),
  );
  return app;
}
