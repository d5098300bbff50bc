/** The route of a job's audio while it is made: an extension beyond the base API, behind a signed URL like the audio. */
import { createRoute, z } from '@hono/zod-openapi';
import { AUDIO_STORE_RETRY_AFTER_SECONDS, AUDIO_STORE_UNREACHABLE_MESSAGE, AUDIO_URL_INVALID_MESSAGE } from './errors.js';
import { errorExamples } from './examples.js';
import { STREAM_PATH_PREFIX } from './limits.js';
import { audioUrlMessage } from './messages.js';
import { header, publicHeaders, text } from './response-headers.js';
import { json, publicError } from './route-responses.js';
import { ErrorBody } from './envelope-schemas.js';
import { AudioPathParams, AudioQuery } from './parameter-schemas.js';

const notFound = errorExamples(['NOT_FOUND']).not_found?.value;
const internalError = errorExamples(['INTERNAL_ERROR']).internal_error?.value;

export const getStreamRoute = createRoute({
  method: 'get',
  path: `${STREAM_PATH_PREFIX}{job_id}.mp3`,
  operationId: 'streamAudio',
  summary: 'Stream the audio of a job while it is made',
  tags: ['Audio'],
  description:
    'Extension beyond the base API (docs/api-rules.md#streaming-audio). The `stream_url` of a processing job (the 202 and every processing poll) points here. Signed like `audio_url` (HMAC-SHA256 over the job id, the word `stream` and the expiry, so that it opens neither the audio URL nor a caption URL), with the same expiry. The answer is `audio/mpeg` with chunked transfer (no Content-Length): the audio already made at once, then each next piece as the synthesis writes it; the body ends, normally, with exactly the bytes `audio_url` serves once the job is completed. Of a completed job it serves the file. Every listener gets the audio from its first byte, however late it joins. **A job that fails ends the stream abnormally**: the connection is closed without the chunked body’s last chunk, so a client sees a read error, never a short body that looks whole; GET the job for its error. Where the job runs in another process (the distributed mode), that process publishes the audio in the deployment’s audio store as it is made, in segments of up to about 256 KB or 0.4 s, whichever comes first, and the API instance serves them as they appear; a listener whose run stops (its worker died, so the job runs again) or whose job fails is ended abnormally the same way, and GETs the URL again to hear the new run from its first byte. Refusals are those of the audio URL: 404 NOT_FOUND for a URL that is malformed, tampered with, expired, of an unknown job, of a failed job, or whose audio is gone; 503 with `Retry-After` when the object store is unreachable.',
  security: [],
  request: { params: AudioPathParams, query: AudioQuery },
  responses: {
    200: {
      description: 'The MP3 audio, as it is made (chunked transfer).',
      headers: {
        ...publicHeaders,
        'Cache-Control': header('`no-store`: the body grows while the job runs.', text('^no-store$', 16), 'no-store'),
      },
      content: { 'audio/mpeg': { schema: z.string().openapi({ format: 'binary', maxLength: 2_147_483_647 }) } },
    },
    404: {
      description:
        '`NOT_FOUND`: the URL does not work, for the reasons the audio URL does not, or the job failed. GET the job again for a fresh `stream_url` (or its audio_url, or its error); if that answers NOT_FOUND too, the job is gone.',
      headers: publicHeaders,
      content: json(ErrorBody, {
        invalid_stream_url: {
          summary: 'Tampered, expired, unknown, failed or deleted: all answer alike',
          value: { ...notFound, error: { code: 'NOT_FOUND', message: AUDIO_URL_INVALID_MESSAGE } },
        },
        malformed_stream_url: {
          summary: 'Malformed or cut short: the message names the part at fault',
          value: { ...notFound, error: { code: 'NOT_FOUND', message: audioUrlMessage({ sig: 'Jm3cV0Hk8G5wq0n1d3bX' }) } },
        },
      }),
    },
    500: publicError(['INTERNAL_ERROR']),
    503: {
      description: '`INTERNAL_ERROR`: the object store that keeps the deployment’s files cannot be reached at the moment. Retry after `Retry-After` seconds.',
      headers: {
        ...publicHeaders,
        'Retry-After': header(
          'Whole seconds to wait before retrying.',
          { type: 'string', pattern: '^\\d{1,6}$', maxLength: 6 },
          String(AUDIO_STORE_RETRY_AFTER_SECONDS),
          true,
        ),
      },
      content: json(ErrorBody, {
        audio_store_unreachable: {
          summary: 'The store is unreachable for now',
          value: { ...internalError, error: { code: 'INTERNAL_ERROR', message: AUDIO_STORE_UNREACHABLE_MESSAGE } },
        },
      }),
    },
  },
});
