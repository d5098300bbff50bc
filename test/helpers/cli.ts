import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './server.js';

/** The command line of this checkout (src/client/bin/agent-tts.js, over its dist/). */
const CLI_BIN = join(ROOT, 'src/client/bin/agent-tts.js');

/**
 * Runs `agent-tts` with `args` and only `env` (and PATH) in its environment, `input` on its standard input;
 * in `cwd` (default the checkout) and, with `umask`, under that umask (set by a shell, as a user's would be).
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  input = '',
  options: { cwd?: string; umask?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { cwd = ROOT, umask } = options;
  const [cmd, argv] = umask
    ? ['/bin/sh', ['-c', `umask ${umask}; exec "$0" "$@"`, process.execPath, CLI_BIN, ...args]]
    : [process.execPath, [CLI_BIN, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { env: { PATH: process.env.PATH ?? '', ...env }, cwd, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}
