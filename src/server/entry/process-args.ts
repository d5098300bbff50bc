import { API_PATH } from '@agent-tts/contract/limits.js';
import { ConfigError } from '../config/error.js';
import { describeError } from '../redact.js';

/**
 * The server and worker take their settings from environment variables only. `--help` explains that;
 * any other argument is a mistake (a flag that would silently do nothing), refused with exit code 2.
 */
export function handleProcessArgs(name: string, help: string, argv = process.argv.slice(2)): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(help);
    process.exit(0);
  }
  if (argv.length > 0) {
    process.stderr.write(`${name}: unexpected argument "${argv[0]}": settings are environment variables (see ${name} --help)\n`);
    process.exit(2);
  }
}

/**
 * How a process that could not start says so: a configuration mistake exits 2 with its message, any
 * other failure 1. A library's message may quote a URL setting, credentials and all: printed only redacted.
 */
export function exitOnStartFailure(name: string): (error: unknown) => never {
  return (error) => {
    const message = describeError(error, process.env);
    if (error instanceof ConfigError) {
      process.stderr.write(`${name}: ${message}\n`);
      process.exit(2);
    }
    process.stderr.write(`${name}: failed to start: ${message}\n`);
    process.exit(1);
  };
}

const COMMON = `  DATA_DIR              SQLite file, audio files, URL-signing secret (default ./data)
  REDIS_URL             distributed mode: Redis for state, rate limits and the job queue
  TTS_ENGINE            espeak (default, embedded) or openai-compatible (UPSTREAM_*_URL)
  SYNTH_ENGINE          auto (default: native eSpeak NG and LAME when installed), native or wasm
  SYNTH_THREADS         synthesis worker threads (default: the number of cores)
  LOG_LEVEL             pino level (default info)
`;

export const SERVER_HELP = `agent-tts-server: the agent-tts reference server (POST/GET ${API_PATH}).

Usage: agent-tts-server            (configured through environment variables)

  HOST, PORT            API listener (default 127.0.0.1:8080)
  VOICES_PORT           voice-catalog listener (default 8081)
  OPS_PORT              /healthz, /readyz, /metrics on their own listener (default: on PORT)
  PUBLIC_BASE_URL       origin clients use; audio URLs are built on it
  INLINE_WAIT_MS        how long a POST waits before answering 202 (default 10000)
  RATE_POST_LIMIT, RATE_GET_LIMIT, RATE_WINDOW_SECONDS   per-key limits (default 1, 30, 60)
${COMMON}
Every variable, with its default, is in docs/configuration.md of the agent-tts repository. A bad value stops the
start with exit code 2 and a message naming the variable. Accounts and keys: agent-tts-admin.
`;

export const WORKER_HELP = `agent-tts-worker: a synthesis worker of the distributed mode (takes jobs from Redis).

Usage: REDIS_URL=redis://… DATA_DIR=<shared audio volume> agent-tts-worker

${COMMON}  JOB_CONCURRENCY       jobs run at once (default 8)
  QUEUE_ATTEMPTS, QUEUE_LOCK_MS, QUEUE_STALLED_CHECK_MS   queue settings (docs/distributed.md)

Run as many as the machines allow; SIGTERM lets running jobs finish within SHUTDOWN_GRACE_MS.
`;
