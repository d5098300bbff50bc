import { parseArgs, type ParseArgsConfig } from 'node:util';
import { usageError } from './errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command accepts, before or after the command word. */
export const GLOBAL_OPTIONS = {
  'base-url': { type: 'string' },
  'voices-url': { type: 'string' },
  'api-key': { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const satisfies Options;

export interface GlobalValues {
  'base-url'?: string;
  'voices-url'?: string;
  'api-key'?: string;
  json?: boolean;
  quiet?: boolean;
  help?: boolean;
  version?: boolean;
}

/**
 * Finds the command word: the first positional argument, skipping global options and their values
 * (so `agent-tts --base-url X speak ...` works). Returns it and the arguments without it.
 */
export function splitCommand(argv: string[]): { command?: string; rest: string[] } {
  const { tokens } = parseArgs({ args: argv, options: GLOBAL_OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const first = tokens.find((t) => t.kind === 'positional' || t.kind === 'option-terminator');
  if (first?.kind !== 'positional') return { rest: argv };
  return { command: first.value, rest: [...argv.slice(0, first.index), ...argv.slice(first.index + 1)] };
}

/**
 * The parseArgs config of a command: strict, its own options plus the global ones. Commands call
 * `usageOnError(cmd, () => parseArgs(commandConfig(args, OPTIONS)))` so the option types are inferred
 * where they are used, and a mistake becomes a usage error naming the command.
 */
export function commandConfig<O extends Options>(args: string[], options: O) {
  return { args, options: { ...GLOBAL_OPTIONS, ...options }, strict: true as const, allowPositionals: true as const };
}

export function usageOnError<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    // parseArgs messages are clear ("Unknown option '--x'"); its advice about '--' is kept, it helps with texts starting with '-'.
    throw usageError(error instanceof Error ? error.message : String(error), command);
  }
}

/** A number option, checked to be finite; `what` names it in the message. */
export function numberOption(value: string | undefined, what: string, command: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw usageError(`${what} must be a number, got "${value}"`, command);
  return n;
}

export function positiveIntOption(value: string | undefined, what: string, command: string): number | undefined {
  const n = numberOption(value, what, command);
  if (n !== undefined && (!Number.isInteger(n) || n < 1)) throw usageError(`${what} must be a whole number of at least 1, got "${value}"`, command);
  return n;
}
