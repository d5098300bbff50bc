import { systemClock, type ClientClock } from '../clock.js';
import { CLIENT_VERSION } from '../version.js';
import { GLOBAL_OPTIONS, splitCommand, type GlobalValues } from './args.js';
import type { CliContext } from './context.js';
import type { Env } from './config.js';
import { reportFailure, usageError } from './errors.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { HELP } from './help.js';
import type { InputStream } from './input.js';
import { Output, type OutputStreams } from './output.js';
import { parseArgs } from 'node:util';

type Command = (ctx: CliContext, args: string[]) => Promise<ExitCode>;

/** Loaded on use: the MCP SDK and zod are only needed by `mcp`, and start-up time matters in scripts. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  speak: async () => (await import('./commands/speak.js')).speakCommand,
  status: async () => (await import('./commands/status.js')).statusCommand,
  voices: async () => (await import('./commands/voices.js')).voicesCommand,
  config: async () => (await import('./commands/config.js')).configCommand,
  mcp: async () => (await import('./commands/mcp.js')).mcpCommand,
};

export interface RunIo extends OutputStreams {
  stdin: InputStream;
  env: Env;
  signal: AbortSignal;
  /** What the commands wait in and measure with. Default systemClock; tests pass a test clock. */
  clock?: ClientClock;
}

/** Global flags wherever they appear; the command's own parser checks everything strictly later. */
function globalsOf(argv: string[]): GlobalValues {
  const { values } = parseArgs({ args: argv, options: GLOBAL_OPTIONS, strict: false, allowPositionals: true });
  const pick = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    'base-url': pick(values['base-url']),
    'voices-url': pick(values['voices-url']),
    'api-key': pick(values['api-key']),
    json: values.json === true,
    quiet: values.quiet === true,
    help: values.help === true,
    version: values.version === true,
  };
}

/** Runs one invocation and returns its exit code; never throws, never prints a stack trace. */
export async function run(argv: string[], io: RunIo): Promise<ExitCode> {
  const globals = globalsOf(argv);
  const output = new Output(io, { json: globals.json });
  output.addSecret(globals['api-key']);
  const ctx: CliContext = { env: io.env, stdin: io.stdin, output, signal: io.signal, globals, clock: io.clock ?? systemClock };
  try {
    const { command, rest } = splitCommand(argv);
    if (globals.version && !command) {
      output.out(CLIENT_VERSION);
      return EXIT.OK;
    }
    if (command === 'help') {
      const topic = rest.find((a) => !a.startsWith('-'));
      if (topic !== undefined && !HELP[topic]) throw usageError(`No help for "${topic}": commands are ${Object.keys(COMMANDS).join(', ')}`);
      output.out(HELP[topic ?? 'main']);
      return EXIT.OK;
    }
    if (command === undefined) {
      if (globals.help) {
        output.out(HELP.main);
        return EXIT.OK;
      }
      throw usageError('No command given');
    }
    const load = COMMANDS[command];
    if (!load) throw usageError(`Unknown command "${command}": commands are ${Object.keys(COMMANDS).join(', ')}`);
    if (globals.help) {
      output.out(HELP[command]);
      return EXIT.OK;
    }
    if (globals['api-key'] !== undefined) {
      output.err('Warning: --api-key shows the key in shell history and process listings; prefer AGENT_TTS_API_KEY or `agent-tts config set-key`.');
    }
    return await (await load())(ctx, rest);
  } catch (error) {
    return reportFailure(output, error, { jobId: ctx.jobId, hint: ctx.hint, urls: ctx.urls });
  }
}
