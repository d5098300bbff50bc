import type { OpenAPIHono } from '@hono/zod-openapi';
import { AUDIO_URL_INVALID_MESSAGE } from '@agent-tts/contract/errors.js';
import { STREAM_PATH_PREFIX } from '@agent-tts/contract/limits.js';
import { getStreamRoute } from '@agent-tts/contract/routes.js';
import { ApiError } from '../api-error.js';
import type { AppEnv } from '../context.js';
import { answerOtherMethods } from '../create-app.js';
import { guardedStream } from '../streamed-body.js';
import { fromStore, mp3JobId, type SignedFileRouteDeps, signedQueryHook } from './signed-files.js';

/**
 * GET /v1/stream/{job_id}.mp3: a job's audio while it is made (an extension beyond the base API;
 * docs/api-rules.md#streaming-audio), behind a signed URL like the audio's, refused as it is (404
 * NOT_FOUND, a failed job too; 503 when the store cannot be reached). The body has no Content-Length
 * (chunked transfer): what is made at once, then each next piece as it is written, ending with the
 * bytes of the audio URL. A job that fails ends it abnormally: the connection is destroyed without the
 * last chunk (streamed-body.ts), so a client sees an error, never a short body that looks whole.
 */
export function registerStreamRoutes(app: OpenAPIHono<AppEnv>, deps: SignedFileRouteDeps): void {
  const { files, log } = deps;
  // As for the audio: `{job_id}.mp3` is one path segment, routed as one parameter and split here.
  app.openAPIRegistry.registerPath(getStreamRoute);
  const routed = { ...getStreamRoute, path: `${STREAM_PATH_PREFIX}{file}`, hide: true, request: { query: getStreamRoute.request.query } };
  app.openapi(
    routed,
    async (c) => {
      const jobId = mp3JobId(c.req.param('file'));
      const { expires, sig } = c.req.valid('query');
      const streamed = await fromStore(() => files.stream(jobId, expires, sig));
      if (!streamed) throw new ApiError('NOT_FOUND', AUDIO_URL_INVALID_MESSAGE);

      c.header('Content-Type', 'audio/mpeg');
      c.header('Cache-Control', 'no-store');
      if (c.req.method === 'HEAD') return c.body(null, 200);
      const failed = 'audio stream ended short (the job failed or stopped, or the store failed); the connection was closed without its last chunk';
      return c.body(guardedStream(c, streamed.open(), log, failed, { job_id: jobId }), 200);
    },
    signedQueryHook,
  );
  answerOtherMethods(app, `${STREAM_PATH_PREFIX}:file`, ['GET', 'HEAD']);
}
