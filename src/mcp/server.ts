/**
 * The agent-tts MCP server: one tool, `text_to_speech`, served over stdio (docs/api-rules.md#agent-tool).
 * The tool's schemas are in tool-schema.ts, a call in tool-call.ts, its answers in tool-results.ts.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CLIENT_VERSION } from '@agent-tts/client/version.js';
import { DEFAULT_MAX_CALL_MS, DEFAULT_PROGRESS_INTERVAL_MS, type TtsToolServerOptions } from './options.js';
import { runToolCall } from './tool-call.js';
import { DESCRIPTION, TOOL_NAME, TOOL_OUTPUT, permissiveInput } from './tool-schema.js';

export { DEFAULT_MAX_CALL_MS, DEFAULT_PROGRESS_INTERVAL_MS, type TtsToolServerOptions } from './options.js';
export { toolError } from './tool-results.js';
export { TOOL_INPUT, TOOL_NAME, TOOL_OUTPUT, parseToolInput } from './tool-schema.js';

export function createTtsMcpServer(options: TtsToolServerOptions): McpServer {
  const state = {
    maxCallMs: options.maxCallMs ?? DEFAULT_MAX_CALL_MS,
    progressIntervalMs: options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
    nextPollOf: new Map<string, number>(),
  };
  const server = new McpServer({ name: 'agent-tts', version: CLIENT_VERSION });
  server.registerTool(
    TOOL_NAME,
    {
      title: 'Text to speech',
      description: DESCRIPTION,
      inputSchema: permissiveInput(),
      outputSchema: TOOL_OUTPUT,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args, extra) => runToolCall(args, extra, options, state),
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
