import { AgentTtsClient } from '../client.js';
import type { ClientClock } from '../clock.js';
import { AgentTtsError } from '../errors.js';
import type { GlobalValues } from './args.js';
import { resolveSettings, type ConfigField, type Env, type Settings } from './config.js';
import type { Setting } from './setting.js';
import { CliError, type UrlSetting } from './errors.js';
import { EXIT } from './exit-codes.js';
import type { InputStream } from './input.js';
import type { Output } from './output.js';
import { ProgressDisplay } from './progress.js';
import { USER_AGENT } from '../version.js';
import { SandboxClockError, remoteClientClock } from '../sandbox-clock.js';

/** What a command runs with: its streams, environment, cancellation, and the parsed global flags. */
export interface CliContext {
  env: Env;
  stdin: InputStream;
  output: Output;
  signal: AbortSignal;
  globals: GlobalValues;
  /**
   * What the commands wait in (between polls, before retries) and measure elapsed time with:
   * systemClock, a test's clock, or the sandbox's test clock (`--sandbox-clock`).
   */
  clock: ClientClock;
  /** Set by a command once it knows a job id, so an interruption can say how to find the job again. */
  jobId?: string;
  /** Set by a command when a failure has a next step worth printing (e.g. how to fetch the audio later). */
  hint?: string;
  /** The URL settings in use, once read: a failure to reach one names it and where it came from. */
  urls?: UrlSetting[];
  /** Set by `--sandbox-clock`: the waits advance the sandbox's clock, and are told as such. */
  onSandboxClock?: boolean;
}

export async function settingsOf(ctx: CliContext): Promise<Settings> {
  const flags = { baseUrl: ctx.globals['base-url'], voicesUrl: ctx.globals['voices-url'], apiKey: ctx.globals['api-key'] };
  const settings = await resolveSettings(flags, ctx.env);
  ctx.output.addSecret(settings.apiKey.value);
  ctx.urls = [
    { label: 'base URL', setting: settings.baseUrl, flag: '--base-url', variable: 'AGENT_TTS_BASE_URL', field: 'base_url' },
    { label: 'voice catalog URL', setting: settings.voicesUrl, flag: '--voices-url', variable: 'AGENT_TTS_VOICES_URL', field: 'voices_url' },
  ];
  if (settings.config.exists && settings.config.values.api_key && settings.config.mode !== undefined && (settings.config.mode & 0o077) !== 0) {
    ctx.output.err(
      `Warning: ${settings.config.path} is readable by other users (mode ${settings.config.mode.toString(8).padStart(4, '0')}); run: chmod 600 ${settings.config.path}`,
    );
  }
  return settings;
}

export function requireKey(settings: Settings): string {
  const key = settings.apiKey.value;
  if (!key) {
    throw new CliError(
      'No API key configured',
      EXIT.AUTH,
      'Set AGENT_TTS_API_KEY, or run `agent-tts config set-key` to store it in the config file.',
      'NO_API_KEY',
    );
  }
  return key;
}

export function progressOf(ctx: CliContext): ProgressDisplay {
  return new ProgressDisplay(ctx.output, !ctx.globals.quiet, ctx.clock, ctx.onSandboxClock === true);
}

/**
 * `--sandbox-clock`: from now on the command's waits advance the clock of the sandbox at the base URL
 * that the command's key is on (GET /sandbox/clocks/mine names it: a test clock's for a key of a test
 * clock, else the global clock) instead of passing in real time. A base URL that is not a sandbox is
 * refused before anything else is sent to it.
 */
export async function useSandboxClock(ctx: CliContext, settings: Settings): Promise<void> {
  try {
    ctx.clock = await remoteClientClock(settings.baseUrl.value, undefined, { apiKey: settings.apiKey.value || undefined });
    ctx.onSandboxClock = true;
  } catch (error) {
    if (!(error instanceof SandboxClockError)) throw error;
    const unreachable = error.reason === 'unreachable';
    throw new CliError(
      `--sandbox-clock: ${error.message}`,
      unreachable ? EXIT.NETWORK : EXIT.USAGE,
      unreachable
        ? 'Start agent-tts-sandbox, and give --base-url (or AGENT_TTS_BASE_URL) the URL it printed.'
        : 'Use --sandbox-clock only against agent-tts-sandbox (--base-url the URL it printed); against a deployment, leave it out and wait in real time.',
      unreachable ? 'NETWORK_ERROR' : 'NOT_A_SANDBOX',
    );
  }
}

/** The command's API client: its settings, retries told to `progress`, and waits on the command's clock. */
export function clientOf(ctx: CliContext, settings: Settings, progress: ProgressDisplay, maxAttempts?: number): AgentTtsClient {
  return new AgentTtsClient({
    baseUrl: settings.baseUrl.value,
    voicesUrl: settings.voicesUrl.value,
    apiKey: settings.apiKey.value,
    onRetry: progress.retry,
    retry: maxAttempts !== undefined ? { maxAttempts } : undefined,
    userAgent: `agent-tts-cli ${USER_AGENT}`,
    clock: ctx.clock,
  });
}

/**
 * Rethrows `error`; when it is the client's "does not serve the agent-tts API" (a 404 where every
 * deployment answers, outside any job), its message first names the setting to fix, wherever it came from.
 */
export function adviseOnUrl(error: unknown, setting: Setting, flag: string, field: ConfigField): never {
  if (error instanceof AgentTtsError && error.code === 'INVALID_RESPONSE' && error.status === 404 && error.jobId === undefined) {
    const where = setting.source === 'env' ? setting.origin : setting.source === 'config' ? `${field} in ${setting.origin}` : flag;
    error.message += `; check ${where}`;
  }
  throw error;
}
