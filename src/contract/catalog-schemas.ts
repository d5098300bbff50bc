/** The public voice catalog (`GET {voices_url}/api/v1/voices`). */
import { z } from '@hono/zod-openapi';
import { LANGUAGE_TAG_PATTERN } from './schema-primitives.js';

export const CatalogVoice = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9_]+$/)
      .max(64),
    name: z.string().regex(/\S/).max(128),
    gender: z.enum(['female', 'male']),
    languages: z.array(z.string().regex(LANGUAGE_TAG_PATTERN).max(16)).max(64).openapi({ description: 'Language tags the voice speaks.' }),
    family: z.enum(['kokoro', 'supertonic']),
    curated: z.boolean().openapi({ description: 'Listed among the curated voices of docs/api-rules.md#curated-voices.' }),
  })
  .openapi('CatalogVoice');

export const VoiceCatalog = z
  .object({
    voices: z.array(CatalogVoice).max(10_000),
    count: z.number().int().min(0).max(10_000).openapi({ format: 'int32' }),
  })
  .openapi('VoiceCatalog', { description: 'Every voice the deployment can speak.' });

export type CatalogVoiceBody = z.infer<typeof CatalogVoice>;
