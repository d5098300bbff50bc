import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { CliError, fileError } from './errors.js';
import { EXIT } from './exit-codes.js';
import type { Setting } from './setting.js';

/**
 * The config file: `$XDG_CONFIG_HOME/agent-tts/config.json` (default `~/.config/agent-tts/config.json`).
 * It holds the API key, so it is written with mode 0600 inside a directory with mode 0700 (docs/api-rules.md#key-storage).
 */
export interface ConfigFile {
  api_key?: string;
  base_url?: string;
  voices_url?: string;
}

export const CONFIG_FIELDS = ['api_key', 'base_url', 'voices_url'] as const;
export type ConfigField = (typeof CONFIG_FIELDS)[number];

const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
const DEFAULT_VOICES_URL = 'http://127.0.0.1:8081';

export type Env = Record<string, string | undefined>;

function configDir(env: Env): string {
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config');
  return join(base, 'agent-tts');
}

function configPath(env: Env): string {
  return join(configDir(env), 'config.json');
}

export interface LoadedConfig {
  path: string;
  exists: boolean;
  /** Permission bits of the file, when it exists. */
  mode?: number;
  values: ConfigFile;
}

export async function loadConfig(env: Env): Promise<LoadedConfig> {
  const path = configPath(env);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path, exists: false, values: {} };
    throw fileError('read the config file', path, error);
  }
  const mode = (await stat(path)).mode & 0o777;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`The config file ${path} is not valid JSON`, EXIT.USAGE, 'Fix it, or delete it and run `agent-tts config set-key` again.', 'BAD_CONFIG');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliError(
      `The config file ${path} must hold a JSON object`,
      EXIT.USAGE,
      'Fix it, or delete it and run `agent-tts config set-key` again.',
      'BAD_CONFIG',
    );
  }
  const values: ConfigFile = {};
  for (const field of CONFIG_FIELDS) {
    const value = (parsed as Record<string, unknown>)[field];
    if (typeof value === 'string' && value !== '') values[field] = value;
  }
  return { path, exists: true, mode, values };
}

/**
 * Writes the config atomically: a new file created with mode 0600 beside the old one, then renamed
 * over it, so a crash never leaves a half-written file and the key is never briefly world-readable.
 * The directory is created with 0700 and tightened to 0700 if it already existed looser (it is ours).
 */
export async function saveConfig(env: Env, values: ConfigFile): Promise<string> {
  const path = configPath(env);
  const dir = dirname(path);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  } catch (error) {
    throw fileError('create the config directory', dir, error);
  }
  const temp = join(dir, `.config.json.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(values, null, 2)}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temp, 0o600);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw fileError('write the config file', path, error);
  }
  return path;
}

export interface GlobalFlags {
  baseUrl?: string;
  voicesUrl?: string;
  apiKey?: string;
}

export interface Settings {
  apiKey: Setting;
  baseUrl: Setting & { value: string };
  voicesUrl: Setting & { value: string };
  config: LoadedConfig;
}

function pick(flag: string | undefined, flagName: string, env: string | undefined, envName: string, config: string | undefined, path: string): Setting {
  if (flag !== undefined && flag !== '') return { value: flag, source: 'flag', origin: flagName };
  if (env !== undefined && env !== '') return { value: env, source: 'env', origin: envName };
  if (config !== undefined) return { value: config, source: 'config', origin: path };
  return {};
}

/** Each setting from, in order: its flag, its environment variable, the config file, the default. */
export async function resolveSettings(flags: GlobalFlags, env: Env): Promise<Settings> {
  const config = await loadConfig(env);
  const c = config.values;
  const apiKey = pick(flags.apiKey, '--api-key', env.AGENT_TTS_API_KEY, 'AGENT_TTS_API_KEY', c.api_key, config.path);
  const base = pick(flags.baseUrl, '--base-url', env.AGENT_TTS_BASE_URL, 'AGENT_TTS_BASE_URL', c.base_url, config.path);
  const voices = pick(flags.voicesUrl, '--voices-url', env.AGENT_TTS_VOICES_URL, 'AGENT_TTS_VOICES_URL', c.voices_url, config.path);
  const baseUrl = {
    ...base,
    value: checkUrl(base.value ?? DEFAULT_BASE_URL, base.origin ?? 'the default base URL'),
    source: base.source ?? 'default',
  } as const;
  const voicesUrl = {
    ...voices,
    value: checkUrl(voices.value ?? DEFAULT_VOICES_URL, voices.origin ?? 'the default voices URL'),
    source: voices.source ?? 'default',
  } as const;
  return { apiKey, baseUrl, voicesUrl, config };
}

/** Accepts only http(s) URLs, so a typo fails here with a clear message instead of as a network error. */
export function checkUrl(value: string, origin: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${origin} is not a URL: ${value}`, EXIT.USAGE, 'Give an http:// or https:// URL, e.g. http://127.0.0.1:8080.', 'USAGE');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`${origin} must be an http:// or https:// URL: ${value}`, EXIT.USAGE, 'Give an http:// or https:// URL.', 'USAGE');
  }
  return value.replace(/\/+$/, '');
}
