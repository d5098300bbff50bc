/**
 * Word timings and captions: an extension beyond the base API (docs/api-rules.md#word-timings-and-captions).
 * A submission asks for them with `timestamps: "word"`; the completed job then carries `timings`, three
 * signed URLs beside `audio_url` (JSON, WebVTT, SRT) that expire, are kept and are deleted with the audio.
 * Absent, a job is exactly what the base API describes.
 */
import { z } from '@hono/zod-openapi';
import { uuid } from './schema-primitives.js';

export const TIMESTAMP_GRANULARITIES = ['none', 'word'] as const;
export type TimestampGranularity = (typeof TIMESTAMP_GRANULARITIES)[number];

/** The three renderings of a job's timings, as they appear in the file name of their URL. */
export const CAPTION_FORMATS = ['json', 'vtt', 'srt'] as const;
export type CaptionFormat = (typeof CAPTION_FORMATS)[number];

export const CAPTION_MEDIA_TYPES: Record<CaptionFormat, string> = {
  json: 'application/json',
  vtt: 'text/vtt',
  srt: 'application/x-subrip',
};

/** A component (not inline) so that the generated client keeps the field optional (see Speed). */
export const Timestamps = z.enum(TIMESTAMP_GRANULARITIES).openapi('Timestamps', {
  description:
    'Extension beyond the base API. `word` asks for word timings and captions: the completed job then carries `timings` with signed URLs of a JSON file of word times, WebVTT and SRT. `none` (the same as leaving the field out) asks for none. Part of the request for Idempotency-Key purposes, `none` and absent alike.',
  example: 'word',
});

const signedUrl = (what: string, example: string) =>
  z
    .string()
    .url()
    .max(4096)
    .openapi({
      description: `Absolute, signed, temporary URL of ${what}; the same expiry as \`audio_url\`, and issued afresh by each GET of the job.`,
      example,
    });

const EXAMPLE_QUERY = '?expires=1775000000&sig=Q2v1p8x0cJ9mT3kL6wR4yB7nH5dF2sA0zE8uG1iO4qW';
const EXAMPLE_FILE = 'https://tts.example.com/v1/captions/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

export const Timings = z
  .object({
    granularity: z.literal('word').openapi({ description: 'What each timing covers: a word.' }),
    json_url: signedUrl('the word timings as JSON (`WordTimingsFile`)', `${EXAMPLE_FILE}.json${EXAMPLE_QUERY}`),
    vtt_url: signedUrl('the captions as WebVTT', `${EXAMPLE_FILE}.vtt${EXAMPLE_QUERY}`),
    srt_url: signedUrl('the captions as SRT', `${EXAMPLE_FILE}.srt${EXAMPLE_QUERY}`),
  })
  .openapi('Timings', {
    description:
      'Extension beyond the base API: present on a completed job that was submitted with `timestamps: "word"`, and only then. Times refer to the delivered MP3 (its encoder delay and the pauses between sentences included).',
  });

const seconds = (description: string) => z.number().min(0).max(1e7).openapi({ description });
const offset = (description: string) => z.number().int().min(0).max(10_000_000).openapi({ format: 'int32', description });

export const WordTiming = z
  .object({
    word: z.string().min(1).max(1024).regex(/\S/).openapi({ description: 'The word as it appears in the submitted text.', example: 'Hello' }),
    start: seconds('When the word starts in the MP3, in seconds (millisecond precision).'),
    end: seconds('When the word ends in the MP3, in seconds; after `start`, and at or before the next word’s `start`.'),
    text_start: offset('Offset of the word in the submitted text, in Unicode code points (Python string indices).'),
    text_end: offset('End of the word (exclusive), in code points.'),
    utf16_start: offset('Offset of the word in the submitted text, in UTF-16 code units (JavaScript string indices).'),
    utf16_end: offset('End of the word (exclusive), in UTF-16 code units.'),
  })
  .openapi('WordTiming', {
    description: 'One word of the text: `text.slice(utf16_start, utf16_end)` in JavaScript (or `text[text_start:text_end]` in Python) is `word`.',
  });

export const CaptionCue = z
  .object({
    start: seconds('Start of the cue, in seconds: the start of its first word.'),
    end: seconds('End of the cue, in seconds: the end of its last word.'),
    text: z
      .string()
      .min(1)
      .max(4096)
      .regex(/\S/)
      .openapi({ description: 'The text of the cue, cut from the submitted text (punctuation kept, line breaks as spaces).' }),
  })
  .openapi('CaptionCue', { description: 'One caption: a few words that are shown together; the WebVTT and SRT files hold the same cues.' });

export const WordTimingsFile = z
  .object({
    job_id: uuid(),
    granularity: z.literal('word'),
    duration_seconds: seconds('Duration of the MP3, as `audio.duration_seconds` of the job.'),
    words: z.array(WordTiming).max(10_000_000).openapi({
      description:
        'Every word of the text, once, in order (a word: a run the Unicode word rules (UAX #29, with dictionaries for languages written without spaces) count as a word, or an emoji). Starts strictly increase.',
    }),
    cues: z.array(CaptionCue).max(10_000_000),
  })
  .openapi('WordTimingsFile', { description: 'The word timings of a job, served at `timings.json_url`.' });

export type TimingsBody = z.infer<typeof Timings>;
export type WordTimingBody = z.infer<typeof WordTiming>;
export type CaptionCueBody = z.infer<typeof CaptionCue>;
export type WordTimingsFileBody = z.infer<typeof WordTimingsFile>;
