/** The route of a job's word timings and captions: an extension beyond the base API, behind a signed URL like the audio. */
import { createRoute, z } from '@hono/zod-openapi';
import { AUDIO_STORE_RETRY_AFTER_SECONDS, AUDIO_STORE_UNREACHABLE_MESSAGE, AUDIO_URL_INVALID_MESSAGE } from './errors.js';
import { errorExample, wordTimingsFileExample } from './examples.js';
import { CAPTIONS_PATH_PREFIX } from './limits.js';
import { audioUrlMessage } from './messages.js';
import { header, publicHeaders, text } from './response-headers.js';
import { json, publicError } from './route-responses.js';
import { ErrorBody } from './envelope-schemas.js';
import { AudioQuery, CaptionPathParams } from './parameter-schemas.js';
import { WordTimingsFile } from './timing-schemas.js';
import { renderSrt, renderWebVtt } from './captions.js';

const EXAMPLE_VTT = renderWebVtt(wordTimingsFileExample);
const EXAMPLE_SRT = renderSrt(wordTimingsFileExample);

export const getCaptionsRoute = createRoute({
  method: 'get',
  path: `${CAPTIONS_PATH_PREFIX}{job_id}.{format}`,
  operationId: 'downloadCaptions',
  summary: 'Download the word timings or captions of a completed job',
  tags: ['Audio'],
  description:
    'Extension beyond the base API (docs/api-rules.md#word-timings-and-captions). The `timings` URLs of a completed job that asked for `timestamps: "word"` point here: `.json` the word timings, `.vtt` WebVTT captions, `.srt` SubRip captions. Signed like `audio_url` (HMAC-SHA256 over the job id, the format and the expiry, so that a URL of one format does not open another), with the same expiry; kept and deleted with the audio. Refusals are those of the audio URL: 404 NOT_FOUND for a URL that is malformed, tampered with, expired, of a job without timings or whose audio is gone (the same message for all but a malformed query); 503 with `Retry-After` when the object store is unreachable. The remedy is the same: GET the job for fresh URLs.',
  security: [],
  request: { params: CaptionPathParams, query: AudioQuery },
  responses: {
    200: {
      description: 'The timings (JSON) or captions (WebVTT, SRT), UTF-8.',
      headers: {
        ...publicHeaders,
        'Cache-Control': header('`private, max-age=<seconds until the URL expires>`.', text('^private, max-age=\\d+$', 64), 'private, max-age=3600'),
      },
      content: {
        ...json(WordTimingsFile, { timings: { summary: 'Word timings', value: wordTimingsFileExample } }),
        'text/vtt': {
          schema: z
            .string()
            .regex(/^WEBVTT/)
            .max(2_147_483_647)
            .openapi({ example: EXAMPLE_VTT }),
        },
        'application/x-subrip': {
          schema: z
            .string()
            .regex(/^(\d+\n|$)/)
            .max(2_147_483_647)
            .openapi({ example: EXAMPLE_SRT }),
        },
      },
    },
    404: {
      description:
        '`NOT_FOUND`: the URL does not work, for the reasons the audio URL does not, or the job was not submitted with `timestamps: "word"`. GET the job again for fresh URLs; if that answers NOT_FOUND too, the job is gone.',
      headers: publicHeaders,
      content: json(ErrorBody, {
        invalid_caption_url: {
          summary: 'Tampered, expired, unknown, deleted or without timings: all answer alike',
          value: { ...errorExample('NOT_FOUND'), error: { code: 'NOT_FOUND', message: AUDIO_URL_INVALID_MESSAGE } },
        },
        malformed_caption_url: {
          summary: 'Malformed or cut short: the message names the part at fault',
          value: { ...errorExample('NOT_FOUND'), error: { code: 'NOT_FOUND', message: audioUrlMessage({ sig: 'Jm3cV0Hk8G5wq0n1d3bX' }) } },
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
          value: { ...errorExample('INTERNAL_ERROR'), error: { code: 'INTERNAL_ERROR', message: AUDIO_STORE_UNREACHABLE_MESSAGE } },
        },
      }),
    },
  },
});
