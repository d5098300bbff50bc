import { sayAwsSdkNodeWarning } from '../aws-sdk-warning.js';
import { openStorage } from '../../compose.js';
import { loadConfig } from '../../config.js';
import { ConfigError } from '../../config/error.js';
import { AccountAdmin, AdminError } from '../../domain/accounts.js';
import { createLogger } from '../../log.js';
import { describeError } from '../../redact.js';
import { adminOrigin } from '../public-origin.js';
import { COMMANDS, commandOf } from './commands.js';
import { fail, parseAdminArgs } from './context.js';
import { HELP } from './help.js';

/** The commands that print or write URLs of the server: a sign-in link, the fixtures' base_url and audio URL. */
const LINK_COMMANDS = new Set(['account sign-in-link', 'seed']);

/**
 * `agent-tts-admin`: accounts, keys, legacy jobs, storage and seeding of a deployment, on the storage
 * its configuration names. One module per command group; COMMANDS (commands.ts) dispatches.
 */
async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseAdminArgs(argv);
  const [group, action, ...rest] = positionals;
  if (values.help || !group) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const loaded = loadConfig();
  if (loaded.dataDirCreated) process.stderr.write(`agent-tts-admin: created the data directory ${loaded.dataDir} (DATA_DIR); it holds no accounts yet\n`);
  const origin = adminOrigin(loaded);
  const config = { ...loaded, publicBaseUrl: origin.baseUrl, publicVoicesUrl: origin.voicesUrl };
  sayAwsSdkNodeWarning(config, undefined, process.env);
  const storage = await openStorage(config, createLogger('silent'), 'agent-tts-admin');
  const { store, audio } = storage;
  const print = (human: string, json: unknown) => process.stdout.write(`${values.json ? JSON.stringify(json, null, 2) : human}\n`);
  try {
    const command = commandOf(group, action);
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (!run) fail(`unknown command "${command}"\n\n${HELP}`, 2);
    // Said on stderr, so that stdout stays the link or the JSON document.
    if (LINK_COMMANDS.has(command)) process.stderr.write(`agent-tts-admin: ${origin.said}\n`);
    await run({ values, rest, config, store, audio, admin: new AccountAdmin(store), print });
  } finally {
    await storage.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // An invalid setting exits 2, as with the server and the worker.
  if (error instanceof ConfigError) fail(describeError(error, process.env), 2);
  if (error instanceof AdminError) fail(error.message);
  if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) fail(`${error.message}\n\n${HELP}`, 2);
  // A library's message may quote a URL setting, credentials and all: printed only redacted.
  fail(describeError(error, process.env));
});
