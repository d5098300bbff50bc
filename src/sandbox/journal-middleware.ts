/** How requests reach the journal: the API's exchanges once answered, and requests the HTTP parser refused. */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '@agent-tts/server/http/context.js';
import type { Journal, JournalEntry } from './journal.js';

const isSandboxPath = (path: string) => path === '/sandbox' || path.startsWith('/sandbox/');

/**
 * Records a request the HTTP parser refused before the app saw it (a malformed request line or
 * headers; answered 400 INVALID_REQUEST by the listener), with the method, path and query of its
 * request line when that could be read (empty otherwise).
 */
export function journalClientError(journal: Journal, requestLine: string | undefined): void {
  const line = /^([A-Za-z]{1,16}) (\S{1,8192}) HTTP\/\d\.\d$/.exec(requestLine ?? '');
  const target = line?.[2] ?? '';
  const queryAt = target.indexOf('?');
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  if (isSandboxPath(path)) return;
  const query = queryAt === -1 ? {} : Object.fromEntries(new URLSearchParams(target.slice(queryAt + 1)));
  journal.record({ method: line?.[1]?.toUpperCase() ?? '', path, query, headers: {} }, { status: 400, error_code: 'INVALID_REQUEST' });
}

/** Records every API exchange (not /sandbox ones) once it is answered. */
export function journalMiddleware(journal: Journal): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (isSandboxPath(c.req.path)) return;
    const res = c.res;
    const response: JournalEntry['response'] = { status: res.status };
    let errorMessage: string | undefined;
    if ((res.headers.get('content-type') ?? '').includes('application/json')) {
      const body = (await res
        .clone()
        .json()
        .catch(() => undefined)) as
        | { job_id?: string; retry_after_seconds?: number; status?: string; error?: { code?: string; message?: unknown; details?: { job_id?: string } } }
        | undefined;
      if (body?.error?.code) response.error_code = body.error.code;
      if (typeof body?.error?.message === 'string') errorMessage = body.error.message;
      const jobId = body?.job_id ?? body?.error?.details?.job_id;
      if (jobId) response.job_id = jobId;
      if (body?.status === 'processing' && typeof body.retry_after_seconds === 'number') response.retry_after_seconds = body.retry_after_seconds;
    }
    const retryAfter = res.headers.get('retry-after');
    if (retryAfter !== null && /^\d+$/.test(retryAfter)) response.retry_after_header = Number(retryAfter);
    if (res.headers.get('idempotent-replayed') === 'true') response.replayed = true;
    const cached = (c.req.bodyCache as { text?: Promise<string> }).text;
    const entry = journal.record(
      {
        method: c.req.method,
        path: c.req.path,
        query: c.req.query(),
        headers: c.req.header(),
        bodyText: cached ? await cached.catch(() => undefined) : undefined,
      },
      response,
      errorMessage,
    );
    journal.bind(c.req.raw, entry);
  };
}
