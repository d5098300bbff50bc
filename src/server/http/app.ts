import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { API_PATH, VOICES_PATH } from '../../contract/limits.js';
import type { TtsRequestBody } from '../../contract/schemas.js';
import { IdempotencyKeyHeader } from '../../contract/schemas.js';
import { DEFAULT_VOICE, parseVoice, resolveLanguage } from '../../contract/voices.js';
import { LIMITS } from '../../contract/limits.js';
import type { Config } from '../config.js';
import { authenticate, type Principal } from '../domain/auth.js';
import type { JobService } from '../domain/jobs.js';
import { getBucket } from '../domain/jobs.js';
import type { KeyUsageRecorder } from '../domain/key-usage.js';
import type { AudioUrlSigner } from '../domain/signing.js';
import type { Logger } from '../log.js';
import type { AudioStorage, JobQueue, RateLimiter, Store } from '../ports.js';
import { readTtsRequest } from './body.js';
import { type AppContext, type AppEnv, sendError, sendJson } from './context.js';
import { cors } from './cors.js';
import { ApiError, invalidRequest } from './errors.js';
import { AUDIO_URL_INVALID_MESSAGE } from '../../contract/errors.js';
import { jobView } from './job-bodies.js';
import { mountOps, type OpsMetrics } from './ops.js';
import { setRateHeaders } from './rate-headers.js';

export interface AppDeps {
  config: Config;
  store: Store;
  limiter: RateLimiter;
  jobs: JobService;
  audio: AudioStorage;
  signer: AudioUrlSigner;
  keyUsage: KeyUsageRecorder;
  log: Logger;
  /** Aborted when the server shuts down: inline waits then answer with what they have. */
  shutdown: AbortSignal;
  /** For readiness (`/readyz`) and `/metrics`. */
  queue?: Pick<JobQueue, 'ping'>;
  metrics?: OpsMetrics;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { config, store, limiter, jobs, audio, signer, keyUsage, log } = deps;
  const app = new Hono<AppEnv>();
  const viewDeps = { store, jobs, signer, publicBaseUrl: config.publicBaseUrl };

  app.use(async (c, next) => {
    const requestId = randomUUID();
    c.set('requestId', requestId);
    c.set('receivedAt', Date.now());
    c.header('X-Request-Id', requestId);
    await next();
    log.info(
      {
        request_id: requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Date.now() - c.get('receivedAt'),
        key: c.get('displayKey'),
      },
      'request',
    );
  });
  app.use(cors(config.cors.origins, config.cors.previewPattern));
  mountOps(app, deps);

  app.onError((error, c) => {
    if (error instanceof ApiError) return sendError(c as AppContext, error);
    log.error({ request_id: c.get('requestId'), err: error }, 'unhandled error');
    return sendError(c as AppContext, new ApiError('INTERNAL_ERROR', 'Internal server error. Retry with backoff.'));
  });
  app.notFound((c) =>
    sendError(c as AppContext, new ApiError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}. The API is at ${API_PATH}.`)),
  );

  async function principalOf(c: AppContext): Promise<Principal> {
    const result = await authenticate(c.req.header('authorization'), store, config.plans);
    if (!result.ok) {
      if (result.displayKey) c.set('displayKey', result.displayKey);
      if (result.publicId !== undefined) {
        // A valid key refused for its account (403) still has buckets: report them, taking nothing.
        const { get, windowMs } = config.rateLimits;
        const bucket =
          c.req.method === 'POST'
            ? await jobs.peekPostBucket(result.publicId)
            : await limiter.check(getBucket(result.publicId), get, windowMs, false);
        setRateHeaders(c, bucket, windowMs);
      }
      const headers: Record<string, string> = result.code === 'INVALID_KEY' ? { 'WWW-Authenticate': 'Bearer' } : {};
      throw new ApiError(result.code, result.message, undefined, headers);
    }
    c.set('displayKey', result.principal.displayKey);
    keyUsage.record(result.principal.key.publicId, Date.now());
    return result.principal;
  }

  const rateLimited = (resetSeconds: number, kind: 'POST' | 'GET', limit: number) =>
    new ApiError(
      'RATE_LIMITED',
      `Too many ${kind} requests for this API key (${limit} per ${config.rateLimits.windowMs / 1000} s). Wait ${resetSeconds} seconds (Retry-After).`,
      undefined,
      { 'Retry-After': String(Math.max(1, resetSeconds)) },
    );

  app.post(API_PATH, async (c) => {
    const principal = await principalOf(c);
    let headersSet = false;
    try {
      const idemHeader = c.req.header('idempotency-key');
      if (idemHeader !== undefined && !IdempotencyKeyHeader.safeParse(idemHeader).success) {
        throw invalidRequest(`Idempotency-Key must be 1 to ${LIMITS.idempotencyKeyMaxLength} printable ASCII characters.`);
      }
      const body: TtsRequestBody = await readTtsRequest(c.req.raw, config.maxBodyBytes);
      const voice = parseVoice(body.voice ?? DEFAULT_VOICE)!;
      if (config.engine === 'openai-compatible' && !config.upstream.baseUrls[voice.family]) {
        // Refused here rather than failed later: every voice the API accepts must be able to speak.
        throw invalidRequest(
          `Voice "${voice.id}" is not available on this deployment: no speech server is configured for its ${voice.family} voices. GET ${VOICES_PATH} lists the voices it offers.`,
        );
      }
      const outcome = await jobs.submit(
        principal,
        {
          text: body.text,
          voice: voice.id,
          language: resolveLanguage(voice, body.language),
          speed: body.speed ?? LIMITS.speedDefault,
          idempotencyKey: idemHeader,
        },
        c.req.raw.signal,
      );
      setRateHeaders(c, outcome.postBucket, config.rateLimits.windowMs);
      headersSet = true;
      if (outcome.kind === 'rate_limited') {
        throw rateLimited(outcome.postBucket.resetSeconds, 'POST', config.rateLimits.post);
      }
      if (outcome.kind === 'usage_exceeded') {
        const limit = principal.plan.monthlyMinutes;
        const used = outcome.usedCentiminutes / 100;
        throw new ApiError(
          'USAGE_LIMIT_EXCEEDED',
          `Monthly TTS minutes exhausted: ${used} of ${limit} used, and this text needs more than remains. Upgrade the plan or wait for the reset.`,
          { limit, used, tier: principal.account.plan, upgrade_url: config.billingUrl },
        );
      }
      let job = outcome.job;
      if (outcome.replayed) c.header('Idempotent-Replayed', 'true');
      else job = (await jobs.waitInline(job.id, config.inlineWaitMs, deps.shutdown)) ?? job;
      const view = await jobView(viewDeps, principal, job, Date.now());
      switch (view.kind) {
        case 'completed':
          return sendJson(c, 200, view.body, {
            processing_time_ms: outcome.replayed ? (view.processingTimeMs ?? 0) : Date.now() - c.get('receivedAt'),
          });
        case 'processing':
          return sendJson(c, 202, view.body);
        case 'failed':
          // The job exists (and GET shows it as failed); details carry its id.
          throw new ApiError(view.code, view.message, { job_id: job.id });
        case 'expired':
          return sendJson(c, 200, view.body);
      }
    } finally {
      if (!headersSet) setRateHeaders(c, await jobs.peekPostBucket(principal.key.publicId), config.rateLimits.windowMs);
    }
  });

  app.get(API_PATH, async (c) => {
    const principal = await principalOf(c);
    const { get, windowMs } = config.rateLimits;
    const bucketName = getBucket(principal.key.publicId);
    const ids = c.req.queries('id') ?? [];
    if (ids.length !== 1 || !UUID.test(ids[0])) {
      setRateHeaders(c, await limiter.check(bucketName, get, windowMs, false), windowMs);
      throw invalidRequest('Query parameter id is required once and must be a job_id (UUID).');
    }
    const bucket = await limiter.check(bucketName, get, windowMs, true);
    setRateHeaders(c, bucket, windowMs);
    if (!bucket.allowed) throw rateLimited(bucket.resetSeconds, 'GET', get);
    const job = await jobs.get(principal.account.id, ids[0].toLowerCase());
    if (!job) throw new ApiError('NOT_FOUND', 'No job with this id for this account. Check the job id.');
    const view = await jobView(viewDeps, principal, job, Date.now());
    if (view.kind === 'expired') await audio.delete(job.id);
    return sendJson(c, 200, view.body);
  });

  app.get('/v1/audio/:file', async (c) => {
    const match = /^([0-9a-f-]{36})\.mp3$/.exec(c.req.param('file'));
    if (!match || !UUID.test(match[1])) throw new ApiError('NOT_FOUND', AUDIO_URL_INVALID_MESSAGE);
    const jobId = match[1];
    const expires = c.req.query('expires') ?? '';
    const sig = c.req.query('sig') ?? '';
    const now = Date.now();
    if (!signer.verify(jobId, expires, sig, now)) {
      throw new ApiError('NOT_FOUND', AUDIO_URL_INVALID_MESSAGE);
    }
    const job = await store.getJob(jobId);
    const legacyExpired = job?.legacyExpiresAt !== undefined && job.legacyExpiresAt <= now;
    const stat = job && job.status === 'completed' && !legacyExpired ? await audio.stat(jobId) : undefined;
    if (!stat) throw new ApiError('NOT_FOUND', AUDIO_URL_INVALID_MESSAGE);
    c.header('Content-Type', 'audio/mpeg');
    c.header('Accept-Ranges', 'bytes');
    c.header('Cache-Control', `private, max-age=${signer.secondsLeft(expires, now)}`);
    const range = parseRange(c.req.header('range'), stat.size);
    if (range === 'unsatisfiable') {
      c.header('Content-Range', `bytes */${stat.size}`);
      throw new ApiError('INVALID_REQUEST', `The requested range is not within the file of ${stat.size} bytes.`, undefined, {}, 416);
    }
    const { start, end } = range ?? { start: 0, end: stat.size - 1 };
    c.header('Content-Length', String(end - start + 1));
    if (range) c.header('Content-Range', `bytes ${start}-${end}/${stat.size}`);
    if (c.req.method === 'HEAD' || stat.size === 0) return c.body(null, range ? 206 : 200);
    const stream = Readable.toWeb(createReadStream(audio.pathFor(jobId), { start, end })) as ReadableStream;
    return c.body(stream, range ? 206 : 200);
  });

  // Known paths with another method: 405 with Allow and the error body.
  const methodNotAllowed = (allow: string) => (c: AppContext) => {
    c.header('Allow', allow);
    return sendError(c, new ApiError('INVALID_REQUEST', `Method ${c.req.method} is not allowed here; use ${allow}.`, undefined, {}, 405));
  };
  // An OPTIONS that is not a CORS preflight (those are answered by the cors middleware) asks which
  // methods the resource has.
  app.options(API_PATH, (c) => {
    c.header('Allow', 'GET, POST, OPTIONS');
    return c.body(null, 204);
  });
  app.all(API_PATH, methodNotAllowed('GET, POST, OPTIONS'));
  app.all('/v1/audio/:file', methodNotAllowed('GET, HEAD'));

  return app;
}

/** Parses a single `bytes=` range; undefined when absent or not a single byte range (serve whole). */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
