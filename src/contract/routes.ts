import { createRoute, z } from '@hono/zod-openapi';
import type { ErrorCode } from './errors.js';
import { ERROR_TABLE } from './errors.js';
import { completedJobExample, errorExamples, expiredJobExample, failedJobExample, processingJobExample } from './examples.js';
import { API_PATH, LIMITS, VOICES_PATH } from './limits.js';
import { audioUrlMessage, jobIdMessage, rateLimitedMessage } from './messages.js';
import { type PolicyName, RATELIMIT_DRAFT, formatRateLimit, formatRateLimitPolicy } from './ratelimit-headers.js';
import { AUDIO_STORE_RETRY_AFTER_SECONDS, AUDIO_STORE_UNREACHABLE_MESSAGE, AUDIO_URL_INVALID_MESSAGE } from './errors.js';
import {
  AudioPathParams,
  AudioQuery,
  CompletedJob,
  ErrorBody,
  JobIdQuery,
  JobStatus,
  PostHeaders,
  ProcessingJob,
  TtsRequest,
  VoiceCatalog,
} from './schemas.js';
import { CURATED_VOICES } from './voices.js';

type HeaderSchema = { type: 'string'; maxLength: number; pattern?: string; format?: string; enum?: string[] };
type HeaderObject = {
  description: string;
  required?: boolean;
  schema: HeaderSchema;
  /** Also what the mock (Prism) sends for the header. */
  example: string;
};
const header = (description: string, schema: HeaderSchema, example: string, required = false): HeaderObject => ({
  description,
  ...(required ? { required: true } : {}),
  schema,
  example,
});
const text = (pattern: string, maxLength = 256): HeaderSchema => ({ type: 'string', pattern, maxLength });
type Headers = Record<string, HeaderObject>;

const requestIdHeader = header(
  'The request id, as in meta.request_id.',
  { type: 'string', format: 'uuid', maxLength: 36 },
  'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f',
  true,
);
/**
 * Each operation's policy at the server's default limits (src/contract/limits.ts), and what is left
 * of it in the examples: after a submission the one POST of the window is used; after a poll 29 GETs
 * are left. A 429 example has nothing left and waits `retryAfter` seconds: the `t` of its RateLimit,
 * its Retry-After and the wait its message names (test/openapi-ratelimit-examples.test.ts).
 */
const POLICIES = {
  post: { quota: LIMITS.postPerMinute, remaining: 0, retryAfter: 42 },
  get: { quota: LIMITS.getPerMinute, remaining: LIMITS.getPerMinute - 1, retryAfter: 12 },
} as const satisfies Record<PolicyName, { quota: number; remaining: number; retryAfter: number }>;

/**
 * Sent on every response to a request whose key passed authentication (required where always so):
 * the policy of the operation's own bucket, as the server sends it. `limited`: the values of a 429.
 */
const rateLimitHeaders = (policy: PolicyName, required: boolean, limited = false): Headers => {
  const { quota, remaining, retryAfter } = POLICIES[policy];
  const window = LIMITS.rateWindowSeconds;
  const state = limited ? formatRateLimit(policy, 0, retryAfter) : formatRateLimit(policy, remaining, window);
  return {
    'RateLimit-Policy': header(
      `The policy of the bucket that applies to this request, as in ${RATELIMIT_DRAFT} (a Structured Fields List): the policy name (\`"post"\` for POST, \`"get"\` for GET; \`"${policy}"\` here) with \`q\` (requests per window) and \`w\` (the window in seconds): \`${formatRateLimitPolicy(policy, quota, window)}\` with the default limits. Sent whenever the key passed authentication.`,
      text(`^"${policy}";q=\\d{1,9};w=\\d{1,9}$`, 48),
      formatRateLimitPolicy(policy, quota, window),
      required,
    ),
    RateLimit: header(
      `What is left of that policy, as in ${RATELIMIT_DRAFT} (a Structured Fields List): the policy name with \`r\` (requests remaining) and \`t\` (seconds until the quota is restored), e.g. \`${state}\`.${limited ? ' On a 429 `r` is 0 and `t` equals Retry-After.' : ''} Sent whenever the key passed authentication.`,
      text(`^"${policy}";r=\\d{1,9};t=\\d{1,9}$`, 48),
      state,
      required,
    ),
  };
};
/** CORS (docs/api-rules.md#cors): present only for browser requests from an allowed origin. */
const corsHeader: Headers = {
  'Access-Control-Allow-Origin': header(
    'The request’s Origin, when it is the first-party origin or a preview origin; absent otherwise.',
    text('^https?://[^\\s/]+$', 512),
    'https://app.example.com',
  ),
};
/** Headers of a response to an authenticated request of the operation with this policy. */
const commonHeaders = (policy: PolicyName): Headers => ({ 'X-Request-Id': requestIdHeader, ...rateLimitHeaders(policy, true), ...corsHeader });
/** Headers of a response that may come before (or without) a rate-limit decision. */
const looseHeaders = (policy: PolicyName): Headers => ({ 'X-Request-Id': requestIdHeader, ...rateLimitHeaders(policy, false), ...corsHeader });

// Generic, so that a route's response types carry the schema's type: a handler bound to the route
// fails to compile when it answers a body its schema does not describe.
const json = <T extends z.ZodType>(schema: T, examples: Record<string, { summary: string; value: unknown }>) => ({
  'application/json': { schema, examples },
});

/**
 * One error response per HTTP status, with a named example for each code that status can carry;
 * `messages` gives the examples of an operation its own wording (what that operation refuses).
 */
function errorResponse(codes: readonly ErrorCode[], extraHeaders: Headers, baseHeaders: Headers, messages: Partial<Record<ErrorCode, string>> = {}) {
  const lines = codes.map((code) => `\`${code}\`: ${ERROR_TABLE[code].condition}. ${ERROR_TABLE[code].action}`);
  return {
    description: lines.join('\n\n'),
    headers: { ...baseHeaders, ...extraHeaders },
    content: json(ErrorBody, errorExamples(codes, messages)),
  };
}

const authErrors = (policy: PolicyName) => ({
  // A key that fails authentication gets no rate-limit headers: no bucket is its own.
  401: errorResponse(
    ['INVALID_KEY'],
    { 'WWW-Authenticate': header('`Bearer`: the scheme to use.', { type: 'string', enum: ['Bearer'], maxLength: 6 }, 'Bearer', true) },
    { 'X-Request-Id': requestIdHeader, ...corsHeader },
  ),
  // The key itself is valid: its buckets are reported, as on every authenticated answer.
  403: errorResponse(['INACTIVE_SUBSCRIPTION', 'NO_API_ACCESS'], {}, commonHeaders(policy)),
});
/** The 429 of the operation with this policy: its headers, Retry-After and message say the same. */
const rateLimited = (policy: PolicyName) => {
  const { quota, retryAfter } = POLICIES[policy];
  return errorResponse(
    ['RATE_LIMITED'],
    {
      'Retry-After': header(
        'Whole seconds (at least 1) until the bucket admits a request: the `t` of `RateLimit`, and the wait the message names.',
        { type: 'string', pattern: '^\\d{1,6}$', maxLength: 6 },
        String(retryAfter),
        true,
      ),
    },
    { 'X-Request-Id': requestIdHeader, ...rateLimitHeaders(policy, true, true), ...corsHeader },
    { RATE_LIMITED: rateLimitedMessage(policy === 'post' ? 'POST' : 'GET', quota, LIMITS.rateWindowSeconds, retryAfter) },
  );
};
const internalError = (policy: PolicyName) => errorResponse(['INTERNAL_ERROR'], {}, looseHeaders(policy));
/** Headers of the routes without an API key (audio download, voice catalog): no rate-limit bucket applies. */
const publicHeaders = { 'X-Request-Id': requestIdHeader, ...corsHeader };
const publicError = (codes: readonly ErrorCode[], extra: Headers = {}, messages: Partial<Record<ErrorCode, string>> = {}) =>
  errorResponse(codes, extra, publicHeaders, messages);
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
    'Order of checks: authentication (401/403) → body (400, TEXT_TOO_LONG) → idempotent replay → rate limit (429) → monthly minutes (403 USAGE_LIMIT_EXCEEDED) → new job. A rejected or replayed request consumes no POST quota.',
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
          },
        },
      },
    },
  },
  responses: {
    200: {
      description: 'Completed inside the inline wait: the audio is ready. Also the answer to a replay of a completed job.',
      headers: { ...commonHeaders('post'), ...replayedHeader },
      content: json(CompletedJob, { completed: { summary: 'Completed job', value: completedJobExample } }),
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

export const getAudioRoute = createRoute({
  method: 'get',
  path: '/v1/audio/{job_id}.mp3',
  operationId: 'downloadAudio',
  summary: 'Download the audio of a completed job',
  tags: ['Audio'],
  description:
    'The `audio_url` of a completed job points here. The signed query (HMAC-SHA256 over the job id and expiry) is the capability: no Authorization header. Supports one byte range (`Range: bytes=…`, answered 206); a `Range` that is not one valid byte range (another unit, several ranges, or a malformed one such as `bytes=100-50`) is ignored and the whole file sent with 200 (RFC 9110 §14.2). Download immediately after completion.\n\n' +
    'Every refusal of an audio URL answers **404 NOT_FOUND**, the status the error table of docs/api-rules.md#errors gives that code, and has one remedy: GET the job (its status URL), which answers with a fresh `audio_url`, or NOT_FOUND when the job is gone (then submit the text again). A URL that is malformed or cut short (`expires` or `sig` missing, or not of the form the server issues) says which part is at fault; a URL that is well formed but does not work (its signature tampered with, its expiry passed, a job that does not exist, or audio deleted by retention) answers with the message "' +
    AUDIO_URL_INVALID_MESSAGE +
    '" Why 404 and not 400/401/403: the signed URL is a capability, and an invalid capability names no resource; a client that refetches on 404 recovers from all of them, a truncated URL included. Tampered, expired, unknown and deleted answer alike, so the URL reveals nothing. Two answers are exceptions to the table, each where HTTP has a status clients act on: a valid `Range` that cannot be satisfied (it starts at or past the end of the file) is HTTP 416 (the range protocol, RFC 9110) with the INVALID_REQUEST body, and, in a deployment that keeps audio in an object store, a store that cannot be reached at that moment is HTTP 503 with `Retry-After` and the INTERNAL_ERROR body (the outage passes; players and proxies retry a 503).',
  security: [],
  request: { params: AudioPathParams, query: AudioQuery },
  responses: {
    200: {
      description: 'The MP3 file.',
      headers: {
        ...publicHeaders,
        'Accept-Ranges': header('`bytes`.', { type: 'string', enum: ['bytes'], maxLength: 5 }, 'bytes'),
        'Content-Length': header('Size in bytes.', { type: 'string', pattern: '^\\d{1,12}$', maxLength: 12 }, '14263'),
        'Cache-Control': header('`private, max-age=<seconds until the URL expires>`.', text('^private, max-age=\\d+$', 64), 'private, max-age=3600'),
      },
      content: { 'audio/mpeg': { schema: z.string().openapi({ format: 'binary', maxLength: 2_147_483_647 }) } },
    },
    206: {
      description: 'The requested byte range of the MP3 file.',
      headers: {
        ...publicHeaders,
        'Content-Range': header('`bytes <start>-<end>/<size>`.', text('^bytes \\d+-\\d+/\\d+$', 64), 'bytes 0-1023/14263'),
        'Content-Length': header('Size of the range in bytes.', { type: 'string', pattern: '^\\d{1,12}$', maxLength: 12 }, '1024'),
      },
      content: { 'audio/mpeg': { schema: z.string().openapi({ format: 'binary', maxLength: 2_147_483_647 }) } },
    },
    404: {
      description:
        '`NOT_FOUND`: the URL does not work, whatever the reason: malformed or cut short (`expires` or `sig` missing, or not of the issued form: Unix seconds of 1 to 12 digits, a 43-character base64url signature; the message names the part), or well formed but not valid (tampered signature, passed expiry, malformed file name, a job that does not exist, audio deleted by retention; one message for all). GET the job again for a fresh `audio_url`; if that answers NOT_FOUND too, the job is gone: submit the text again.',
      headers: publicHeaders,
      content: json(ErrorBody, {
        invalid_audio_url: {
          summary: 'Tampered, expired, unknown or deleted: all answer alike',
          value: { ...errorExamples(['NOT_FOUND']).not_found!.value, error: { code: 'NOT_FOUND', message: AUDIO_URL_INVALID_MESSAGE } },
        },
        malformed_audio_url: {
          summary: 'Malformed or cut short (here a sig cut short): the message names the part at fault',
          value: { ...errorExamples(['NOT_FOUND']).not_found!.value, error: { code: 'NOT_FOUND', message: audioUrlMessage({ sig: 'Jm3cV0Hk8G5wq0n1d3bX' }) } },
        },
      }),
    },
    416: {
      description:
        '`INVALID_REQUEST`: the Range is a valid byte range that cannot be satisfied (it starts at or past the end of the file; a malformed Range is ignored instead). HTTP 416 (the range protocol of RFC 9110) rather than the 400 of the error table: the one documented exception.',
      headers: { 'X-Request-Id': requestIdHeader, ...corsHeader, 'Content-Range': header('`bytes */<size>`.', text('^bytes \\*/\\d+$', 64), 'bytes */14263') },
      content: json(ErrorBody, errorExamples(['INVALID_REQUEST'], { INVALID_REQUEST: 'The requested range is not within the file of 14263 bytes.' })),
    },
    500: publicError(['INTERNAL_ERROR']),
    503: {
      description:
        '`INTERNAL_ERROR`: the object store that keeps the deployment’s audio cannot be reached at the moment (deployments with `AUDIO_STORE=s3://…`). Retry after `Retry-After` seconds; the URL stays valid until its expiry. The message names no endpoint, bucket or store error. HTTP 503 rather than the 500 of the error table: a documented exception (docs/api-rules.md#audio-urls).',
      headers: {
        ...publicHeaders,
        'Retry-After': header(
          'Whole seconds to wait before retrying the download.',
          { type: 'string', pattern: '^\\d{1,6}$', maxLength: 6 },
          String(AUDIO_STORE_RETRY_AFTER_SECONDS),
          true,
        ),
      },
      content: json(ErrorBody, {
        audio_store_unreachable: {
          summary: 'The audio store is unreachable for now',
          value: { ...errorExamples(['INTERNAL_ERROR']).internal_error!.value, error: { code: 'INTERNAL_ERROR', message: AUDIO_STORE_UNREACHABLE_MESSAGE } },
        },
      }),
    },
  },
});

export const listVoicesRoute = createRoute({
  method: 'get',
  path: VOICES_PATH,
  operationId: 'listVoices',
  summary: 'Public voice catalog',
  tags: ['Voices'],
  description: 'Served by the separate voice-catalog origin (`{voices_url}`), public, with no authentication: every voice the deployment can speak.',
  security: [],
  servers: [
    {
      url: 'https://voices.example.com',
      description: 'Production voice-catalog origin of a deployment. The reference server serves it on its own listener (http://127.0.0.1:8081 by default).',
      'x-internal': false,
    } as never,
  ],
  responses: {
    200: {
      description: 'The voice catalog.',
      headers: { 'X-Request-Id': requestIdHeader, ...corsHeader },
      content: json(VoiceCatalog, {
        catalog: {
          summary: 'Curated voices',
          value: {
            count: CURATED_VOICES.length,
            voices: CURATED_VOICES.map((v) => ({
              id: v.id,
              name: v.name,
              gender: v.gender,
              languages: [v.language],
              family: v.family,
              curated: true,
            })),
          },
        },
      }),
    },
    500: publicError(['INTERNAL_ERROR']),
  },
});

export const routes = [postJobRoute, getJobRoute, getAudioRoute, listVoicesRoute] as const;
