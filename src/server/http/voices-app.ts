import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { VOICES_PATH } from '../../contract/limits.js';
import type { CatalogVoiceBody } from '../../contract/schemas.js';
import { type AppContext, type AppEnv, sendError, sendJson } from './context.js';
import { cors } from './cors.js';
import { ApiError } from './errors.js';

/** The public voice catalog (spec §4.3), served on its own listener and origin, without authentication. */
export function createVoicesApp(voices: readonly CatalogVoiceBody[], corsOrigins: readonly string[], preview?: RegExp): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const body = { voices, count: voices.length };
  app.use(async (c, next) => {
    const requestId = randomUUID();
    c.set('requestId', requestId);
    c.set('receivedAt', Date.now());
    c.header('X-Request-Id', requestId);
    await next();
  });
  app.use(cors(corsOrigins, preview));
  app.get(VOICES_PATH, (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return sendJson(c, 200, body);
  });
  app.all(VOICES_PATH, (c) => {
    c.header('Allow', 'GET, OPTIONS');
    return sendError(c, new ApiError('INVALID_REQUEST', `Method ${c.req.method} is not allowed here; use GET.`, undefined, {}, 405));
  });
  app.notFound((c) => sendError(c as AppContext, new ApiError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}. The catalog is at ${VOICES_PATH}.`)));
  app.onError((_e, c) => sendError(c as AppContext, new ApiError('INTERNAL_ERROR', 'Internal server error. Retry with backoff.')));
  return app;
}
