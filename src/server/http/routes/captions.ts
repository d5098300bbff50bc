import type { OpenAPIHono } from '@hono/zod-openapi';
import { renderSrt, renderWebVtt } from '@agent-tts/contract/captions.js';
import { AUDIO_URL_INVALID_MESSAGE } from '@agent-tts/contract/errors.js';
import { CAPTIONS_PATH_PREFIX } from '@agent-tts/contract/limits.js';
import { getCaptionsRoute } from '@agent-tts/contract/routes.js';
import { CaptionPathParams } from '@agent-tts/contract/schemas.js';
import { CAPTION_MEDIA_TYPES, type CaptionFormat, type WordTimingsFileBody } from '@agent-tts/contract/timing-schemas.js';
import { ApiError } from '../../domain/errors.js';
import { isLegacyExpired } from '../../domain/job-state.js';
import { systemClock } from '../../ports/index.js';
import type { AppEnv } from '../context.js';
import { answerOtherMethods } from '../create-app.js';
import { fromStore, type SignedFileRouteDeps, signedQueryHook } from './signed-files.js';

/** The answer's Content-Type: the contract's media type, with the charset of the text formats. */
const CONTENT_TYPES: Record<CaptionFormat, string> = {
  json: CAPTION_MEDIA_TYPES.json,
  vtt: `${CAPTION_MEDIA_TYPES.vtt}; charset=utf-8`,
  srt: `${CAPTION_MEDIA_TYPES.srt}; charset=utf-8`,
};

/** The stored timings file in the format asked for: JSON as stored, WebVTT and SRT rendered from its cues. */
function render(stored: Uint8Array, format: CaptionFormat): Uint8Array {
  if (format === 'json') return stored;
  const file = JSON.parse(new TextDecoder().decode(stored)) as WordTimingsFileBody;
  return new TextEncoder().encode(format === 'vtt' ? renderWebVtt(file) : renderSrt(file));
}

/**
 * GET /v1/captions/{job_id}.{format}: a job's word timings (json) or captions (vtt, srt), behind a
 * signed URL like the audio's (an extension beyond the base API; docs/api-rules.md#word-timings-and-captions).
 * The signature binds the format, so the URL of one format opens no other. Every refusal is the audio
 * route's: 404 NOT_FOUND with one message for a tampered or expired signature, an unknown job, a job
 * that asked for no timings and timings that no longer exist; a malformed or cut-short query names its
 * fault; 503 with Retry-After when the store cannot be reached. Its helpers are the audio route's
 * (signed-files.ts).
 */
export function registerCaptionRoutes(app: OpenAPIHono<AppEnv>, deps: SignedFileRouteDeps): void {
  const { audio, signer, store } = deps;
  const clock = deps.clock ?? systemClock;
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
      const now = clock.now();
      if (!signer.verifyCaptions(jobId, format, expires, sig, now)) throw new ApiError('NOT_FOUND', AUDIO_URL_INVALID_MESSAGE);
      const job = await store.getJob(jobId);
      const timed = job?.status === 'completed' && job.timestamps === 'word' && !isLegacyExpired(job, now);
      const stored = timed ? await fromStore(() => audio.readTimings(jobId)) : undefined;
      if (!stored) throw new ApiError('NOT_FOUND', AUDIO_URL_INVALID_MESSAGE);

      const body = render(stored, format);
      c.header('Content-Type', CONTENT_TYPES[format]);
      c.header('Cache-Control', `private, max-age=${signer.secondsLeft(expires, now)}`);
      c.header('Content-Length', String(body.byteLength));
      if (c.req.method === 'HEAD') return c.body(null, 200);
      return c.body(body as Uint8Array<ArrayBuffer>, 200);
    },
    signedQueryHook,
  );
  answerOtherMethods(app, `${CAPTIONS_PATH_PREFIX}:file`, ['GET', 'HEAD']);
}
