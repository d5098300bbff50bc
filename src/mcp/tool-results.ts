/** The three answers of the tool: a completed job, a job still processing when the call's time ran out, and the structured error. */
import type { AgentTtsClient } from '@agent-tts/client/client.js';
import { AgentTtsError } from '@agent-tts/client/errors.js';
import type { CompletedJob } from '@agent-tts/client/types.js';
import { API_PATH } from '@agent-tts/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { type ERROR_OUTPUT, TOOL_NAME } from './tool-schema.js';

/**
 * The structured error of §4.9 step 3, in one shape (ERROR_OUTPUT): code, message, suggested action,
 * request id, status, job id and Retry-After, each null when it does not apply.
 */
export function toolError(error: unknown, redact: (text: string) => string): CallToolResult {
  const body: z.output<typeof ERROR_OUTPUT> =
    error instanceof AgentTtsError
      ? {
          code: error.code,
          message: error.message,
          suggested_action: error.suggestedAction,
          request_id: error.requestId ?? null,
          // A job that failed while polled is reported in a 200 (GET): its status is the code's, as a POST of it answers.
          status: error.status === 200 && error.jobId ? (error.tableStatus ?? null) : (error.status ?? null),
          job_id: error.jobId ?? null,
          retry_after_seconds: error.retryAfterSeconds ?? null,
          ...(error.details ? { details: error.details } : {}),
        }
      : {
          code: 'INTERNAL_ERROR',
          message: error instanceof Error ? error.message : String(error),
          suggested_action: 'Retry with backoff.',
          request_id: null,
          status: null,
          job_id: null,
          retry_after_seconds: null,
        };
  // The message may quote what the caller sent; the same redacted text goes in both places.
  const structured = JSON.parse(redact(JSON.stringify({ error: body }))) as { error: typeof body };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(structured, null, 2) }], structuredContent: structured };
}

/**
 * The answer for a completed job: its audio URL and what the audio is; with `timestamps: "word"`
 * asked, its caption URLs, or a message saying the service returned none.
 */
export function completedResult(job: CompletedJob, redact: (text: string) => string, askedTimings = false, askedVoice?: string): CallToolResult {
  const t = job.timings;
  const substituted = askedVoice !== undefined && job.audio.voice !== askedVoice;
  const structured = {
    status: 'completed' as const,
    audio_url: job.audio_url,
    ...(askedTimings && t ? { timings: { vtt_url: t.vtt_url, srt_url: t.srt_url, json_url: t.json_url } } : {}),
    job_id: job.job_id,
    duration_seconds: job.audio.duration_seconds,
    format: job.audio.format,
    voice: job.audio.voice,
    speed: job.audio.speed,
    language: job.audio.language,
    ...(askedTimings && !t
      ? {
          message:
            'The audio is ready, but the service returned no word timings: it does not offer captions (an extension beyond the base API), ' +
            'or job_id names a job submitted without timestamps "word".',
        }
      : {}),
    ...(substituted ? { warning: substitutedVoiceWarning(askedVoice, job.audio.voice) } : {}),
  };
  return { content: [{ type: 'text', text: redact(JSON.stringify(structured, null, 2)) }], structuredContent: structured };
}

/** The warning of a job spoken in another voice than the one asked for (docs/api-rules.md#voices-and-languages). */
const substitutedVoiceWarning = (asked: string, spoken: string) =>
  `The audio was spoken by ${spoken}, not ${asked}: the service's voice catalog does not list ${asked}, so it used the closest listed voice of the same language and gender. Choose a listed voice (agent-tts voices) to hear the one you ask for.`;

/**
 * The answer for a job still processing when the call's time ran out: how to wait for it in a later
 * call, and, when the service streams audio while a job runs (its last answer had a `stream_url`), the
 * URL that plays it now.
 */
export function processingResult(
  job: { jobId: string; percent: number | undefined; streamUrl: string | undefined },
  nextPollInMs: number,
  client: AgentTtsClient,
  maxCallMs: number,
  redact: (text: string) => string,
): CallToolResult {
  // Counted from now: the part of the service's last retry_after_seconds that the call has not waited.
  const retryAfterSeconds = Math.max(1, Math.ceil(nextPollInMs / 1000));
  const { jobId, percent, streamUrl } = job;
  const structured = {
    status: 'processing' as const,
    job_id: jobId,
    status_url: `${client.baseUrl}${API_PATH}?id=${encodeURIComponent(jobId)}`,
    ...(percent !== undefined ? { progress_percent: percent } : {}),
    ...(streamUrl ? { stream_url: streamUrl } : {}),
    retry_after_seconds: retryAfterSeconds,
    message:
      `The job is still processing after ${Math.round(maxCallMs / 1000)} s. Call ${TOOL_NAME} again with the same arguments and ` +
      `job_id "${jobId}" (after about ${retryAfterSeconds} s) to wait for it; no new job is made.` +
      (streamUrl ? ' Meanwhile stream_url plays the audio made so far and the rest as it is made (MP3, no API key needed).' : ''),
  };
  return { content: [{ type: 'text', text: redact(JSON.stringify(structured, null, 2)) }], structuredContent: structured };
}
