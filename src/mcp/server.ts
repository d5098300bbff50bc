import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AgentTtsClient } from '../client/client.js';
import { AgentTtsError } from '../client/errors.js';
import { CLIENT_VERSION } from '../client/version.js';
import { LIMITS } from '../contract/limits.js';
import { AGENT_TOOL_DEFAULT_VOICE, DEFAULT_SUPERTONIC_LANGUAGE } from '../contract/voices.js';

export const TOOL_NAME = 'text_to_speech';

/** The parameters and defaults of docs/api-rules.md#agent-tool, exactly. */
export const TOOL_INPUT = {
  text: z.string().describe('The text to speak (1 to 500,000 characters).'),
  voice: z
    .string()
    .default(AGENT_TOOL_DEFAULT_VOICE)
    .describe('Voice id, e.g. st_m1 to st_m5, st_f1 to st_f5 (fast, any language) or af_heart, bf_emma (English).'),
  speed: z
    .number()
    .min(LIMITS.speedMin)
    .max(LIMITS.speedMax)
    .default(LIMITS.speedDefault)
    .describe('Speaking speed, 0.5 to 1.5.'),
  language: z
    .string()
    .default(DEFAULT_SUPERTONIC_LANGUAGE)
    .describe('Language code for st_* voices, e.g. en, fr, de, es, ja.'),
};

const TOOL_INPUT_SCHEMA = z.object(TOOL_INPUT);

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
  const field = (key: keyof typeof TOOL_INPUT) => z.unknown().optional().meta(json.properties[key]);
  return z
    .object({ text: field('text'), voice: field('voice'), speed: field('speed'), language: field('language') })
    .meta({ required: json.required });
}

/** Checks the arguments against TOOL_INPUT (defaults applied), or the INVALID_REQUEST naming each bad field. */
export function parseToolInput(args: unknown): z.output<typeof TOOL_INPUT_SCHEMA> | AgentTtsError {
  const parsed = TOOL_INPUT_SCHEMA.safeParse(args);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : 'arguments'}: ${i.message}`)
    .join('; ');
  return new AgentTtsError({ code: 'INVALID_REQUEST', message: `Invalid ${TOOL_NAME} arguments: ${issues}` });
}

export const TOOL_OUTPUT = {
  audio_url: z.string().describe('Temporary URL of the MP3; download it soon.'),
  job_id: z.string(),
  duration_seconds: z.number().optional(),
  format: z.string(),
  voice: z.string(),
  speed: z.number(),
  language: z.string().optional(),
};

export interface TtsToolServerOptions {
  /** Undefined when no API key is configured: every call then answers with that error. */
  client?: AgentTtsClient;
  /** Removes secrets from any text sent to the agent. */
  redact: (text: string) => string;
  /** Diagnostics; stdout belongs to the protocol, so this must write elsewhere (stderr). */
  log?: (line: string) => void;
  /** Ends the session (Ctrl-C in a terminal). */
  signal?: AbortSignal;
}

/** The structured error of §4.9 step 3: code, message, suggested action and request id. */
export function toolError(error: unknown, redact: (text: string) => string): CallToolResult {
  const body =
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
  return { isError: true, content: [{ type: 'text', text: redact(JSON.stringify({ error: body }, null, 2)) }] };
}

export function createTtsMcpServer(options: TtsToolServerOptions): McpServer {
  const server = new McpServer({ name: 'agent-tts', version: CLIENT_VERSION });
  server.registerTool(
    TOOL_NAME,
    {
      title: 'Text to speech',
      description:
        'Converts text to speech (MP3) and returns a temporary audio URL. Short texts finish at once; long ones are waited for. ' +
        'On failure the result is an error with code, message, suggested_action and request_id.',
      inputSchema: permissiveInput(),
      outputSchema: TOOL_OUTPUT,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (args, extra): Promise<CallToolResult> => {
      const input = parseToolInput(args);
      if (input instanceof AgentTtsError) return toolError(input, options.redact);
      const { text, voice, speed, language } = input;
      if (!options.client) {
        return toolError(
          new AgentTtsError({
            code: 'INVALID_KEY',
            message: 'No API key configured for the agent-tts MCP server: set AGENT_TTS_API_KEY in its environment, or run `agent-tts config set-key`.',
          }),
          options.redact,
        );
      }
      const progressToken = extra._meta?.progressToken;
      try {
        const job = await options.client.speak(
          { text, voice, speed, language },
          {
            signal: extra.signal,
            onProgress: (event) => {
              if (progressToken === undefined || event.status !== 'processing') return;
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: {
                    progressToken,
                    progress: event.percent ?? 0,
                    total: 100,
                    message: `job ${event.jobId}: processing, ${Math.round(event.elapsedMs / 1000)} s elapsed`,
                  },
                })
                .catch(() => undefined); // progress is best effort; the result still comes
            },
            onRetry: (event) => options.log?.(options.redact(`retrying after ${event.error.code}: ${event.error.message}`)),
          },
        );
        const structured = {
          audio_url: job.audio_url,
          job_id: job.job_id,
          duration_seconds: job.audio.duration_seconds,
          format: job.audio.format,
          voice: job.audio.voice,
          speed: job.audio.speed,
          language: job.audio.language,
        };
        return {
          content: [{ type: 'text', text: options.redact(JSON.stringify(structured, null, 2)) }],
          structuredContent: structured,
        };
      } catch (error) {
        options.log?.(options.redact(`text_to_speech failed: ${error instanceof Error ? error.message : String(error)}`));
        return toolError(error, options.redact);
      }
    },
  );
  return server;
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
