import { isIPv6 } from 'node:net';
import { parseArgs } from 'node:util';
import { API_PATH } from '@agent-tts/contract/limits.js';
import { ConfigError, redactText, writeFixtures } from '@agent-tts/server';
import { renameOldFlags } from '@agent-tts/contract/flag-names.js';
import { type RunningSandbox, SANDBOX_HEADER, type StartSandboxOptions, isLoopbackHost, startSandbox } from './index.js';
import { SANDBOX_SETTINGS, flagOf, notForTheSandbox, parsePort, settingsFromEnvironment } from './settings.js';

/** The settings after the listeners', one a line: `  --rate-post-limit <n>   RATE_POST_LIMIT, default 1: …`. */
const SETTINGS_HELP = SANDBOX_SETTINGS.filter((s) => !['HOST', 'PORT', 'VOICES_PORT'].includes(s.name))
  .map((s) => `  ${`--${flagOf(s.name)} ${s.value}`.padEnd(36)}${s.name} (default ${s.default}): ${s.meaning}`)
  .join('\n');

const HELP = `agent-tts-sandbox: a stateful sandbox of the agent-tts API for client authors (not a deployment).

Usage: agent-tts-sandbox [--host 127.0.0.1] [--port 0] [--voices-port 0] [--out <file>]
                         [--public-base-url <url>] [--rate-post-limit <n>] [--<setting> <value>…]
                         [--validate-responses]

  --host          address to listen on (default 127.0.0.1); a loopback address (127.x.y.z, ::1,
                  localhost) unless --allow-remote is given
  --allow-remote  listen on a --host that is not a loopback address (0.0.0.0, ::, an interface's
                  address). Anyone who can reach it then gets the test keys (GET /sandbox) and can move
                  the clock and read the journal: only on a network you trust
  --port          API port (default 0: any free port; the URL is printed)
  --voices-port   voice-catalog port (default 0: any free port)
  --out <file>    also seed the accounts the conformance suite needs and write its fixtures file
                  there, e.g. .agent-tts/fixtures.sandbox.json (its directory is created; the file
                  holds test keys, mode 0600), with "clock": the suite advances the sandbox clock
                  instead of sleeping. Formerly --fixtures, still read with a notice
  --validate-responses
                  check every answer to an operation of the OpenAPI document (POST/GET /v1/agent-tts,
                  audio URLs, the voice catalog; not /sandbox/*) against openapi/openapi.json. A
                  violation is flagged RESPONSE_VIOLATES_DOCUMENT in the journal (GET
                  /sandbox/requests/flags) and logged as an error line on stdout; the answer goes
                  out unchanged

Settings: the reference server's configuration variables that apply to the sandbox, read from the
environment (RATE_POST_LIMIT=10 agent-tts-sandbox) or given as a flag named after the variable (the
flag wins), checked as the server checks them; a bad value exits 2 saying what is allowed. --host,
--port and --voices-port are HOST, PORT and VOICES_PORT. Settings of the server that do not apply
(REDIS_URL, DATA_DIR, AUDIO_STORE, TTS_ENGINE…) are ignored with a warning when in the environment,
refused as flags.
${SETTINGS_HELP}

The reference server's own API (POST/GET ${API_PATH}, audio URLs) over in-memory state, with an
instant synthesizer. Test keys are new on every start and are printed below and listed at GET /sandbox,
with the magic inputs that choose a job's outcome. The test clock: GET/POST /sandbox/clock; a clock of
a test's own, with fresh keys bound to it: POST /sandbox/clocks, then GET/POST/DELETE /sandbox/clocks/<id>
(GET /sandbox/clocks/mine names the clock of the key in Authorization).
The request journal: GET/DELETE /sandbox/requests. Writes to /sandbox/* take JSON (Content-Type: application/json)
and are refused from web pages of other origins. Every answer carries "${SANDBOX_HEADER}: 1".
More: the README of @agent-tts/sandbox, and docs/sandbox.md in the agent-tts repository.
`;

/** A flag named after a setting of the server that does not apply here is refused saying why, not as an unknown option. */
function refuseSettingsThatDoNotApply(args: readonly string[]): void {
  for (const arg of args) {
    if (arg === '--') return;
    const flag = /^--([a-z0-9-]+)(?:=|$)/.exec(arg)?.[1];
    if (flag === undefined) continue;
    const name = flag.toUpperCase().replaceAll('-', '_');
    const why = notForTheSandbox(name);
    if (why) throw new ConfigError(`--${flag}: ${name} does not apply to the sandbox (${why}). Its settings are listed by --help.`);
  }
}

/** The command line's flags: the listeners', --out, --validate-responses, --help and one per setting. */
function parseFlags(args: string[]) {
  return parseArgs({
    args,
    options: {
      host: { type: 'string' },
      'allow-remote': { type: 'boolean' },
      port: { type: 'string' },
      'voices-port': { type: 'string' },
      out: { type: 'string' },
      'validate-responses': { type: 'boolean' },
      ...Object.fromEntries(SANDBOX_SETTINGS.map((s) => [flagOf(s.name), { type: 'string' as const }])),
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values;
}
type Flags = ReturnType<typeof parseFlags>;

/** The settings: the environment first, each flag over it; `origin` names where a value came from, for messages. */
function settingsOf(values: Flags): { settings: Record<string, string>; origin: Record<string, string> } {
  const { settings, warnings } = settingsFromEnvironment(process.env);
  for (const line of warnings) process.stderr.write(`agent-tts-sandbox: warning: ${line}\n`);
  const origin: Record<string, string> = Object.fromEntries(Object.keys(settings).map((name) => [name, name]));
  for (const { name } of SANDBOX_SETTINGS) {
    const value = (values as Record<string, unknown>)[flagOf(name)];
    if (typeof value !== 'string') continue;
    settings[name] = value;
    origin[name] = `--${flagOf(name)}`;
  }
  return { settings, origin };
}

/** Starts the sandbox on the options (read inside, so that their errors are named too); the server's messages name a variable, and a value given as a flag is named by its flag too. */
async function start(options: () => StartSandboxOptions, origin: Record<string, string>): Promise<RunningSandbox> {
  try {
    return await startSandbox(options());
  } catch (error) {
    if (error instanceof ConfigError) {
      error.message = error.message.replace(/^( {2})([A-Z][A-Z0-9_]*):/gm, (line, indent: string, name: string) =>
        origin[name]?.startsWith('--') ? `${indent}${origin[name]} (${name}):` : line,
      );
    }
    throw error;
  }
}

/** What the sandbox prints once it listens: where, its settings, its test keys and where to look next. */
function startupLines(sandbox: RunningSandbox, env: Record<string, string>, origin: Record<string, string>, remote: boolean, values: Flags): string[] {
  const { listening } = sandbox;
  const bound = isIPv6(listening.host) ? `[${listening.host}]` : listening.host;
  return [
    `agent-tts sandbox on ${sandbox.baseUrl} (voice catalog on ${sandbox.voicesUrl})`,
    ...(remote || env.PUBLIC_BASE_URL !== undefined || env.PUBLIC_VOICES_URL !== undefined
      ? [`Listening on ${bound}:${listening.port}, reachable at ${listening.urls.join(', ')}`]
      : []),
    ...(Object.keys(env).length > 0
      ? [
          `Settings: ${Object.entries(env)
            .map(([name, value]) => `${name}=${redactText(value)} (${origin[name] === name ? 'environment' : origin[name]})`)
            .join(', ')}`,
        ]
      : []),
    ...(values['validate-responses']
      ? [
          'Answers are checked against the OpenAPI document (--validate-responses): a violation is flagged RESPONSE_VIOLATES_DOCUMENT in the journal and logged.',
        ]
      : []),
    `Not a deployment: state is in memory and gone on exit; every answer carries "${SANDBOX_HEADER}: 1".`,
    'Test keys (new on every start):',
    ...Object.entries(sandbox.keys).map(([state, key]) => `  ${state.padEnd(22)} ${key}`),
    `Magic inputs, keys and clock: GET ${sandbox.baseUrl}/sandbox   journal: GET ${sandbox.baseUrl}/sandbox/requests`,
  ];
}

async function main(): Promise<void> {
  // Named as every command of the package names the file it writes (docs/configuration.md, "Flag names").
  const args = renameOldFlags(process.argv.slice(2), { fixtures: 'out' }, (line) => process.stderr.write(`agent-tts-sandbox: ${line}\n`));
  refuseSettingsThatDoNotApply(args);
  const values = parseFlags(args);
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const { settings, origin } = settingsOf(values);
  const { HOST, PORT, VOICES_PORT, ...env } = settings;
  const host = HOST ?? '127.0.0.1';
  const remote = !isLoopbackHost(host);
  if (remote && !values['allow-remote']) {
    throw new ConfigError(
      `${origin.HOST === 'HOST' ? `HOST=${host} (from the environment)` : `--host ${host}`} is not a loopback address: every machine that can reach it would get the test keys (GET /sandbox) and could move the clock and read the request journal. ` +
        'Add --allow-remote to listen there anyway (on a network you trust), or use 127.0.0.1, ::1 or localhost.',
    );
  }
  const sandbox = await start(
    () => ({
      host,
      allowRemote: remote,
      port: PORT === undefined ? 0 : parsePort(origin.PORT!, PORT),
      voicesPort: VOICES_PORT === undefined ? 0 : parsePort(origin.VOICES_PORT!, VOICES_PORT),
      env,
      validateResponses: values['validate-responses'] === true,
    }),
    origin,
  );
  const startedMs = Math.round(process.uptime() * 1000);
  const { listening } = sandbox;
  if (remote) {
    process.stderr.write(
      `agent-tts-sandbox: warning: listening on ${listening.host} (--allow-remote), ports ${listening.port} and ${listening.voicesPort}: ` +
        'anyone who can reach them gets the test keys (GET /sandbox) and can move the clock and read the request journal. Use it only on a network you trust.\n',
    );
  }
  const out = startupLines(sandbox, env, origin, remote, values);
  if (values.out) {
    await writeFixtures(values.out, await sandbox.fixtures());
    out.push(`Conformance fixtures written to ${values.out}`);
  }
  out.push(`Started in ${startedMs} ms (process start to listening).`);
  process.stdout.write(`${out.join('\n')}\n`);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void sandbox.stop().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  const usage = error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  process.stderr.write(`agent-tts-sandbox: ${message}\n`);
  process.exit(usage ? 2 : 1);
});
