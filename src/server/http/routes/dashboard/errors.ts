import type { ErrorHandler } from 'hono';
import { html } from 'hono/html';
import type { Logger } from '../../../log.js';
import type { AppEnv } from '../../context.js';
import { problemPage } from './pages.js';
import { render } from './respond.js';

/** The errors by which a store says its backend did not answer (the Redis adapter's, the port's). */
const STORE_OUTAGES = new Set(['RedisUnavailableError', 'StoreUnavailableError']);

/**
 * The dashboard's failures as pages with the pages' security headers, not the API's JSON: a store
 * outage 503 with Retry-After (one warning line), anything else 500 naming the request id (logged with its stack).
 */
export function dashboardErrors(log: Logger): ErrorHandler<AppEnv> {
  return (error, c) => {
    // A store outage is answered 503 with Retry-After: a page says "try again" (the API answers it
    // 500 INTERNAL_ERROR). It is recognised by name, as this layer imports no adapter.
    if (STORE_OUTAGES.has(error.name)) {
      // An outage, not a bug: one warning line, without a stack.
      log.warn({ request_id: c.get('requestId'), path: c.req.path, error: error.message }, 'dashboard: store unavailable');
      c.header('Retry-After', '30');
      return render(
        c,
        problemPage('Temporarily unavailable', 'The dashboard is temporarily unavailable: the service cannot reach its data right now. Try again in a minute.'),
        503,
      );
    }
    log.error({ request_id: c.get('requestId'), path: c.req.path, err: error }, 'dashboard: unhandled error');
    return render(
      c,
      problemPage(
        'Something went wrong',
        'The dashboard could not answer because of an error on our side. Try again; if it keeps happening, tell the operator.',
        html`<p class="muted">Request id: <code>${c.get('requestId')}</code></p>`,
      ),
      500,
    );
  };
}
