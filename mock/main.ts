import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { openApiYamlPath } from '../conformance/package-files.js';
import { prismCliPath } from './prism-cli.js';

const HELP = `Usage: agent-tts-mock [--port 4010] [--host 127.0.0.1] [--dynamic] [--errors]

Serves the package's OpenAPI document (openapi/openapi.yaml) with Prism: every operation answers
with its named examples. Choose one with the Prefer header, e.g.
  Prefer: code=202, example=processing
  Prefer: code=429, example=rate_limited
Send any Bearer credential (Prism checks only that one is present). See mock/README.md.

  --port <n>      [AGENT_TTS_MOCK_PORT]  default 4010
  --host <addr>   [AGENT_TTS_MOCK_HOST]  default 127.0.0.1
  --dynamic       generate bodies from the schemas instead of serving the examples
  --errors        answer requests that break the document with an error instead of a warning header`;

function main(): void {
  let values;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        dynamic: { type: 'boolean', default: false },
        errors: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`agent-tts-mock: ${(error as Error).message}\n\n${HELP}`);
    process.exitCode = 2;
    return;
  }
  if (values.help) {
    console.log(HELP);
    return;
  }
  const port = values.port ?? process.env.AGENT_TTS_MOCK_PORT ?? '4010';
  const host = values.host ?? process.env.AGENT_TTS_MOCK_HOST ?? '127.0.0.1';
  if (!/^\d{1,5}$/.test(port)) {
    console.error(`agent-tts-mock: --port must be a port number, got "${port}"`);
    process.exitCode = 2;
    return;
  }
  const args = [prismCliPath(), 'mock', openApiYamlPath(), '--port', port, '--host', host];
  if (values.dynamic) args.push('--dynamic');
  if (values.errors) args.push('--errors');
  const child = spawn(process.execPath, args, { stdio: 'inherit' });
  // Stopping the launcher stops Prism; Prism's exit code becomes the launcher's.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}

main();
