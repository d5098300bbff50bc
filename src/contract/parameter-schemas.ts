/** The parameters of the operations: query, path and header values, with the examples the document shows. */
import { z } from '@hono/zod-openapi';
import { IDEMPOTENCY_KEY_PATTERN, LIMITS } from './limits.js';
import { uuid } from './schema-primitives.js';

export const JobIdQuery = z.object({
  id: uuid().openapi({
    param: { name: 'id', in: 'query', required: true },
    description: 'The job_id (UUID). Missing or not a UUID: INVALID_REQUEST.',
    example: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  }),
});

export const IdempotencyKeyHeader = z
  .string()
  .regex(IDEMPOTENCY_KEY_PATTERN)
  .max(LIMITS.idempotencyKeyMaxLength)
  .openapi({ description: 'Client-provided key for safe retries: 1 to 255 printable ASCII characters.' });

export const AuthorizationHeader = z
  .string()
  .regex(/^Bearer \S+$/)
  .max(512)
  .openapi({ description: '`Bearer <API_KEY>`, the key in the form tts_<public_id>_<secret>.' });

/** The document's example Idempotency-Key (the API reference page replaces it with a fresh key on every submission). */
export const IDEMPOTENCY_KEY_EXAMPLE = '6c0f1f1e-7e0b-4f3a-9d7e-1b2c3d4e5f60';

export const PostHeaders = z.object({
  'idempotency-key': IdempotencyKeyHeader.optional().openapi({
    param: { name: 'idempotency-key', in: 'header', required: false },
    example: IDEMPOTENCY_KEY_EXAMPLE,
  }),
  'user-agent': z
    .string()
    .regex(/\S/)
    .max(512)
    .optional()
    .openapi({
      param: { name: 'user-agent', in: 'header', required: false },
      description: 'Recommended: app name and version.',
      example: 'my-app/1.0',
    }),
});

export const AudioPathParams = z.object({
  job_id: uuid().openapi({ param: { name: 'job_id', in: 'path', required: true }, example: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f' }),
});

export const CaptionPathParams = z.object({
  job_id: uuid().openapi({ param: { name: 'job_id', in: 'path', required: true }, example: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f' }),
  format: z.enum(['json', 'vtt', 'srt']).openapi({
    param: { name: 'format', in: 'path', required: true },
    description: '`json` (word timings), `vtt` (WebVTT captions) or `srt` (SubRip captions).',
    example: 'vtt',
  }),
});

export const AudioQuery = z.object({
  expires: z
    .string()
    .regex(/^\d{1,12}$/)
    .max(12)
    .openapi({
      param: { name: 'expires', in: 'query', required: true },
      description: 'Unix time (seconds) at which the URL stops working.',
      example: '1775000000',
    }),
  sig: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/)
    .max(43)
    .openapi({
      param: { name: 'sig', in: 'query', required: true },
      description: 'HMAC-SHA256 signature (base64url).',
      example: 'Jm3cV0Hk8G5wq0n1d3bXb1Cq7h9o0W5YtI2m4Yk1aZ0',
    }),
});
