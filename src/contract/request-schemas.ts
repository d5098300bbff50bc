/** The body of a submission (POST): the text to speak, and the voice, speed and language to speak it with. */
import { z } from '@hono/zod-openapi';
import { LANGUAGE_CODES } from './languages.js';
import { LIMITS, codePointLength } from './limits.js';
import { Timestamps } from './timing-schemas.js';
import { DEFAULT_VOICE, VOICE_PATTERN } from './voices.js';

/** zod issue `params.reason` for a text over the limit, so the server can answer TEXT_TOO_LONG. */
export const TEXT_TOO_LONG_REASON = 'TEXT_TOO_LONG';

const VOICE_ID_DESCRIPTION =
  'Kokoro-style `<language letter><gender letter>_<name>` (language from the first letter: a en-US, b en-GB, e es, f fr, h hi, i it, j ja, p pt-BR, z zh; gender f or m), or Supertonic `st_f1`…`st_f5`, `st_m1`…`st_m5`. Any id of this pattern is accepted (§2.3). An id the voice catalog (`GET {voices_url}/api/v1/voices`) does not list, such as a typo of a listed id, is spoken by the closest listed voice of the same family, gender and language, and `audio.voice` names the voice used; a deployment may be set to refuse such ids with 400 INVALID_REQUEST naming the closest listed ids, a departure from the API (docs/api-rules.md#voices-and-languages).';

export const VoiceId = z.string().regex(VOICE_PATTERN).max(35).openapi('VoiceId', {
  description: VOICE_ID_DESCRIPTION,
  example: 'af_heart',
});

export const LanguageCodeSchema = z.enum(LANGUAGE_CODES).openapi('LanguageCode', {
  description: 'A Supertonic language code (docs/api-rules.md#supertonic-language-codes).',
});

/**
 * A component rather than an inline property: openapi-typescript types a property that carries a
 * `default` as required (defaultNonNullable), which made `speed` mandatory in the generated client's
 * request type. Behind a $ref, as for voice, it stays optional.
 */
export const Speed = z
  .number()
  .min(LIMITS.speedMin)
  .max(LIMITS.speedMax)
  .openapi('Speed', { description: 'Speaking speed, 0.5 to 1.5; default 1.2.', default: LIMITS.speedDefault, example: 1.2 });

const textSchema = z
  .string()
  .superRefine((text, ctx) => {
    const length = codePointLength(text);
    if (length > LIMITS.textMaxChars) {
      ctx.addIssue({
        code: 'custom',
        message: `text has ${length} characters; the limit is ${LIMITS.textMaxChars}`,
        params: { reason: TEXT_TOO_LONG_REASON },
      });
    } else if (length < LIMITS.textMinChars || text.trim().length === 0) {
      ctx.addIssue({ code: 'custom', message: 'text must contain at least one non-blank character' });
    }
  })
  .openapi({
    description:
      'The text to speak: 1 to 500,000 characters counted as Unicode code points, not blank. Over the limit: TEXT_TOO_LONG; empty or blank: INVALID_REQUEST.',
    minLength: LIMITS.textMinChars,
    maxLength: LIMITS.textMaxChars,
    pattern: '\\S',
    example: 'Hello from agent-tts.',
  });

export const TtsRequest = z
  .object({
    text: textSchema,
    // zod-to-openapi copies this field metadata onto the registered VoiceId component, replacing its
    // description: repeat the pattern explanation so the document keeps it.
    voice: VoiceId.optional().openapi({ description: `${VOICE_ID_DESCRIPTION} Default ${DEFAULT_VOICE}.`, default: DEFAULT_VOICE }),
    speed: Speed.optional(),
    language: LanguageCodeSchema.optional().openapi({
      description:
        'Used for st_* voices (default en). Kokoro voices (all other ids) speak the language of their id and ignore this field; when given it must still be a listed code.',
    }),
    timestamps: Timestamps.optional(),
  })
  .openapi('TtsRequest', {
    description: 'Unknown fields are ignored. A wrong Content-Type or malformed JSON is INVALID_REQUEST.',
  });

export type TtsRequestBody = z.infer<typeof TtsRequest>;
