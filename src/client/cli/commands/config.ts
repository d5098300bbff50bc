import { parseArgs } from 'node:util';
import { API_KEY_PATTERN } from '../../../contract/limits.js';
import { commandConfig, usageOnError } from '../args.js';
import { CONFIG_FIELDS, checkUrl, loadConfig, saveConfig, type ConfigField } from '../config.js';
import type { Setting } from '../setting.js';
import { settingsOf, type CliContext } from '../context.js';
import { CliError, usageError } from '../errors.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { readSecret } from '../input.js';
import { displayKey } from '../output.js';

const SUBCOMMANDS = ['set-key', 'show', 'path', 'set', 'unset'] as const;

export async function configCommand(ctx: CliContext, args: string[]): Promise<ExitCode> {
  const { positionals } = usageOnError('config', () => parseArgs(commandConfig(args, {})));
  const [sub, ...rest] = positionals;
  switch (sub) {
    case 'set-key':
      return setKey(ctx, rest);
    case 'show':
      return show(ctx);
    case 'path': {
      const path = (await loadConfig(ctx.env)).path;
      if (ctx.output.json) ctx.output.emitJson({ ok: true, path });
      else ctx.output.out(path);
      return EXIT.OK;
    }
    case 'set':
      return setField(ctx, rest);
    case 'unset':
      return unsetField(ctx, rest);
    case undefined:
      throw usageError(`Missing subcommand: one of ${SUBCOMMANDS.join(', ')}`, 'config');
    default:
      throw usageError(`Unknown subcommand "${sub}": use one of ${SUBCOMMANDS.join(', ')}`, 'config');
  }
}

async function setKey(ctx: CliContext, rest: string[]): Promise<ExitCode> {
  if (rest.length > 0) {
    // The argument may be the key itself: never echo it, and refuse, since it is now in shell history.
    throw new CliError(
      '`config set-key` takes no argument: the key is read from standard input or a prompt',
      EXIT.USAGE,
      'If you typed the key on the command line, it is in your shell history: consider revoking it. Run `agent-tts config set-key` and paste the key at the prompt.',
      'USAGE',
    );
  }
  const key = await readSecret('API key (input hidden): ', ctx.stdin, ctx.output.streams.stderr);
  ctx.output.addSecret(key);
  if (!API_KEY_PATTERN.test(key)) {
    throw new CliError(
      key === '' ? 'No key given' : 'That is not an API key: expected tts_<8 hex>_<48 hex>',
      EXIT.USAGE,
      'Copy the full key from the dashboard, where it is shown once at creation.',
      'USAGE',
    );
  }
  const config = await loadConfig(ctx.env);
  const path = await saveConfig(ctx.env, { ...config.values, api_key: key });
  if (ctx.output.json) {
    ctx.output.emitJson({ ok: true, path, api_key: displayKey(key), file_mode: '0600', directory_mode: '0700' });
  } else {
    ctx.output.out(`Saved API key ${displayKey(key)} to ${path} (file mode 0600, directory 0700).`);
  }
  if (ctx.env.AGENT_TTS_API_KEY) ctx.output.err('Note: AGENT_TTS_API_KEY is set and takes precedence over the config file.');
  return EXIT.OK;
}

function describeSource(setting: Setting): string {
  switch (setting.source) {
    case 'flag':
      return `flag ${setting.origin}`;
    case 'env':
      return `environment ${setting.origin}`;
    case 'config':
      return 'config file';
    default:
      return 'default';
  }
}

async function show(ctx: CliContext): Promise<ExitCode> {
  const settings = await settingsOf(ctx);
  const { config } = settings;
  const key = settings.apiKey.value;
  const mode = config.mode !== undefined ? config.mode.toString(8).padStart(4, '0') : undefined;
  if (ctx.output.json) {
    ctx.output.emitJson({
      ok: true,
      config_file: { path: config.path, exists: config.exists, mode },
      file: {
        api_key: config.values.api_key ? displayKey(config.values.api_key) : undefined,
        base_url: config.values.base_url,
        voices_url: config.values.voices_url,
      },
      effective: {
        api_key: key ? { value: displayKey(key), source: settings.apiKey.source } : null,
        base_url: { value: settings.baseUrl.value, source: settings.baseUrl.source },
        voices_url: { value: settings.voicesUrl.value, source: settings.voicesUrl.source },
      },
    });
    return EXIT.OK;
  }
  ctx.output.out(`Config file: ${config.path}${config.exists ? ` (mode ${mode})` : ' (not created yet)'}`);
  ctx.output.out(`api_key:     ${key ? `${displayKey(key)}  (${describeSource(settings.apiKey)})` : 'not set'}`);
  ctx.output.out(`base_url:    ${settings.baseUrl.value}  (${describeSource(settings.baseUrl)})`);
  ctx.output.out(`voices_url:  ${settings.voicesUrl.value}  (${describeSource(settings.voicesUrl)})`);
  return EXIT.OK;
}

function fieldOf(name: string | undefined, allowed: readonly ConfigField[]): ConfigField {
  const field = name?.replace(/-/g, '_') as ConfigField | undefined;
  if (!field || !allowed.includes(field)) {
    throw usageError(`Expected one of ${allowed.join(', ')}${name ? `, got "${name}"` : ''}`, 'config');
  }
  return field;
}

async function setField(ctx: CliContext, rest: string[]): Promise<ExitCode> {
  const field = fieldOf(rest[0], ['base_url', 'voices_url']);
  const url = rest[1];
  if (rest.length !== 2 || url === undefined) throw usageError(`Usage: agent-tts config set ${field} <url>`, 'config');
  const value = checkUrl(url, field);
  const config = await loadConfig(ctx.env);
  const path = await saveConfig(ctx.env, { ...config.values, [field]: value });
  if (ctx.output.json) ctx.output.emitJson({ ok: true, path, [field]: value });
  else ctx.output.out(`Set ${field} = ${value} in ${path}.`);
  return EXIT.OK;
}

async function unsetField(ctx: CliContext, rest: string[]): Promise<ExitCode> {
  const field = fieldOf(rest[0], CONFIG_FIELDS);
  if (rest.length !== 1) throw usageError(`Usage: agent-tts config unset ${field}`, 'config');
  const config = await loadConfig(ctx.env);
  const values = { ...config.values };
  delete values[field];
  const path = await saveConfig(ctx.env, values);
  if (ctx.output.json) ctx.output.emitJson({ ok: true, path, unset: field });
  else ctx.output.out(`Removed ${field} from ${path}.`);
  return EXIT.OK;
}
