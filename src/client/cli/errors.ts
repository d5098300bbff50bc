import { AgentTtsError } from '../errors.js';
import type { Setting } from './setting.js';
import { EXIT, exitCodeFor, type ExitCode } from './exit-codes.js';
import type { Output } from './output.js';

/** A failure found by the tool itself, before or after talking to the service. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    /** What the user can do about it. */
    readonly action?: string,
    /** Machine-readable code for --json. */
    readonly code: string = exitCode === EXIT.USAGE ? 'USAGE' : exitCode === EXIT.AUTH ? 'NO_API_KEY' : 'LOCAL_ERROR',
  ) {
    super(message);
  }
}

export function usageError(message: string, command?: string): CliError {
  return new CliError(message, EXIT.USAGE, `Run \`agent-tts ${command ? `${command} ` : ''}--help\` for usage.`);
}

/** Node's file errors (ENOENT, EACCES, ...) as a message that names the file and the cause. */
export function fileError(action: string, path: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'ENOENT'
      ? 'no such file or directory'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'ENOTDIR'
            ? 'a parent is not a directory'
            : error instanceof Error
              ? error.message
              : String(error);
  return new CliError(`Cannot ${action} ${path}: ${reason}`, EXIT.LOCAL_FILE, 'Check the path and its permissions.', 'LOCAL_FILE');
}

/** A URL setting of the command (base URL, voice catalog URL), with the names it is set by. */
export interface UrlSetting {
  /** What it is, for a person: "base URL". */
  label: string;
  setting: Setting & { value: string };
  flag: string;
  variable: string;
  /** Its field in the config file. */
  field: string;
}

/** What describeFailure knows of the run: the job it is about, a next step, the URL settings in use. */
export interface FailureContext {
  jobId?: string;
  hint?: string;
  urls?: UrlSetting[];
}

/** Where a URL setting came from, in the words of its flag, variable or config field. */
function settingOrigin(url: UrlSetting): string {
  const { setting } = url;
  if (setting.source === 'flag') return `from ${url.flag}`;
  if (setting.source === 'env') return `from ${url.variable}`;
  if (setting.source === 'config') return `from ${url.field} in ${setting.origin}`;
  return `the default; set it with ${url.flag} or ${url.variable}, or \`agent-tts config set ${url.field} <url>\``;
}

/**
 * A transport failure names the setting whose URL could not be reached and where that URL came from
 * (the flag, the variable, the config file or the default), and a refused connection says that nothing
 * listens there: the lines that replace the generic suggested action.
 */
function unreachableLines(error: AgentTtsError, urls: UrlSetting[] | undefined): string[] | undefined {
  if (error.code !== 'NETWORK_ERROR') return undefined;
  // The catalog's URL may be the API's: its path says which setting was used.
  const ordered = /^Could not reach \S+\/api\/v1\/voices:/.test(error.message) ? [...(urls ?? [])].reverse() : (urls ?? []);
  const url = ordered.find((u) => error.message.startsWith(`Could not reach ${u.setting.value}/`));
  if (!url) return undefined;
  const { value } = url.setting;
  const action = /ECONNREFUSED/.test(error.message)
    ? `Nothing is listening at ${value}: start the service there, or give ${url.flag} (or ${url.variable}) the URL it listens on.`
    : `Check that ${value} is the service's URL and that it can be reached from here.`;
  return [`  Suggested action: ${action}`, `  The ${url.label} ${value} is ${settingOrigin(url)}.`];
}

export interface Failure {
  exitCode: ExitCode;
  json: Record<string, unknown>;
  lines: string[];
}

function isAbort(error: unknown): boolean {
  if (error instanceof AgentTtsError) return error.code === 'ABORTED';
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** Turns anything thrown into the printed form: a message, the suggested action and the request id. */
export function describeFailure(error: unknown, context: FailureContext = {}): Failure {
  if (error instanceof AgentTtsError && !isAbort(error)) {
    const exitCode = exitCodeFor(error.code);
    const head = `Error ${error.code}${error.status !== undefined ? ` (HTTP ${error.status})` : ''}: ${error.message}`;
    const unreachable = unreachableLines(error, context.urls);
    const lines = [head, ...(unreachable ?? [`  Suggested action: ${error.suggestedAction}`])];
    lines.push(`  Request id: ${error.requestId ?? 'none (no answer from the service)'}`);
    const jobId = error.jobId ?? context.jobId;
    if (jobId) lines.push(`  Job id: ${jobId}`);
    if (error.retryAfterSeconds !== undefined) lines.push(`  Retry after: ${error.retryAfterSeconds} s`);
    if (error.code === 'USAGE_LIMIT_EXCEEDED' && error.details) {
      const d = error.details;
      lines.push(`  Usage: ${String(d.used)} of ${String(d.limit)} minutes (${String(d.tier)} plan)`);
      if (typeof d.upgrade_url === 'string') lines.push(`  Upgrade: ${d.upgrade_url}`);
    } else if (error.details && Object.keys(error.details).length > 0) {
      lines.push(`  Details: ${JSON.stringify(error.details)}`);
    }
    if (error.attempts !== undefined && error.attempts > 1) lines.push(`  Attempts: ${error.attempts}`);
    if (error.retryIdempotencyKey && (error.retryable || error.code === 'TIMEOUT')) {
      const why = error.needsNewIdempotencyKey ? 'a fresh key, as the service asked' : 'the same key, so no second job is created';
      lines.push(`  To retry this request: --idempotency-key ${error.retryIdempotencyKey} (${why})`);
    }
    if (error.code === 'TIMEOUT' && jobId) lines.push(`  Check it later: agent-tts status ${jobId}`);
    if (context.hint) lines.push(`  ${context.hint}`);
    return {
      exitCode,
      lines,
      json: {
        ...error.toJSON(),
        ...(unreachable ? { suggested_action: unreachable[0]!.replace('  Suggested action: ', ''), setting: unreachable[1]!.trim() } : {}),
        job_id: jobId,
        idempotency_key: error.retryIdempotencyKey,
        attempts: error.attempts,
        hint: context.hint,
      },
    };
  }
  if (error instanceof CliError) {
    const lines = [`Error: ${error.message}`];
    if (error.action) lines.push(`  Suggested action: ${error.action}`);
    if (context.hint) lines.push(`  ${context.hint}`);
    return { exitCode: error.exitCode, lines, json: { code: error.code, message: error.message, suggested_action: error.action, hint: context.hint } };
  }
  if (isAbort(error)) {
    const lines = ['Interrupted.'];
    if (context.hint) lines.push(`  ${context.hint}`);
    else if (context.jobId) lines.push(`  The job continues on the service: agent-tts status ${context.jobId}`);
    return { exitCode: EXIT.INTERRUPTED, lines, json: { code: 'INTERRUPTED', message: 'Interrupted', job_id: context.jobId } };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    exitCode: EXIT.UNEXPECTED,
    lines: [`Unexpected error: ${message}`, '  Suggested action: Retry; if it persists, report it with the command you ran.'],
    json: { code: 'UNEXPECTED', message },
  };
}

/** Prints a failure on stderr, or as the --json document on stdout, and returns the exit code. */
export function reportFailure(output: Output, error: unknown, context: FailureContext = {}): ExitCode {
  const failure = describeFailure(error, context);
  if (output.json) {
    output.emitJson({ ok: false, exit_code: failure.exitCode, error: stripUndefined(failure.json) });
  } else {
    for (const line of failure.lines) output.err(line);
  }
  return failure.exitCode;
}

function stripUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
