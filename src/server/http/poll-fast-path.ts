import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { API_PATH, API_VERSION } from '@agent-tts/contract/limits.js';
import { JobIdQuery } from '@agent-tts/contract/parameter-schemas.js';
import type { Principal } from '../domain/auth.js';
import type { BucketReport } from '../domain/rate-limits.js';
import { type Logger, requestLineWriter } from '../log.js';
import { ApiError } from './api-error.js';
import { errorBodyOf } from './context.js';
import { failureOf } from './create-app.js';
import { jobBody } from './job-bodies.js';
import { requestRecorder } from './middleware/metrics.js';
import { rateLimitOf, rateLimitPolicyOf } from './middleware/rate-limit-headers.js';
import { rateLimitedError } from './routes/jobs.js';
import type { HttpServices } from './services.js';
import { noteRequestId } from './socket-requests.js';

/**
 * Takes a request and returns true, or returns false at once and leaves it to the app; `app` is the
 * app's own listener, for a request it lets go of later.
 */
export type AheadOfApp = (req: IncomingMessage, res: ServerResponse, app: RequestListener) => boolean;

/** `GET /v1/agent-tts?id=<uuid>` and nothing else: the query as the poll's clients send it. */
const POLL_URL = new RegExp(`^${API_PATH.replace(/[/-]/g, '\\$&')}\\?id=([0-9A-Fa-f-]{36})$`);
/** A Host the app would read as is (a name or address, a port): anything else is left to it. */
const PLAIN_HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/**
 * The poll, `GET /v1/agent-tts?id=<uuid>`, answered at the Node listener ahead of the app: the
 * request clients repeat most, so its answer costs what its work costs and no more (no router, no
 * web Request and Response, no validator chain: bench/README.md, poll). It does what the app does for
 * it, in the app's order and with its answers, byte for byte but the request id (poll-fast-path.test.ts
 * holds the two side by side): a request id (`X-Request-Id`, `meta.request_id`), `Vary: Origin`, the
 * key (authentication: docs/api-rules.md), the GET bucket and its RateLimit headers, the job's body or
 * the error body, the request metrics under the route's pattern and the request log line.
 *
 * It takes only what it answers exactly as the app would; everything else goes to the app, which
 * has the rules for it: another method or path, a query of another shape or an id that is not a
 * UUID, an `Origin` (CORS), a Host out of the ordinary, a request body, a key that is refused (401,
 * 403: authentication has no effect until it succeeds, so the app may run it again). A composition
 * that adds to the app (the sandbox: its headers, guards, journal) does not use it.
 */
export function pollFastPath(services: Pick<HttpServices, 'auth' | 'jobs' | 'signer' | 'metrics' | 'config'>, log: Logger): AheadOfApp {
  const { auth, jobs, signer, config } = services;
  const record = requestRecorder(services.metrics);
  const requestLine = requestLineWriter(log);
  return (req, res, app) => {
    if (req.method !== 'GET') return false;
    const match = POLL_URL.exec(req.url ?? '');
    const headers = req.headers;
    if (!match || headers.origin !== undefined || headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    if (!PLAIN_HOST.test(headers.host ?? '')) return false;
    const checked = JobIdQuery.safeParse({ id: match[1] });
    if (!checked.success) return false;
    answer(req, res, app, checked.data.id.toLowerCase()).catch((error: unknown) => {
      log.error({ err: error }, 'the poll could not be answered');
      res.destroy();
    });
    return true;
  };

  async function answer(req: IncomingMessage, res: ServerResponse, app: RequestListener, jobId: string): Promise<void> {
    const started = process.hrtime.bigint();
    const receivedAt = Date.now();
    const requestId = randomUUID();
    let principal: Principal | undefined;
    let bucket: BucketReport | undefined;
    let status = 200;
    let body: Record<string, unknown>;
    const extra: Record<string, string> = {};
    try {
      const result = await auth.authenticate(req.headers.authorization);
      if (!result.ok) {
        // Refused keys are the app's (their bodies, their headers); authentication had no effect.
        app(req, res);
        return;
      }
      noteRequestId(req.socket, requestId);
      principal = result.principal;
      const admitted = await jobs.admitPoll(principal);
      bucket = admitted.bucket;
      if (admitted.refused) throw rateLimitedError(admitted.refused);
      const outcome = await jobs.findJob(principal, jobId);
      if (outcome.kind === 'not_found') throw new ApiError('NOT_FOUND', outcome.message);
      body = jobBody(outcome.state, signer, config.publicBaseUrl).body;
    } catch (thrown) {
      // As the app: a failure of authentication itself (a store outage) is answered without a bucket.
      noteRequestId(req.socket, requestId);
      const error = thrown instanceof ApiError ? thrown : failureOf(thrown, requestId, log);
      status = error.status;
      body = errorBodyOf(error);
      Object.assign(extra, error.headers);
    }
    const json = JSON.stringify({ ...body, meta: { request_id: requestId, api_version: API_VERSION } });
    const out: Record<string, string | number> = { 'x-request-id': requestId, vary: 'Origin', ...extra, 'content-type': 'application/json' };
    if (bucket) {
      out['ratelimit-policy'] = rateLimitPolicyOf(bucket);
      out.ratelimit = rateLimitOf(bucket);
    }
    out['content-length'] = Buffer.byteLength(json);
    res.writeHead(status, out);
    res.end(json);
    record('GET', API_PATH, status, started);
    requestLine({ request_id: requestId, method: 'GET', path: API_PATH, status, ms: Date.now() - receivedAt, key: principal?.displayKey });
  }
}
