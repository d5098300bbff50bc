import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { StatusCode } from 'hono/utils/http-status';
import { AnsweredByListenerError, ClientClosedError, outageOf, RequestRefusedError } from '../domain/errors.js';
import { ApiError } from './api-error.js';
import type { Logger } from '../log.js';
import { type AppEnv, sendError } from './context.js';
import { cors } from './middleware/cors.js';
import type { OpsMetrics } from '../metrics.js';
import { httpMetrics } from './middleware/metrics.js';
import { requestContext } from './middleware/request-context.js';
import { fromHttpException, validationHook } from './validation.js';

/** nginx's status for a request whose client closed the connection first; HTTP defines none. */
export const CLIENT_CLOSED_REQUEST = 499 as StatusCode;

export interface AppShellOptions {
  log: Logger;
  /** What an unknown path is told (where this listener's resources are). */
  notFoundHint: string;
  /** One log line per request (the API); off for listeners that only answer probes. */
  logRequests?: boolean;
  /** Counts every answer of this app by route pattern. */
  metrics?: OpsMetrics;
  cors?: { origins: readonly string[]; previewPattern?: RegExp };
  /** Headers set on every answer of this app, errors and preflights included (the sandbox's mark). */
  headers?: Readonly<Record<string, string>>;
  /** Middleware run before CORS, so that it decides preflights too (the sandbox's guard of its own routes). */
  guards?: MiddlewareHandler<AppEnv>[];
}

/**
 * The one factory of every listener (API, voice catalog, operations): a request id on every answer
 * (`X-Request-Id`, `meta.request_id`), the request log line, request metrics, CORS where it applies,
 * the error body for every refusal and failure, and the contract's validation hook for every route
 * bound with `app.openapi(route, handler)`. The middlewares run in this order: request context
 * (middleware/request-context.ts), metrics (middleware/metrics.ts), the guards, CORS (middleware/cors.ts).
 */
export function createApp(options: AppShellOptions): OpenAPIHono<AppEnv> {
  const { log } = options;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use(requestContext({ log, logRequests: options.logRequests, headers: options.headers }));
  if (options.metrics) app.use(httpMetrics(options.metrics));
  for (const guard of options.guards ?? []) app.use(guard);
  if (options.cors) app.use(cors(options.cors.origins, options.cors.previewPattern));

  app.onError((error, c) => {
    if (error instanceof ApiError) return sendError(c, error);
    if (error instanceof RequestRefusedError) return sendError(c, new ApiError(error.code, error.message, error.details));
    if (error instanceof HTTPException) return sendError(c, fromHttpException(error));
    // Here, and only here, a client that went away (its body cut short, or gone before its answer)
    // becomes status 499, nginx's "client closed request": one info line saying so, and 499 in the
    // request log line and the request metrics, which read the status of this answer. It is the
    // client's doing, so never a 5xx, and it needs no error body: nobody is left to read it.
    if (error instanceof ClientClosedError) {
      log.info({ request_id: c.get('requestId'), method: c.req.method, path: c.req.path, ...error.fields }, error.message);
      return c.body(null, CLIENT_CLOSED_REQUEST);
    }
    // The listener ended the body and answered (408 after the server's request timeout, 400 after
    // a half-close mid-body) with this request's id; the log line and the metrics count that status.
    if (error instanceof AnsweredByListenerError) {
      log.info({ request_id: c.get('requestId'), method: c.req.method, path: c.req.path }, error.message);
      return c.body(null, error.status);
    }
    return sendError(c, failureOf(error, c.get('requestId'), log));
  });
  app.notFound((c) => sendError(c, new ApiError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}. ${options.notFoundHint}`)));
  return app;
}

/**
 * The answer to a failure of the server's own (not a refusal: no ApiError), logged once: a store
 * outage is one warning line without a stack, anything else an error line with it.
 */
export function failureOf(error: unknown, requestId: string, log: Logger): ApiError {
  const outage = outageOf(error);
  if (outage?.backend === 'store') {
    // An outage, not a bug: one warning line (no stack), and the answer says what a client can do.
    log.warn({ request_id: requestId, error: outage.message }, 'store unavailable');
    return new ApiError(
      'INTERNAL_ERROR',
      "The service's data store did not answer in time. Retry with backoff; retry a POST with the same Idempotency-Key, so that it cannot run twice.",
    );
  }
  log.error({ request_id: requestId, err: error }, 'unhandled error');
  return new ApiError('INTERNAL_ERROR', 'Internal server error. Retry with backoff.');
}

/**
 * Known paths asked with another method: 405 with `Allow` and the error body. An OPTIONS that is not
 * a CORS preflight (those are answered by the CORS middleware) asks which methods the path has: 204.
 */
export function answerOtherMethods(app: OpenAPIHono<AppEnv>, path: string, methods: readonly string[]): void {
  const allow = [...methods, 'OPTIONS'].join(', ');
  app.options(path, (c) => {
    c.header('Allow', allow);
    return c.body(null, 204);
  });
  app.all(path, (c) => {
    c.header('Allow', allow);
    return sendError(c, new ApiError('INVALID_REQUEST', `Method ${c.req.method} is not allowed here; use ${methods.join(' or ')}.`, undefined, {}, 405));
  });
}
