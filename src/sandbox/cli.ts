import { isIPv6 } from 'node:net';
import { parseArgs } from 'node:util';
import { API_PATH } from '../contract/limits.js';
import { ConfigError } from '../server/config.js';
import { writeFixtures } from '../server/seed.js';
import { renameOldFlags } from '../flag-names.js';
import { SANDBOX_HEADER, isLoopbackHost, startSandbox } from './index.js';

const HELP = `agent-tts-sandbox: a stateful sandbox of the agent-tts API for client authors (not a deployment).

Usage: agent-tts-sandbox [--host 127.0.0.1] [--port 0] [--voices-port 0] [--out <file>]

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

The reference server's own API (POST/GET ${API_PATH}, audio URLs) over in-memory state, with an
instant synthesizer. Test keys are new on every start and are printed below and listed at GET /sandbox,
with the magic inputs that choose a job's outcome. The test clock: GET/POST /sandbox/clock. The request
journal: GET/DELETE /sandbox/requests. Writes to /sandbox/* take JSON (Content-Type: application/json)
and are refused from web pages of other origins. Every answer carries "${SANDBOX_HEADER}: 1".
README, "Sandbox".
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    // Named as every command of the package names the file it writes (README, "Flag names").
    args: renameOldFlags(process.argv.slice(2), { fixtures: 'out' }, (line) => process.stderr.write(`agent-tts-sandbox: ${line}\n`)),
    options: {
      host: { type: 'string' },
      'allow-remote': { type: 'boolean' },
      port: { type: 'string' },
      'voices-port': { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const port = (name: string, value: string | undefined) => {
    if (value === undefined) return 0;
    if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) throw new ConfigError(`--${name}: expected a port 0-65535, got "${value}"`);
    return Number(value);
  };
  const host = values.host ?? '127.0.0.1';
  const remote = !isLoopbackHost(host);
  if (remote && !values['allow-remote']) {
    throw new ConfigError(
      `--host ${host} is not a loopback address: every machine that can reach it would get the test keys (GET /sandbox) and could move the clock and read the request journal. ` +
        'Add --allow-remote to listen there anyway (on a network you trust), or use 127.0.0.1, ::1 or localhost.',
    );
  }
  const sandbox = await startSandbox({
    host,
    allowRemote: remote,
    port: port('port', values.port),
    voicesPort: port('voices-port', values['voices-port']),
  });
  const startedMs = Math.round(process.uptime() * 1000);
  const { listening } = sandbox;
  if (remote) {
    process.stderr.write(
      `agent-tts-sandbox: warning: listening on ${listening.host} (--allow-remote), ports ${listening.port} and ${listening.voicesPort}: ` +
        'anyone who can reach them gets the test keys (GET /sandbox) and can move the clock and read the request journal. Use it only on a network you trust.\n',
    );
  }
  const bound = isIPv6(listening.host) ? `[${listening.host}]` : listening.host;
  const out: string[] = [
    `agent-tts sandbox on ${sandbox.baseUrl} (voice catalog on ${sandbox.voicesUrl})`,
    ...(remote ? [`Listening on ${bound}:${listening.port}, reachable at ${listening.urls.join(', ')}`] : []),
    `Not a deployment: state is in memory and gone on exit; every answer carries "${SANDBOX_HEADER}: 1".`,
    'Test keys (new on every start):',
    ...Object.entries(sandbox.keys).map(([state, key]) => `  ${state.padEnd(22)} ${key}`),
    `Magic inputs, keys and clock: GET ${sandbox.baseUrl}/sandbox   journal: GET ${sandbox.baseUrl}/sandbox/requests`,
  ];
  if (values.out) {
    await writeFixtures(values.out, await sandbox.fixtures());
    out.push(`Conformance fixtures written to ${values.out}`);
  }
  out.push(`Started in ${startedMs} ms (process start to listening).`);
  process.stdout.write(out.join('\n') + '\n');

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
