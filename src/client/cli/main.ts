import { run } from './run.js';
import { EXIT } from './exit-codes.js';
import { redactKeys } from '../../contract/limits.js';

/**
 * Entry point of the `agent-tts` command (bin/agent-tts.js imports this module). Ctrl-C aborts the
 * current request cleanly (exit 130, with the job id when there is one); a second Ctrl-C exits at once.
 */
const controller = new AbortController();
process.on('SIGINT', () => {
  if (controller.signal.aborted) process.exit(EXIT.INTERRUPTED);
  controller.abort(new DOMException('Interrupted', 'AbortError'));
});
// A reader that went away (`agent-tts speak ... -o - | head -c 10`) is not an error worth a trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(EXIT.OK);
});

run(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
}).then(
  (code) => {
    process.exitCode = code;
    // The command is done: idle keep-alive sockets must not hold the exit for seconds.
    setImmediate(() => process.exit(code)).unref();
  },
  (error: unknown) => {
    // run() reports its own failures; this is a last resort, still without a trace or a key.
    process.stderr.write(`Unexpected error: ${redactKeys(error instanceof Error ? error.message : String(error))}\n`);
    process.exit(EXIT.UNEXPECTED);
  },
);
