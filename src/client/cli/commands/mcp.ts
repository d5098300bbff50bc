import { parseArgs } from 'node:util';
import type { AgentTtsClient } from '../../client.js';
import { commandConfig, usageOnError } from '../args.js';
import { clientOf, settingsOf, useSandboxClock, type CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { ProgressDisplay } from '../progress.js';

/** What this command uses of `@agent-tts/mcp`, which is a package of its own (the MCP SDK is heavy). */
interface AgentToolModule {
  runStdioServer(options: { client?: AgentTtsClient; redact?: (text: string) => string; log?: (line: string) => void; signal?: AbortSignal }): Promise<void>;
}

/** The agent tool's package, or a usage error that says how to install it. */
async function loadAgentTool(): Promise<AgentToolModule> {
  // A variable specifier: the client package does not depend on the agent tool's, which depends on it.
  const specifier = '@agent-tts/mcp/server.js';
  try {
    return (await import(specifier)) as AgentToolModule;
  } catch (error) {
    // Only the package itself being absent: a module missing inside an installed agent tool is its own error.
    const missing = (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes("'@agent-tts/mcp'");
    if (!missing) throw error;
    throw usageError(
      'The agent tool is a package of its own: install it with `npm install @agent-tts/mcp` ' +
        '(then `agent-tts mcp` or its own command `agent-tts-mcp` runs it)',
      'mcp',
    );
  }
}

/** `agent-tts mcp`: the agent tool over stdio, configured like every other command. */
export async function mcpCommand(ctx: CliContext, args: string[]): Promise<ExitCode> {
  const { values, positionals } = usageOnError('mcp', () => parseArgs(commandConfig(args, { 'sandbox-clock': { type: 'boolean' } } as const)));
  if (positionals.length > 0) throw usageError(`Unexpected argument "${positionals[0]}"`, 'mcp');
  const settings = await settingsOf(ctx);
  if (values['sandbox-clock']) await useSandboxClock(ctx, settings);
  const log = (line: string) => ctx.output.err(`[agent-tts mcp] ${line}`);
  if (!settings.apiKey.value) log('warning: no API key configured; tool calls will answer with an error until AGENT_TTS_API_KEY is set.');
  // stdout carries the protocol: the client's own retry notices must not print there, so progress is off.
  const client = settings.apiKey.value ? clientOf(ctx, settings, new ProgressDisplay(ctx.output, false)) : undefined;
  const { runStdioServer } = await loadAgentTool();
  await runStdioServer({ client, redact: (text) => ctx.output.redact(text), log, signal: ctx.signal });
  return EXIT.OK;
}
