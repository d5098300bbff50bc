import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { getJobRoute, postJobRoute } from '@agent-tts/contract/routes.js';
import { API_PATH } from '@agent-tts/contract/limits.js';
import type { Authenticator } from '../../domain/auth.js';
import { ApiError } from '../api-error.js';
import type { HeldSubmission } from '../../domain/held-submissions.js';
import type { JobService } from '../../domain/jobs.js';
import type { RateLimited } from '../../domain/rate-limits.js';
import type { AudioUrlSigner } from '../../domain/signing.js';
import { type AppContext, type AppEnv, metaOf } from '../context.js';
import { answerOtherMethods } from '../create-app.js';
import { jobBody } from '../job-bodies.js';
import { requireApiKey } from '../middleware/auth.js';
import { jsonBody } from '../middleware/json-body.js';
import { rateLimitHeaders } from '../middleware/rate-limit-headers.js';
import { validationHook } from '../validation.js';

export interface JobRouteDeps {
  auth: Authenticator;
  jobs: JobService;
  signer: AudioUrlSigner;
  publicBaseUrl: string;
  billingUrl: string;
  inlineWaitMs: number;
  maxBodyBytes: number;
  /** Aborted when the server shuts down: inline waits then answer with what they have. */
  shutdown: AbortSignal;
}

/** RATE_LIMITED, with the wait its message names as Retry-After. */
export const rateLimitedError = (refusal: RateLimited) =>
  new ApiError('RATE_LIMITED', refusal.message, undefined, { 'Retry-After': String(refusal.retryAfterSeconds) });

/** The answer to a POST that has its job (made now, or replayed): the job's body, or its error. */
function answerWithJob(signer: AudioUrlSigner, publicBaseUrl: string) {
  return (c: AppContext, state: Parameters<typeof jobBody>[0], replayed: boolean) => {
    const { job } = state;
    const view = jobBody(state, signer, publicBaseUrl);
    switch (view.kind) {
      case 'completed': {
        // Real time: what this request took (the deployment's clock may be a sandbox's test clock).
        const processingMs = replayed ? (job.processingTimeMs ?? 0) : Date.now() - c.get('receivedAt');
        return c.json({ ...view.body, meta: metaOf(c, processingMs) }, 200);
      }
      case 'processing':
        return c.json({ ...view.body, meta: metaOf(c) }, 202);
      case 'failed':
        // The job exists (and GET shows it as failed); details carry its id.
        throw new ApiError(view.body.error.code, view.body.error.message, { job_id: job.id });
      case 'expired':
        // Only a legacy job can be expired, and a submission never creates one; a replay can name one.
        throw new ApiError('FILE_EXPIRED', view.body.error.message, { job_id: job.id });
    }
  };
}

/**
 * What the headers alone decide, before the body is read (docs/api-rules.md#order-of-checks): the
 * Idempotency-Key's syntax (400), a replay (the job, its body unread), the rate limit (429). A
 * request that gets past them holds its place until its job is made; one that ends without a job
 * (its body refused, the client gone) gives the place and its Idempotency-Key back.
 */
function reservePlace(jobs: JobService, jobAnswer: ReturnType<typeof answerWithJob>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const headers = c.req.header();
    const principal = c.get('principal');
    const checked = postJobRoute.request.headers.safeParse(headers);
    if (!checked.success) {
      c.set('rateLimit', await jobs.bucketOf(principal, 'post'));
      validationHook({ success: false, error: checked.error, data: headers, target: 'header' } as never, c);
    }
    const reservation = await jobs.reserve(principal, checked.data?.['idempotency-key'], c.req.raw.signal);
    c.set('rateLimit', reservation.bucket);
    if (reservation.kind === 'rate_limited') throw rateLimitedError(reservation);
    if (reservation.kind === 'job') {
      c.header('Idempotent-Replayed', 'true');
      return jobAnswer(c, reservation.state, true);
    }
    const { held } = reservation;
    c.set('submission', held);
    try {
      await next();
    } finally {
      // Refused before its job was made: the place is given back, and the answer reports the bucket after that.
      if (!held.settled) c.set('rateLimit', (await jobs.giveBack(held)) ?? reservation.bucket);
    }
  };
}

/**
 * POST and GET /v1/agent-tts, bound to the contract's route definitions. Each handler calls JobService
 * in two steps: the first decides the key's bucket the answer reports, which goes on the context at
 * once (for rateLimitHeaders to write, a failure of the second step included); the second makes the
 * answer. A request refused before it took its place (a malformed query or header) reports the bucket
 * as it stands.
 */
export function registerJobRoutes(app: OpenAPIHono<AppEnv>, deps: JobRouteDeps): void {
  const { jobs, signer, publicBaseUrl } = deps;
  const requireKey = requireApiKey(deps.auth, jobs.rateLimits);
  const jobAnswer = answerWithJob(signer, publicBaseUrl);
  const reserve = reservePlace(jobs, jobAnswer);

  // A refused voice is answered with the closest voices of the deployment's catalog and its address.
  const voiceCatalog: MiddlewareHandler<AppEnv> = async (c, next) => {
    c.set('voiceCatalog', jobs.requests.catalog);
    await next();
  };

  app.openapi({ ...postJobRoute, middleware: [rateLimitHeaders, requireKey, reserve, jsonBody(deps.maxBodyBytes), voiceCatalog] as const }, async (c) => {
    const principal = c.get('principal');
    const held = c.get('submission') as HeldSubmission;
    const { bucket, result } = await jobs.admitHeld(held, c.req.valid('json'));
    c.set('rateLimit', bucket);
    if (result.kind === 'usage_exceeded') {
      const details = { limit: result.limitMinutes, used: result.usedMinutes, tier: principal.account.plan, upgrade_url: deps.billingUrl };
      throw new ApiError('USAGE_LIMIT_EXCEEDED', result.message, details);
    }
    const outcome = await jobs.waitFor(held, result.job, { signal: c.req.raw.signal, shutdown: deps.shutdown, inlineWaitMs: deps.inlineWaitMs });
    return jobAnswer(c, outcome.state, false);
  });

  // A malformed id reports the GET bucket as it stands: the poll took no place.
  const refuseQuery = async (result: unknown, c: AppContext): Promise<never> => {
    c.set('rateLimit', await jobs.bucketOf(c.get('principal'), 'get'));
    validationHook(result as never, c);
    throw new Error('validationHook answers every failed validation');
  };
  const pollQueryHook = (result: { success: boolean }, c: AppContext) => (result.success ? undefined : refuseQuery(result, c));
  app.openapi(
    { ...getJobRoute, middleware: [rateLimitHeaders, requireKey] as const },
    async (c) => {
      const principal = c.get('principal');
      const admitted = await jobs.admitPoll(principal);
      c.set('rateLimit', admitted.bucket);
      if (admitted.refused) throw rateLimitedError(admitted.refused);
      const outcome = await jobs.findJob(principal, c.req.valid('query').id.toLowerCase());
      if (outcome.kind === 'not_found') throw new ApiError('NOT_FOUND', outcome.message);
      const view = jobBody(outcome.state, signer, publicBaseUrl);
      return c.json({ ...view.body, meta: metaOf(c) }, 200);
    },
    pollQueryHook,
  );

  answerOtherMethods(app, API_PATH, ['GET', 'POST']);
}
