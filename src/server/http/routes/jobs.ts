import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { getJobRoute, postJobRoute } from '@agent-tts/contract/routes.js';
import { API_PATH } from '@agent-tts/contract/limits.js';
import type { Authenticator } from '../../domain/auth.js';
import { ApiError } from '../../domain/errors.js';
import type { JobService } from '../../domain/jobs.js';
import type { RateLimited } from '../../domain/rate-limits.js';
import type { AudioUrlSigner } from '../../domain/signing.js';
import { type AppEnv, metaOf } from '../context.js';
import { answerOtherMethods } from '../create-app.js';
import { jobBody } from '../job-bodies.js';
import { requireApiKey } from '../middleware/auth.js';
import { jsonBody } from '../middleware/json-body.js';
import { rateLimitHeaders } from '../middleware/rate-limit-headers.js';

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
const rateLimitedError = (refusal: RateLimited) =>
  new ApiError('RATE_LIMITED', refusal.message, undefined, { 'Retry-After': String(refusal.retryAfterSeconds) });

/**
 * POST and GET /v1/agent-tts, bound to the contract's route definitions. Each handler makes one call
 * into JobService and maps its outcome to the answer; the key's bucket it reports goes on the context
 * as soon as it is decided, for rateLimitHeaders to write.
 */
export function registerJobRoutes(app: OpenAPIHono<AppEnv>, deps: JobRouteDeps): void {
  const { jobs, signer, publicBaseUrl } = deps;
  const requireKey = requireApiKey(deps.auth, jobs.rateLimits, jobs);

  // A refused voice is answered with the closest voices of the deployment's catalog and its address.
  const voiceCatalog: MiddlewareHandler<AppEnv> = async (c, next) => {
    c.set('voiceCatalog', jobs.requests.catalog);
    await next();
  };

  app.openapi({ ...postJobRoute, middleware: [rateLimitHeaders, requireKey, jsonBody(deps.maxBodyBytes), voiceCatalog] as const }, async (c) => {
    const principal = c.get('principal');
    const outcome = await jobs.submitAndWait(principal, c.req.valid('json'), c.req.valid('header')['idempotency-key'], {
      signal: c.req.raw.signal,
      shutdown: deps.shutdown,
      inlineWaitMs: deps.inlineWaitMs,
      onDecided: ({ bucket, replayed }) => {
        c.set('rateLimit', bucket);
        if (replayed) c.header('Idempotent-Replayed', 'true');
      },
    });
    if (outcome.kind === 'rate_limited') throw rateLimitedError(outcome);
    if (outcome.kind === 'usage_exceeded') {
      const details = { limit: outcome.limitMinutes, used: outcome.usedMinutes, tier: principal.account.plan, upgrade_url: deps.billingUrl };
      throw new ApiError('USAGE_LIMIT_EXCEEDED', outcome.message, details);
    }
    const { job } = outcome.state;
    const view = jobBody(outcome.state, signer, publicBaseUrl);
    switch (view.kind) {
      case 'completed': {
        // Real time: what this request took (the deployment's clock may be a sandbox's test clock).
        const processingMs = outcome.replayed ? (job.processingTimeMs ?? 0) : Date.now() - c.get('receivedAt');
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
  });

  app.openapi({ ...getJobRoute, middleware: [rateLimitHeaders, requireKey] as const }, async (c) => {
    const outcome = await jobs.poll(c.get('principal'), c.req.valid('query').id.toLowerCase(), {
      onDecided: ({ bucket }) => c.set('rateLimit', bucket),
    });
    if (outcome.kind === 'rate_limited') throw rateLimitedError(outcome);
    if (outcome.kind === 'not_found') throw new ApiError('NOT_FOUND', outcome.message);
    const view = jobBody(outcome.state, signer, publicBaseUrl);
    return c.json({ ...view.body, meta: metaOf(c) }, 200);
  });

  answerOtherMethods(app, API_PATH, ['GET', 'POST']);
}
