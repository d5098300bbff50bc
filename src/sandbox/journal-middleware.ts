/** How requests reach the journal: the API's exchanges once answered, and requests the HTTP parser refused. */
import { API_PATH, CAPTIONS_PATH_PREFIX } from '@agent-tts/contract/limits.js';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '@agent-tts/server';
import type { Journal } from './journal.js';
import type { JournalEntry } from './journal-entry.js';

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

/** The most of a body the API did not read that the journal reads for itself. */
const UNREAD_BODY_LIMIT = 1024 * 1024;

/**
 * The body of a submission the API answered without reading it (a replay, a 429: decided from the
 * headers, docs/api-rules.md#order-of-checks), read by the journal for itself: it judges a resend by
 * its body (RETRY_WITHOUT_IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY). Up to 1 MiB;
 * a larger body is not journaled, as the API would not have read it either.
 */
async function unreadBody(request: Request, path: string): Promise<string | undefined> {
  if (request.method !== 'POST' || path !== API_PATH || !request.body || request.bodyUsed) return undefined;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > UNREAD_BODY_LIMIT) {
        await reader.cancel().catch(() => undefined);
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    return undefined;
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** Records every API exchange (not /sandbox ones) once it is answered. */
export function journalMiddleware(journal: Journal): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (isSandboxPath(c.req.path)) return;
    const res = c.res;
    const response: JournalEntry['response'] = { status: res.status };
    let errorMessage: string | undefined;
    // A JSON answer of the API is read for the journal; a word-timings file (12 MB for a long text) is a download, not an answer to read.
    if ((res.headers.get('content-type') ?? '').includes('application/json') && !c.req.path.startsWith(CAPTIONS_PATH_PREFIX)) {
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
    const bodyText = cached ? await cached.catch(() => undefined) : await unreadBody(c.req.raw, c.req.path);
    const entry = journal.record(
      {
        method: c.req.method,
        path: c.req.path,
        query: c.req.query(),
        headers: c.req.header(),
        bodyText,
      },
      response,
      errorMessage,
    );
    journal.bind(c.req.raw, entry);
  };
}
