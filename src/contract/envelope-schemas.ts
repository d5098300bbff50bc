/** The envelope every response carries: its metadata, and the body of an error. */
import { z } from '@hono/zod-openapi';
import { ERROR_CODES } from './errors.js';
import { API_VERSION } from './limits.js';
import { uuid } from './schema-primitives.js';

export const Meta = z
  .object({
    request_id: uuid().openapi({ description: 'A fresh UUID for every response, errors included; also sent as X-Request-Id.' }),
    processing_time_ms: z
      .number()
      .int()
      .min(0)
      .max(86_400_000)
      .optional()
      .openapi({ format: 'int32', description: 'Present in completed responses to POST: milliseconds from receipt to completion.' }),
    api_version: z.literal(API_VERSION).openapi({ description: 'The version label (docs/api-rules.md#meta-and-versioning). Present in every response.' }),
  })
  .openapi('Meta', { description: 'Versioned metadata carried by every response.' });

export const ErrorCodeSchema = z.enum(ERROR_CODES).openapi('ErrorCode', {
  description: 'One of the codes of the error table (docs/api-rules.md#errors).',
});

export const UsageLimitDetails = z
  .object({
    limit: z.number().min(0).openapi({ description: 'Monthly TTS minutes of the plan.' }),
    used: z.number().min(0).openapi({ description: 'Minutes used (and reserved) this calendar month (UTC).' }),
    tier: z.string().max(64).openapi({ description: 'The plan, e.g. free, pro, ultimate.' }),
    upgrade_url: z.string().url().max(2048).openapi({ description: 'URL of the billing page.' }),
  })
  .openapi('UsageLimitDetails', { description: 'Details of USAGE_LIMIT_EXCEEDED.' });

export const ErrorObject = z
  .object({
    code: ErrorCodeSchema,
    message: z.string().regex(/\S/).max(2048).openapi({ description: 'Human-readable text.' }),
    details: z.record(z.string(), z.unknown()).optional().openapi({
      // UsageLimitDetails is not referenced by any schema, so it is not emitted as a component: name its
      // fields here rather than point at a component the document does not have.
      description:
        'Optional. For USAGE_LIMIT_EXCEEDED it holds limit (number, monthly TTS minutes of the plan), used (number, minutes used this calendar month, UTC), tier (string, the plan) and upgrade_url (string, URL of the billing page).',
    }),
  })
  .openapi('ErrorObject');

export const ErrorBody = z
  .object({
    success: z.literal(false),
    error: ErrorObject,
    meta: Meta,
  })
  .openapi('ErrorBody', {
    description:
      'Error body. The HTTP status follows the error table. (Named ErrorBody, not Error, so that generated clients do not shadow the built-in Error type.)',
  });

export type MetaBody = z.infer<typeof Meta>;
export type ErrorBodyT = z.infer<typeof ErrorBody>;
