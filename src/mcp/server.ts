import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AgentTtsClient } from '@agent-tts/client/client.js';
import type { ClientClock } from '@agent-tts/client/clock.js';
import { AgentTtsError } from '@agent-tts/client/errors.js';
import { abortReason } from '@agent-tts/client/retry.js';
import type { CompletedJob, RetryEvent } from '@agent-tts/client/types.js';
import { CLIENT_VERSION } from '@agent-tts/client/version.js';
import { AGENT_TOOL_DEFAULT_VOICE, API_PATH, DEFAULT_SUPERTONIC_LANGUAGE, LIMITS } from '@agent-tts/client';

export const TOOL_NAME = 'text_to_speech';

/**
 * The longest a call keeps its request open: below the 60 s an MCP client waits by default (the
 * official SDK's DEFAULT_REQUEST_TIMEOUT_MSEC, which progress does not extend unless the client asks
 * for resetTimeoutOnProgress). Rate-limit waits and polling both come out of it.
 */
export const DEFAULT_MAX_CALL_MS = 45_000;
/** How often a call that is waiting tells the client so, when the request carries a progressToken. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 2_000;

/**
 * The parameters and defaults of docs/api-rules.md#agent-tool (text, voice, speed, language),
 * exactly, plus two optional ones of this tool: `wait_for_rate_limit` and `job_id`.
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
};

const TOOL_INPUT_SCHEMA = z.object(TOOL_INPUT);
type ToolInput = z.output<typeof TOOL_INPUT_SCHEMA>;

/**
 * What the tool is registered with: every field accepts anything (even absent), so that a bad argument
 * reaches the tool and is answered in the documented error shape; the SDK's own validation would
 * answer a bare "MCP error -32602" text instead. The fields and the object carry TOOL_INPUT's JSON
 * Schema as metadata, so the listed inputSchema still shows types, ranges, defaults and `required`.
 */
function permissiveInput() {
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

const ERROR_OUTPUT = z.object({
  code: z.string(),
  message: z.string(),
  suggested_action: z.string(),
  request_id: z.string().nullable(),
  status: z.number().nullable(),
  job_id: z.string().optional(),
  retry_after_seconds: z.number().optional(),
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
    job_id: z.string().optional(),
    duration_seconds: z.number().optional(),
    format: z.string().optional(),
    voice: z.string().optional(),
    speed: z.number().optional(),
    language: z.string().optional(),
    status_url: z.string().optional().describe('Processing only: the URL that reports the job (GET, with the API key).'),
    progress_percent: z.number().optional(),
    retry_after_seconds: z.number().optional().describe('Processing only: seconds to wait before asking again.'),
    message: z.string().optional().describe('Processing only: what to do next.'),
    error: ERROR_OUTPUT.optional().describe('Present instead of the rest when the call failed (isError is then true).'),
  })
  .meta({
    anyOf: [
      { required: ['status', 'audio_url', 'job_id', 'format', 'voice', 'speed'] },
      { required: ['status', 'job_id', 'status_url', 'message'] },
      { required: ['error'] },
    ],
  });

export interface TtsToolServerOptions {
  /** Undefined when no API key is configured: every call then answers with that error. */
  client?: AgentTtsClient;
  /** Removes secrets from any text sent to the agent. */
  redact: (text: string) => string;
  /** Diagnostics; stdout belongs to the protocol, so this must write elsewhere (stderr). */
  log?: (line: string) => void;
  /** Ends the session (Ctrl-C in a terminal). */
  signal?: AbortSignal;
  /** The longest one call waits (for a rate limit and for its job) before answering. Default DEFAULT_MAX_CALL_MS. */
  maxCallMs?: number;
  /**
   * Interval of progress notifications while a call waits. Default DEFAULT_PROGRESS_INTERVAL_MS; at most
   * 2.5 s keeps every silence of a call under 5 s.
   */
  progressIntervalMs?: number;
  /**
   * What a call waits in (a rate-limit wait, the waits between polls) and measures its time with (its
   * `maxCallMs`, progress, `retry_after_seconds` of a processing answer). Default: the client's clock
   * (systemClock unless the client was given one). With the sandbox's `sandbox.clock.client`, a call's
   * waits move the sandbox clock; its waits are slept in pieces of at most `progressIntervalMs`, with a
   * progress notification between them, so the notifications keep their pace on that clock too.
   */
  clock?: ClientClock;
}

/** The structured error of §4.9 step 3: code, message, suggested action and request id. */
export function toolError(error: unknown, redact: (text: string) => string): CallToolResult {
  const body: z.output<typeof ERROR_OUTPUT> =
    error instanceof AgentTtsError
      ? {
          code: error.code,
          message: error.message,
          suggested_action: error.suggestedAction,
          request_id: error.requestId ?? null,
          status: error.status ?? null,
          ...(error.jobId ? { job_id: error.jobId } : {}),
          ...(error.retryAfterSeconds !== undefined ? { retry_after_seconds: error.retryAfterSeconds } : {}),
          ...(error.details ? { details: error.details } : {}),
        }
      : {
          code: 'INTERNAL_ERROR',
          message: error instanceof Error ? error.message : String(error),
          suggested_action: 'Retry with backoff.',
          request_id: null,
          status: null,
        };
  // The message may quote what the caller sent; the same redacted text goes in both places.
  const structured = JSON.parse(redact(JSON.stringify({ error: body }))) as { error: typeof body };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(structured, null, 2) }], structuredContent: structured };
}

/** Ends a call whose time is up; the reason of the abort that stops the client's waits. */
class CallTimeUp extends Error {
  constructor(ms: number) {
    super(`the call's ${Math.round(ms / 1000)} s ran out`);
  }
}

const DESCRIPTION =
  'Converts text to speech (MP3) and returns a temporary audio URL (status "completed"). Short texts finish at once; long ones are waited for, ' +
  `with progress notifications when the request has a progressToken. A call answers within ${DEFAULT_MAX_CALL_MS / 1000} s: a job still running then ` +
  'comes back as status "processing" with its job_id, status_url and retry_after_seconds; call the tool again with the same arguments plus job_id ' +
  'to wait for it (no new job is made). On failure the result is an error (isError) with code, message, suggested_action and request_id, ' +
  'at once, RATE_LIMITED included (the service allows one submission a minute per key): its retry_after_seconds says when to call again, ' +
  'or pass wait_for_rate_limit: true to have the call wait, when the wait fits in the call.';

function completedResult(job: CompletedJob, redact: (text: string) => string): CallToolResult {
  const structured = {
    status: 'completed' as const,
    audio_url: job.audio_url,
    job_id: job.job_id,
    duration_seconds: job.audio.duration_seconds,
    format: job.audio.format,
    voice: job.audio.voice,
    speed: job.audio.speed,
    language: job.audio.language,
  };
  return { content: [{ type: 'text', text: redact(JSON.stringify(structured, null, 2)) }], structuredContent: structured };
}

export function createTtsMcpServer(options: TtsToolServerOptions): McpServer {
  const maxCallMs = options.maxCallMs ?? DEFAULT_MAX_CALL_MS;
  const progressIntervalMs = options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
  const server = new McpServer({ name: 'agent-tts', version: CLIENT_VERSION });
  // Per job a call left processing: when the service said to poll it next, so that a call with its
  // job_id that comes sooner waits until then rather than polling early.
  const nextPollOf = new Map<string, number>();
  server.registerTool(
    TOOL_NAME,
    {
      title: 'Text to speech',
      description: DESCRIPTION,
      inputSchema: permissiveInput(),
      outputSchema: TOOL_OUTPUT,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (args, extra): Promise<CallToolResult> => {
      const input = parseToolInput(args);
      if (input instanceof AgentTtsError) return toolError(input, options.redact);
      const client = options.client;
      if (!client) {
        return toolError(
          new AgentTtsError({
            code: 'INVALID_KEY',
            message: 'No API key configured for the agent-tts MCP server: set AGENT_TTS_API_KEY in its environment, or run `agent-tts config set-key`.',
          }),
          options.redact,
        );
      }
      const clock = options.clock ?? client.clock;
      const startedAt = clock.now();
      const deadline = startedAt + maxCallMs;
      // What the call is doing, for the progress notifications and for the answer when time runs out.
      const state: { jobId?: string; percent?: number; nextPollAt?: number; waitingUntil?: number; waitingFor?: string } = {
        jobId: input.job_id,
      };
      // Aborted when the call's time is up, or with the error to answer when a wait is not to be taken.
      const stop = new AbortController();
      // In real time: a request in flight takes real time whatever the clock (on the default clock, this is the call's limit).
      const timeUp = setTimeout(() => stop.abort(new CallTimeUp(maxCallMs)), maxCallMs);
      const signal = AbortSignal.any([extra.signal, stop.signal]);

      const progressToken = extra._meta?.progressToken;
      let lastProgress = 0;
      let lastProgressAt = startedAt;
      const describe = (now: number): string => {
        const elapsed = `${Math.round((now - startedAt) / 1000)} s elapsed`;
        if (state.waitingUntil !== undefined && now < state.waitingUntil) {
          return `${state.waitingFor}: waiting ${Math.ceil((state.waitingUntil - now) / 1000)} s more before retrying (${elapsed})`;
        }
        if (state.jobId) return `job ${state.jobId}: processing${state.percent !== undefined ? `, ${state.percent}%` : ''} (${elapsed})`;
        return `submitting (${elapsed})`;
      };
      const sendProgress = () => {
        if (progressToken === undefined || signal.aborted) return;
        const now = clock.now();
        lastProgressAt = now;
        // MCP: progress must increase with every notification; it counts seconds of the call.
        const progress = Math.max(Math.round((now - startedAt) / 100) / 10, lastProgress + 0.1);
        lastProgress = progress;
        void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message: describe(now) } }).catch(() => undefined); // progress is best effort; the result still comes
      };
      // Paced in real time, for the requests in flight; the waits below keep the pace on the call's clock.
      const ticker = progressToken === undefined ? undefined : setInterval(sendProgress, progressIntervalMs);
      sendProgress();

      /**
       * The clock the client waits on during this call: the call's clock, slept in pieces of at most
       * progressIntervalMs, with a progress notification after a piece when none went out for that
       * long, and ending the call when its time is up (on the call's clock).
       */
      const callClock: ClientClock = {
        now: () => clock.now(),
        sleep: async (ms, sleepSignal) => {
          let left = ms;
          for (;;) {
            if (sleepSignal?.aborted) throw abortReason(sleepSignal);
            const untilDeadline = deadline - clock.now();
            if (untilDeadline <= 0) {
              stop.abort(new CallTimeUp(maxCallMs));
              throw stop.signal.reason;
            }
            if (left <= 0) return;
            const piece = Math.min(left, progressIntervalMs, untilDeadline);
            await clock.sleep(piece, sleepSignal);
            left -= piece;
            if (clock.now() - lastProgressAt >= progressIntervalMs) sendProgress();
          }
        },
      };

      const onRetry = (event: RetryEvent) => {
        const { error, delayMs } = event;
        const rateLimited = error.code === 'RATE_LIMITED';
        if ((rateLimited && !input.wait_for_rate_limit) || clock.now() + delayMs > deadline) {
          // Answered now rather than after a wait the caller did not ask for, or that would outlast the call.
          stop.abort(error);
          return;
        }
        state.waitingUntil = clock.now() + delayMs;
        state.waitingFor = rateLimited ? `rate limited (Retry-After ${error.retryAfterSeconds ?? '?'} s)` : `${error.code}`;
        options.log?.(options.redact(`retrying in ${Math.round(delayMs / 1000)} s after ${error.code}: ${error.message}`));
        sendProgress();
      };
      const onProgress = (event: { jobId: string; status: string; percent?: number; nextPollMs?: number }) => {
        state.jobId = event.jobId;
        state.percent = event.percent;
        state.nextPollAt = event.nextPollMs === undefined ? undefined : clock.now() + event.nextPollMs;
        state.waitingUntil = undefined;
        if (event.status === 'processing') sendProgress();
      };

      const pollAt = input.job_id === undefined ? undefined : nextPollOf.get(input.job_id);
      if (input.job_id !== undefined) nextPollOf.delete(input.job_id);
      try {
        const job = input.job_id
          ? await client.poll(input.job_id, {
              signal,
              onRetry,
              onProgress,
              clock: callClock,
              initialDelayMs: Math.max(0, (pollAt ?? 0) - clock.now()),
            })
          : await client.speak(
              { text: input.text, voice: input.voice, speed: input.speed, language: input.language },
              // A job that fails is answered as it failed; the agent decides whether to call again.
              { signal, onRetry, onProgress, maxResubmits: 0, clock: callClock },
            );
        return completedResult(job, options.redact);
      } catch (caught) {
        const error = signal.aborted && !extra.signal.aborted ? stop.signal.reason : caught;
        if (error instanceof CallTimeUp) {
          if (state.jobId) {
            const nextPollAt = state.nextPollAt ?? clock.now() + 1000;
            if (nextPollOf.size >= 1000) nextPollOf.delete(nextPollOf.keys().next().value!);
            nextPollOf.set(state.jobId, nextPollAt);
            return processingResult(state.jobId, nextPollAt - clock.now(), state.percent, client, maxCallMs, options.redact);
          }
          return toolError(
            new AgentTtsError({
              code: 'TIMEOUT',
              message: `No answer from ${client.baseUrl} within ${Math.round(maxCallMs / 1000)} s; nothing is known to have been submitted.`,
            }),
            options.redact,
          );
        }
        options.log?.(options.redact(`text_to_speech failed: ${error instanceof Error ? error.message : String(error)}`));
        return toolError(error, options.redact);
      } finally {
        clearTimeout(timeUp);
        if (ticker) clearInterval(ticker);
        stop.abort(); // ends any wait left behind
      }
    },
  );
  return server;
}

/** The answer for a job still processing when the call's time ran out: how to wait for it in a later call. */
function processingResult(
  jobId: string,
  nextPollInMs: number,
  percent: number | undefined,
  client: AgentTtsClient,
  maxCallMs: number,
  redact: (text: string) => string,
): CallToolResult {
  // Counted from now: the part of the service's last retry_after_seconds that the call has not waited.
  const retryAfterSeconds = Math.max(1, Math.ceil(nextPollInMs / 1000));
  const structured = {
    status: 'processing' as const,
    job_id: jobId,
    status_url: `${client.baseUrl}${API_PATH}?id=${encodeURIComponent(jobId)}`,
    ...(percent !== undefined ? { progress_percent: percent } : {}),
    retry_after_seconds: retryAfterSeconds,
    message:
      `The job is still processing after ${Math.round(maxCallMs / 1000)} s. Call ${TOOL_NAME} again with the same arguments and ` +
      `job_id "${jobId}" (after about ${retryAfterSeconds} s) to wait for it; no new job is made.`,
  };
  return { content: [{ type: 'text', text: redact(JSON.stringify(structured, null, 2)) }], structuredContent: structured };
}

/** Serves the tool on stdin/stdout until the client closes standard input. */
export async function runStdioServer(options: TtsToolServerOptions): Promise<void> {
  const server = createTtsMcpServer(options);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  options.log?.('agent-tts MCP server ready on stdio (tool: text_to_speech)');
  // The SDK's stdio transport does not watch for end of input; the client closing stdin ends the session.
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    options.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.close();
}
