/** The tool as MCP clients see it: its name, description, input (and how it is checked) and output schema. */
import { AgentTtsError } from '@agent-tts/client/errors.js';
import { AGENT_TOOL_DEFAULT_VOICE, DEFAULT_SUPERTONIC_LANGUAGE, LIMITS } from '@agent-tts/client';
import { z } from 'zod';
import { DEFAULT_MAX_CALL_MS } from './options.js';

export const TOOL_NAME = 'text_to_speech';

/**
 * The parameters and defaults of docs/api-rules.md#agent-tool (text, voice, speed, language),
 * exactly, plus optional ones of this tool: `wait_for_rate_limit`, `job_id`, and `timestamps` (the
 * API's word-timings extension).
 */
export const TOOL_INPUT = {
  text: z.string().describe('The text to speak (1 to 500,000 characters).'),
  voice: z
    .string()
    .default(AGENT_TOOL_DEFAULT_VOICE)
    .describe('Voice id, e.g. st_m1 to st_m5, st_f1 to st_f5 (fast, any language) or af_heart, bf_emma (English).'),
  speed: z.number().min(LIMITS.speedMin).max(LIMITS.speedMax).default(LIMITS.speedDefault).describe('Speaking speed, 0.5 to 1.5.'),
  language: z.string().default(DEFAULT_SUPERTONIC_LANGUAGE).describe('Language code for st_* voices, e.g. en, fr, de, es, ja.'),
  wait_for_rate_limit: z
    .boolean()
    .default(false)
    .describe(
      'When the service answers RATE_LIMITED, wait its Retry-After inside this call (progress is reported) instead of returning the error at once; ' +
        `only if the wait fits in the call's ${DEFAULT_MAX_CALL_MS / 1000} s, otherwise the error comes back at once with retry_after_seconds.`,
    ),
  job_id: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('The job_id of an earlier call that answered status "processing": waits for that job instead of submitting the text again.'),
  timestamps: z
    .enum(['none', 'word'])
    .default('none')
    .describe(
      '"word" also returns captions timed to the audio, in `timings`: vtt_url (WebVTT), srt_url (SubRip) and json_url (each word\'s start and end ' +
        'in seconds); temporary URLs like audio_url. For subtitles, karaoke-style highlighting or cutting the audio. Pass it again with job_id. ' +
        'A service without word timings (an extension beyond the base API) answers without them, with a message saying so.',
    ),
};

const TOOL_INPUT_SCHEMA = z.object(TOOL_INPUT);
export type ToolInput = z.output<typeof TOOL_INPUT_SCHEMA>;

/**
 * What the tool is registered with: every field accepts anything (even absent), so that a bad argument
 * reaches the tool and is answered in the documented error shape; the SDK's own validation would
 * answer a bare "MCP error -32602" text instead. The fields and the object carry TOOL_INPUT's JSON
 * Schema as metadata, so the listed inputSchema still shows types, ranges, defaults and `required`.
 */
export function permissiveInput() {
  const json = z.toJSONSchema(TOOL_INPUT_SCHEMA, { io: 'input', target: 'draft-7' }) as {
    properties: Record<keyof typeof TOOL_INPUT, Record<string, unknown>>;
    required?: string[];
  };
  const keys = Object.keys(TOOL_INPUT) as Array<keyof typeof TOOL_INPUT>;
  const shape = Object.fromEntries(keys.map((key) => [key, z.unknown().optional().meta(json.properties[key])]));
  return z.object(shape).meta({ required: json.required });
}

/** Checks the arguments against TOOL_INPUT (defaults applied), or the INVALID_REQUEST naming each bad field. */
export function parseToolInput(args: unknown): ToolInput | AgentTtsError {
  const parsed = TOOL_INPUT_SCHEMA.safeParse(args);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : 'arguments'}: ${i.message}`)
    .join('; ');
  return new AgentTtsError({ code: 'INVALID_REQUEST', message: `Invalid ${TOOL_NAME} arguments: ${issues}` });
}

/**
 * The one error shape of the tool (src/mcp/README.md, "Errors"): every key present on every error.
 * `status` is the HTTP status the API gives the code (for a job that failed while polled, the status a
 * POST of it answers, never the 200 of the GET) and null for an error of the tool itself, with no
 * answer from the API behind it; `request_id` likewise; `job_id` and `retry_after_seconds` are null
 * when the error names no job or carries no Retry-After.
 */
export const ERROR_OUTPUT = z.object({
  code: z.string(),
  message: z.string(),
  suggested_action: z.string(),
  request_id: z.string().nullable(),
  status: z.number().nullable(),
  job_id: z.string().nullable(),
  retry_after_seconds: z.number().nullable(),
  details: z.record(z.string(), z.unknown()).optional(),
});

/**
 * One of three shapes (the `anyOf` says which fields each requires): a completed job (`status:
 * "completed"`, `audio_url`), a job still processing when the call's time ran out (`status:
 * "processing"`, `job_id`, `status_url`), or the structured error (`error`).
 */
export const TOOL_OUTPUT = z
  .object({
    status: z.enum(['completed', 'processing']).optional(),
    audio_url: z.string().optional().describe('Temporary URL of the MP3; download it soon.'),
    timings: z
      .object({ vtt_url: z.string(), srt_url: z.string(), json_url: z.string() })
      .optional()
      .describe('With timestamps "word": temporary URLs of the captions (WebVTT, SubRip) and the word timings (JSON) of the audio.'),
    job_id: z.string().optional(),
    duration_seconds: z.number().optional(),
    format: z.string().optional(),
    voice: z.string().optional(),
    speed: z.number().optional(),
    language: z.string().optional(),
    status_url: z.string().optional().describe('Processing only: the URL that reports the job (GET, with the API key).'),
    progress_percent: z.number().optional(),
    stream_url: z
      .string()
      .optional()
      .describe(
        'Processing only, when the service streams audio while a job runs (an extension): temporary URL of the MP3 as it is made, ' +
          'from its first byte, growing until it is exactly the audio of audio_url; hand it to a player at once (no API key needed). ' +
          'It ends abnormally if the job fails.',
      ),
    retry_after_seconds: z.number().optional().describe('Processing only: seconds to wait before asking again.'),
    message: z
      .string()
      .optional()
      .describe('Processing: what to do next. Completed: present only when timestamps "word" was asked and the service returned no timings.'),
    warning: z
      .string()
      .optional()
      .describe(
        "Completed: present when the voice that spoke the audio (voice) is not the one asked for: the service's catalog does not list that id, so it spoke the closest listed voice.",
      ),
    error: ERROR_OUTPUT.optional().describe('Present instead of the rest when the call failed (isError is then true).'),
  })
  .meta({
    anyOf: [
      { required: ['status', 'audio_url', 'job_id', 'format', 'voice', 'speed'] },
      { required: ['status', 'job_id', 'status_url', 'message'] },
      { required: ['error'] },
    ],
  });

export const DESCRIPTION =
  'Converts text to speech (MP3) and returns a temporary audio URL (status "completed"). Short texts finish at once; long ones are waited for, ' +
  `with progress notifications when the request has a progressToken. A call answers within ${DEFAULT_MAX_CALL_MS / 1000} s: a job still running then ` +
  'comes back as status "processing" with its job_id, status_url and retry_after_seconds; call the tool again with the same arguments plus job_id ' +
  'to wait for it (no new job is made); where the service streams audio, it also has stream_url, which plays the audio while it is made. On failure the result is an error (isError) with code, message, suggested_action and request_id, ' +
  'at once, RATE_LIMITED included (the service allows one submission a minute per key): its retry_after_seconds says when to call again, ' +
  'or pass wait_for_rate_limit: true to have the call wait, when the wait fits in the call. ' +
  'With timestamps: "word" the answer also has `timings`: URLs of WebVTT and SRT captions and of JSON word timings.';
