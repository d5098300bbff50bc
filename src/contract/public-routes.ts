/** The routes without an API key: the audio download behind a signed URL, and the public voice catalog. */
import { createRoute, z } from '@hono/zod-openapi';
import { AUDIO_STORE_RETRY_AFTER_SECONDS, AUDIO_STORE_UNREACHABLE_MESSAGE, AUDIO_URL_INVALID_MESSAGE } from './errors.js';
import { errorExample, errorExamples } from './examples.js';
import { VOICES_PATH } from './limits.js';
import { audioUrlMessage } from './messages.js';
import { corsHeader, header, publicHeaders, requestIdHeader, text } from './response-headers.js';
import { json, publicError } from './route-responses.js';
import { VoiceCatalog } from './catalog-schemas.js';
import { ErrorBody } from './envelope-schemas.js';
import { AudioPathParams, AudioQuery } from './parameter-schemas.js';
import { CURATED_VOICES } from './voices.js';

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
          value: { ...errorExample('NOT_FOUND'), error: { code: 'NOT_FOUND', message: AUDIO_URL_INVALID_MESSAGE } },
        },
        malformed_audio_url: {
          summary: 'Malformed or cut short (here a sig cut short): the message names the part at fault',
          value: { ...errorExample('NOT_FOUND'), error: { code: 'NOT_FOUND', message: audioUrlMessage({ sig: 'Jm3cV0Hk8G5wq0n1d3bX' }) } },
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
          value: { ...errorExample('INTERNAL_ERROR'), error: { code: 'INTERNAL_ERROR', message: AUDIO_STORE_UNREACHABLE_MESSAGE } },
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
