import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { getJobRoute, postJobRoute } from '@agent-tts/contract/routes.js';
import { API_PATH } from '@agent-tts/contract/limits.js';
import { rateLimitedMessage } from '@agent-tts/contract/messages.js';
import type { Authenticator } from '../../domain/auth.js';
import { ANSWER_UNWANTED_MESSAGE, ApiError, ClientClosedError } from '../../domain/errors.js';
import type { BucketKind, JobService } from '../../domain/jobs.js';
import type { AudioUrlSigner } from '../../domain/signing.js';
import { type AppEnv, metaOf } from '../context.js';
import { answerOtherMethods } from '../create-app.js';
import { jobBody } from '../job-bodies.js';
import { requireApiKey } from '../middleware/auth.js';
import { jsonBody } from '../middleware/json-body.js';
import { setRateHeaders } from '../rate-headers.js';
import { StoreUnavailableError } from '../../ports/index.js';

/** A rejection handler: `fallback` when the store was unavailable, the error otherwise. */
const orUnavailable =
  <T>(fallback: T) =>
  (error: unknown): T => {
    if (error instanceof StoreUnavailableError) return fallback;
    throw error;
  };

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

/** POST and GET /v1/agent-tts, bound to the contract's route definitions. */
export function registerJobRoutes(app: OpenAPIHono<AppEnv>, deps: JobRouteDeps): void {
  const { jobs, signer, publicBaseUrl } = deps;
  const requireKey = requireApiKey(deps.auth, jobs);
  const rateLimited = (kind: BucketKind, resetSeconds: number) => {
    const { windowMs } = jobs.rateLimits;
    const limit = jobs.rateLimits[kind];
    // The wait the message names is the Retry-After sent (at least 1 s).
    const wait = Math.max(1, resetSeconds);
    return new ApiError('RATE_LIMITED', rateLimitedMessage(kind === 'post' ? 'POST' : 'GET', limit, windowMs / 1000, wait), undefined, {
      'Retry-After': String(wait),
    });
  };

  // A refused voice is answered with the closest voices of the deployment's catalog and its address.
  const voiceCatalog: MiddlewareHandler<AppEnv> = async (c, next) => {
    c.set('voiceCatalog', jobs.requests.catalog);
    await next();
  };

  app.openapi({ ...postJobRoute, middleware: [requireKey, jsonBody(deps.maxBodyBytes), voiceCatalog] as const }, async (c) => {
    const principal = c.get('principal');
    const outcome = await jobs.submit(principal, c.req.valid('json'), c.req.valid('header')['idempotency-key'], c.req.raw.signal);
    setRateHeaders(c, 'post', outcome.postBucket, jobs.rateLimits.windowMs);
    if (outcome.kind === 'rate_limited') throw rateLimited('post', outcome.postBucket.resetSeconds);
    if (outcome.kind === 'usage_exceeded') {
      const limit = principal.plan.monthlyMinutes;
      const used = outcome.usedCentiminutes / 100;
      throw new ApiError(
        'USAGE_LIMIT_EXCEEDED',
        `Monthly TTS minutes exhausted: ${used} of ${limit} used, and this text needs more than remains. Upgrade the plan or wait for the reset.`,
        { limit, used, tier: principal.account.plan, upgrade_url: deps.billingUrl },
      );
    }
    let job = outcome.job;
    if (outcome.replayed) c.header('Idempotent-Replayed', 'true');
    else {
      // The job exists once submit returns: if the store stops answering during the wait, the answer
      // is the 202 of the job as it was made (the client polls it later), not an error that would
      // invite a second submission.
      // The wait also ends at shutdown (the answer is then what there is) and when the client goes
      // away: its job goes on, and the request is the client's doing, 499 (createApp's error handler).
      const clientGone = c.req.raw.signal;
      const waited = await waitUntilEither(deps.shutdown, clientGone, (signal) =>
        jobs.waitInline(job.id, deps.inlineWaitMs, signal).catch(orUnavailable(undefined)),
      );
      if (clientGone.aborted && !deps.shutdown.aborted) throw new ClientClosedError(ANSWER_UNWANTED_MESSAGE, { job_id: job.id });
      job = waited ?? job;
    }
    const now = jobs.now();
    const view = jobBody(await jobs.state(principal, job, now), signer, publicBaseUrl, now);
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

  app.openapi({ ...getJobRoute, middleware: [requireKey] as const }, async (c) => {
    const principal = c.get('principal');
    const outcome = await jobs.poll(principal, c.req.valid('query').id.toLowerCase());
    setRateHeaders(c, 'get', outcome.getBucket, jobs.rateLimits.windowMs);
    if (outcome.kind === 'rate_limited') throw rateLimited('get', outcome.getBucket.resetSeconds);
    if (outcome.kind === 'not_found') throw new ApiError('NOT_FOUND', 'No job with this id for this account. Check the job id.');
    const now = jobs.now();
    const view = jobBody(await jobs.state(principal, outcome.job, now), signer, publicBaseUrl, now);
    return c.json({ ...view.body, meta: metaOf(c) }, 200);
  });

  answerOtherMethods(app, API_PATH, ['GET', 'POST']);
}

/**
 * Runs `wait` with a signal that fires when either signal does. Made per call and its listeners
 * removed afterwards: the shutdown signal lives as long as the process and must not collect one
 * listener per request.
 */
async function waitUntilEither<T>(a: AbortSignal, b: AbortSignal, wait: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const either = new AbortController();
  const fire = () => either.abort();
  if (a.aborted || b.aborted) fire();
  a.addEventListener('abort', fire, { once: true });
  b.addEventListener('abort', fire, { once: true });
  try {
    return await wait(either.signal);
  } finally {
    a.removeEventListener('abort', fire);
    b.removeEventListener('abort', fire);
  }
}
