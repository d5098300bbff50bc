import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { createFront, silenceMp3 } from './audio-front.js';
import { prismCliPath } from './prism-cli.js';

/** The committed OpenAPI document, as the contract package ships it: Prism's input. */
const openApiYamlPath = (): string => createRequire(import.meta.url).resolve('@agent-tts/contract/openapi.yaml');

const HELP = `Usage: agent-tts-mock [--port 4010] [--host 127.0.0.1] [--prism-port <n>] [--dynamic] [--errors]

Serves the OpenAPI document of @agent-tts/contract (openapi.yaml) with Prism: every operation answers
with its named examples, and an audio URL downloads a real (silent) MP3. Choose an example with the
Prefer header, e.g.
  Prefer: code=202, example=processing
  Prefer: code=429, example=rate_limited
  Prefer: example=completed_with_timings   (word timings; caption URLs answer in their format)
Send any Bearer credential (Prism checks only that one is present). The answers' audio and caption
URLs are on the mock's own address, and download from it. See mock/README.md.

  --port <n>        [AGENT_TTS_MOCK_PORT]        default 4010
  --host <addr>     [AGENT_TTS_MOCK_HOST]        default 127.0.0.1
  --prism-port <n>  [AGENT_TTS_MOCK_PRISM_PORT]  Prism's own port on 127.0.0.1, behind the mock's;
                                                 default 0: any free port
  --dynamic       generate bodies from the schemas instead of serving the examples
  --errors        answer requests that break the document with an error instead of a warning header
  -h, --help      this help

Exit codes: 2 a bad flag or value; 1 the mock could not start (e.g. the port is in use) or Prism
failed.`;

/** A usage mistake: one line on stderr, exit code 2, before Prism is started. */
class UsageError extends Error {}

/** Node's parseArgs messages, made one line each (an ambiguous or missing value says so plainly). */
function parseArgsMessage(error: Error & { code?: string }): string {
  const option = /Option '(-[^' ]+)/.exec(error.message)?.[1];
  if (option && /argument missing|argument is ambiguous/.test(error.message)) return `${option} needs a value`;
  return error.message
    .replace(/\n.*$/s, '')
    .replace(/^Unknown option/, 'unknown option')
    .replace(/^Unexpected argument/, 'unexpected argument');
}

function parseCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { help: true } | { help: false; port: number; host: string; hostName: string; prismPort: number; prismPortName: string; dynamic: boolean; errors: boolean } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'prism-port': { type: 'string' },
        dynamic: { type: 'boolean', default: false },
        errors: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    throw new UsageError(parseArgsMessage(error as Error));
  }
  if (values.help) return { help: true };
  const port = portOption(values.port, '--port', env, 'AGENT_TTS_MOCK_PORT', '4010');
  const prism = portOption(values['prism-port'], '--prism-port', env, 'AGENT_TTS_MOCK_PRISM_PORT', '0');
  if (prism.port !== 0 && prism.port === port.port)
    throw new UsageError(`${prism.name} must differ from ${port.name} (both ${port.port}): Prism listens behind the mock`);
  const [hostName, host] = values.host !== undefined ? ['--host', values.host] : ['AGENT_TTS_MOCK_HOST', env.AGENT_TTS_MOCK_HOST ?? '127.0.0.1'];
  if (!/^[A-Za-z0-9.:_%-]+$/.test(host)) throw new UsageError(`${hostName} must be a host name or an IP address, got "${host}"`);
  return { help: false, port: port.port, host, hostName, prismPort: prism.port, prismPortName: prism.name, dynamic: values.dynamic, errors: values.errors };
}

/** A port from its flag, else its environment variable, else the default, with the name of where it came from. */
function portOption(flag: string | undefined, flagName: string, env: NodeJS.ProcessEnv, variable: string, fallback: string): { port: number; name: string } {
  const [name, text] = flag !== undefined ? [flagName, flag] : [variable, env[variable] ?? fallback];
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw new UsageError(`${name} must be an integer from 0 to 65535, got "${text}"`);
  return { port: Number(text), name };
}

/**
 * Listens on the mock's address, reporting a port in use or a host that is not this machine's in one
 * line (Prism would print its whole usage and a stack trace).
 */
function listenFront(front: Server, port: number, host: string, hostName: string): Promise<void> {
  return new Promise((resolve, reject) => {
    front.once('error', (error: NodeJS.ErrnoException) => {
      const reasons: Record<string, [string, number]> = {
        EADDRINUSE: [`port ${port} is in use; choose another with --port`, 1],
        EACCES: [`port ${port} needs privileges this process does not have; choose another with --port`, 1],
        EADDRNOTAVAIL: [`${hostName} ${host} is not an address of this machine`, 2],
        ENOTFOUND: [`${hostName} ${host} is not an IP address or a known host name`, 2],
      };
      const [message, code] = reasons[error.code ?? ''] ?? [`cannot listen on ${host}:${port}: ${error.message}`, 1];
      reject(Object.assign(new Error(message), { exitCode: code }));
    });
    front.listen({ port, host }, () => resolve());
  });
}

/**
 * Prism's port on the loopback interface, behind the front listener: the one asked for when it is free
 * (a port in use is reported in one line, naming the setting), else any free port.
 */
function prismLoopbackPort(port: number, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE'
          ? 'is in use'
          : error.code === 'EACCES'
            ? 'needs privileges this process does not have'
            : `cannot be used (${error.message})`;
      reject(Object.assign(new Error(`${name} ${port} ${why} on 127.0.0.1; choose another, or 0 for any free port`), { exitCode: 1 }));
    });
    probe.listen({ port, host: '127.0.0.1' }, () => {
      const { port: bound } = probe.address() as { port: number };
      probe.close(() => resolve(bound));
    });
  });
}

async function main(): Promise<void> {
  let options;
  try {
    options = parseCli(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`agent-tts-mock: ${error.message} (see agent-tts-mock --help)`);
    process.exitCode = 2;
    return;
  }
  if (options.help) {
    console.log(HELP);
    return;
  }
  // The mock's own listener answers audio downloads with a real MP3 (Prism cannot send binary bytes:
  // see audio-front.ts) and hands everything else to Prism, which listens on the loopback interface.
  let front: Server;
  let prism: { host: string; port: number };
  try {
    prism = { host: '127.0.0.1', port: await prismLoopbackPort(options.prismPort, options.prismPortName) };
    front = createFront(await silenceMp3(), prism, { dynamic: options.dynamic });
    await listenFront(front, options.port, options.host, options.hostName);
  } catch (error) {
    console.error(`agent-tts-mock: ${(error as Error).message}`);
    process.exitCode = (error as { exitCode?: number }).exitCode ?? 1;
    return;
  }
  const listening = front.address() as { port: number };
  const publicOrigin = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${listening.port}`;
  const args = [prismCliPath(), 'mock', openApiYamlPath(), '--port', String(prism.port), '--host', prism.host];
  if (options.dynamic) args.push('--dynamic');
  if (options.errors) args.push('--errors');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Prism's lines name its own address; readers see the mock's.
  const prismOrigin = `http://${prism.host}:${prism.port}`;
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => to.write(`${line.split(prismOrigin).join(publicOrigin)}\n`));
  }
  // Stopping the launcher stops Prism, and that is a clean stop (exit 0); otherwise Prism's exit code
  // becomes the launcher's.
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      stopping = true;
      child.kill(signal);
    });
  }
  child.on('exit', (code, signal) => {
    process.exitCode = stopping ? 0 : (code ?? (signal ? 1 : 0));
    front.closeAllConnections();
    front.close();
  });
}

main().catch((error: unknown) => {
  console.error(`agent-tts-mock: failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
