/** The job operations of the API path: submit a text (POST) and check a job (GET). */
import { createRoute } from '@hono/zod-openapi';
import { completedJobExample, completedJobWithTimingsExample, expiredJobExample, failedJobExample, processingJobExample } from './examples.js';
import { API_PATH, LIMITS } from './limits.js';
import { jobIdMessage } from './messages.js';
import { commonHeaders, header } from './response-headers.js';
import { authErrors, errorResponse, internalError, json, rateLimited } from './route-responses.js';
import { CompletedJob, JobStatus, ProcessingJob } from './job-schemas.js';
import { JobIdQuery, PostHeaders } from './parameter-schemas.js';
import { TtsRequest } from './request-schemas.js';

const replayedHeader = {
  'Idempotent-Replayed': header(
    '`true` when an Idempotency-Key already used by this account returned its existing job.',
    { type: 'string', enum: ['true'], maxLength: 4 },
    'true',
  ),
};

export const postJobRoute = createRoute({
  method: 'post',
  path: API_PATH,
  operationId: 'submitTts',
  summary: 'Submit a TTS request',
  tags: ['Jobs'],
  description: [
    'Submits text for synthesis. The server waits up to an inline budget (10 s by default) for the job: if it completes, the answer is 200 with `audio_url`; otherwise 202 with `job_id`, `status_url` and `retry_after_seconds`, and the client polls.',
    '',
    'Order of checks: authentication (401/403) → Idempotency-Key syntax (400) → idempotent replay (decided from the header; the body is not read) → rate limit (429; the body is not read) → body (400, TEXT_TOO_LONG; nesting deeper than 64 levels is refused unparsed) → monthly minutes (403 USAGE_LIMIT_EXCEEDED) → new job. A rejected or replayed request consumes no POST quota.',
    '',
    `Rate limit: ${LIMITS.postPerMinute} POST per rolling ${LIMITS.rateWindowSeconds} s per API key (a bucket separate from GET).`,
    '',
    'Idempotency (docs/api-rules.md#idempotency): an Idempotency-Key is scoped to the account and kept for the life of the job. Concurrent requests with one key create exactly one job and one charge; a replay answers as a GET of that job would (200/202, or the job’s failure), with `Idempotent-Replayed: true`. After a transport failure or an error, retry with the same key; when an error message asks for a new Idempotency-Key (the job was accepted but failed downstream), generate a fresh one.',
    '',
    'Usage: minutes = audio seconds / 60 (two decimals), per calendar month (UTC). An estimate is reserved at submission and refused with USAGE_LIMIT_EXCEEDED when it exceeds what remains; the real duration is settled on completion; a failed job is not charged.',
  ].join('\n'),
  security: [{ bearerAuth: [] }],
  request: {
    headers: PostHeaders,
    body: {
      required: true,
      description: 'JSON object. Unknown fields are ignored.',
      content: {
        'application/json': {
          schema: TtsRequest,
          examples: {
            minimal: { summary: 'Text only (voice af_heart, speed 1.2)', value: { text: 'Hello from agent-tts.' } },
            supertonic: {
              summary: 'Supertonic voice with a language',
              value: { text: 'Bonjour tout le monde.', voice: 'st_f2', speed: 1, language: 'fr' },
            },
            word_timings: {
              summary: 'With word timings and captions (an extension beyond the base API)',
              value: { text: 'Hello from agent-tts.', timestamps: 'word' },
            },
          },
        },
      },
    },
  },
  responses: {
    200: {
      description: 'Completed inside the inline wait: the audio is ready. Also the answer to a replay of a completed job.',
      headers: { ...commonHeaders('post'), ...replayedHeader },
      content: json(CompletedJob, {
        completed: { summary: 'Completed job', value: completedJobExample },
        completed_with_timings: { summary: 'Completed job that asked for word timings (`timestamps: "word"`)', value: completedJobWithTimingsExample },
      }),
    },
    202: {
      description: 'Accepted; still processing after the inline wait. Poll `status_url` after `retry_after_seconds`.',
      headers: { ...commonHeaders('post'), ...replayedHeader },
      content: json(ProcessingJob, { processing: { summary: 'Processing job', value: processingJobExample } }),
    },
    400: errorResponse(['INVALID_REQUEST', 'TEXT_TOO_LONG'], {}, commonHeaders('post')),
    ...authErrors('post'),
    403: errorResponse(['INACTIVE_SUBSCRIPTION', 'NO_API_ACCESS', 'USAGE_LIMIT_EXCEEDED'], {}, commonHeaders('post')),
    429: rateLimited('post'),
    500: internalError('post'),
    502: {
      ...errorResponse(['TTS_PROVIDER_ERROR'], {}, commonHeaders('post')),
      description:
        '`TTS_PROVIDER_ERROR`: the job was accepted but synthesis failed inside the inline wait. The message asks the client to retry with a new Idempotency-Key, and `error.details.job_id` names the failed job (GET shows it as `failed`). A replay of that key answers the same. (A job failing with INTERNAL_ERROR answers 500 the same way.)',
    },
  },
});

export const getJobRoute = createRoute({
  method: 'get',
  path: API_PATH,
  operationId: 'getTtsJob',
  summary: 'Check job status',
  tags: ['Jobs'],
  description: [
    'Returns the job in one of its four statuses, with HTTP 200: `completed` (as the POST 200 body, with a freshly signed `audio_url`), `processing` (with `retry_after_seconds`), `failed` (`success: false`, `error`) and, for legacy jobs only, `expired` (`success: false`, code FILE_EXPIRED).',
    '',
    'Unknown ids and ids of another account’s jobs get the same 404 NOT_FOUND. A job’s record and audio are deleted after its plan’s retention (1, 7 or 30 days), after which it is NOT_FOUND.',
    '',
    `Rate limit: ${LIMITS.getPerMinute} GET per rolling ${LIMITS.rateWindowSeconds} s per API key, separate from POST: polling never uses up the submission quota.`,
  ].join('\n'),
  security: [{ bearerAuth: [] }],
  request: { query: JobIdQuery },
  responses: {
    200: {
      description: 'The job, in any status. `failed` and `expired` carry `success: false`.',
      headers: commonHeaders('get'),
      content: json(JobStatus, {
        completed: { summary: 'Completed job', value: { ...completedJobExample, meta: { ...completedJobExample.meta, processing_time_ms: undefined } } },
        completed_with_timings: {
          summary: 'Completed job that asked for word timings',
          value: { ...completedJobWithTimingsExample, meta: { ...completedJobWithTimingsExample.meta, processing_time_ms: undefined } },
        },
        processing: { summary: 'Processing job', value: processingJobExample },
        failed: { summary: 'Failed job', value: failedJobExample },
        expired: { summary: 'Legacy job whose audio was deleted (FILE_EXPIRED)', value: expiredJobExample },
      }),
    },
    400: errorResponse(['INVALID_REQUEST'], {}, commonHeaders('get'), { INVALID_REQUEST: jobIdMessage('not-a-uuid') }),
    ...authErrors('get'),
    404: errorResponse(['NOT_FOUND'], {}, commonHeaders('get')),
    429: rateLimited('get'),
    500: internalError('get'),
  },
});
