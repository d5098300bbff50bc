import type { OpenAPIHono } from '@hono/zod-openapi';
import { AUDIO_URL_INVALID_MESSAGE } from '@agent-tts/contract/errors.js';
import { CAPTIONS_PATH_PREFIX } from '@agent-tts/contract/limits.js';
import { getCaptionsRoute } from '@agent-tts/contract/routes.js';
import { CaptionPathParams } from '@agent-tts/contract/parameter-schemas.js';
import { CAPTION_MEDIA_TYPES, type CaptionFormat } from '@agent-tts/contract/timing-schemas.js';
import { ApiError } from '../api-error.js';
import type { AppEnv } from '../context.js';
import { answerOtherMethods } from '../create-app.js';
import { guardedStream } from '../streamed-body.js';
import { fromStore, type SignedFileRouteDeps, signedQueryHook } from './signed-files.js';

/** The answer's Content-Type: the contract's media type, with the charset of the text formats. */
const CONTENT_TYPES: Record<CaptionFormat, string> = {
  json: CAPTION_MEDIA_TYPES.json,
  vtt: `${CAPTION_MEDIA_TYPES.vtt}; charset=utf-8`,
  srt: `${CAPTION_MEDIA_TYPES.srt}; charset=utf-8`,
};

/**
 * GET /v1/captions/{job_id}.{format}: a job's word timings (json) or captions (vtt, srt), behind a
 * signed URL like the audio's (an extension beyond the base API; docs/api-rules.md#word-timings-and-captions).
 * The signature binds the format, so the URL of one format opens no other. Every refusal is the audio
 * route's: 404 NOT_FOUND with one message for a tampered or expired signature, an unknown job, a job
 * that asked for no timings and timings that no longer exist; a malformed or cut-short query names its
 * fault; 503 with Retry-After when the store cannot be reached. Its helpers are the audio route's
 * (signed-files.ts).
 *
 * Every format is a stored file (the job runner renders WebVTT and SRT once, when the job completes):
 * HEAD reads its size from the store's metadata, GET streams it, so a request costs the same whatever
 * the length of the text. A job completed before captions were stored has them rendered once, on the
 * first request, and stored (domain/signed-files.ts).
 */
export function registerCaptionRoutes(app: OpenAPIHono<AppEnv>, deps: SignedFileRouteDeps): void {
  const { files, log } = deps;
  // As for the audio: `{job_id}.{format}` is one path segment, routed as one parameter and split here.
  app.openAPIRegistry.registerPath(getCaptionsRoute);
  const routed = { ...getCaptionsRoute, path: `${CAPTIONS_PATH_PREFIX}{file}`, hide: true, request: { query: getCaptionsRoute.request.query } };
  app.openapi(
    routed,
    async (c) => {
      const file = /^(.+)\.([^.]+)$/.exec(c.req.param('file') ?? '');
      const parsed = file ? CaptionPathParams.safeParse({ job_id: file[1], format: file[2] }) : undefined;
      if (!parsed?.success) throw new ApiError('NOT_FOUND', AUDIO_URL_INVALID_MESSAGE);
      const jobId = parsed.data.job_id.toLowerCase();
      const { format } = parsed.data;
      const { expires, sig } = c.req.valid('query');
      const stat = await fromStore(() => files.captions(jobId, format, expires, sig));
      if (!stat) throw new ApiError('NOT_FOUND', AUDIO_URL_INVALID_MESSAGE);

      c.header('Content-Type', CONTENT_TYPES[format]);
      c.header('Cache-Control', `private, max-age=${stat.secondsLeft}`);
      c.header('Content-Length', String(stat.size));
      if (c.req.method === 'HEAD' || stat.size === 0) return c.body(null, 200);
      const stream = await fromStore(() => stat.open());
      if (!stream) throw new ApiError('NOT_FOUND', AUDIO_URL_INVALID_MESSAGE);
      const failed = 'audio store failed during a captions download; the connection was closed short of Content-Length';
      return c.body(guardedStream(c, stream, log, failed, { job_id: jobId, format }), 200);
    },
    signedQueryHook,
  );
  answerOtherMethods(app, `${CAPTIONS_PATH_PREFIX}:file`, ['GET', 'HEAD']);
}
