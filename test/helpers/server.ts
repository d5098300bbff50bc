/**
 * Which tests start the reference server as a process (`startServer` below), and which do not.
 *
 * A test in test/ starts a process only when the process is what it tests:
 * - its life: crashes, signals, shutdown and restart (server-lifecycle);
 * - several processes together: API instances and workers over Redis, S3 (distributed-e2e,
 *   distributed-multiprocess, distributed-s3, load-distributed);
 * - faults injected under a running process (fault-redis-freeze, fault-object-store);
 * - the process as it is deployed or documented: the README's literal commands
 *   (readme-first-request), docs/distributed.md's commands run by bash (distributed-guide), the conformance suite against the reference as deployed
 *   (conformance-reference), the settings every program refuses at start and what the server's own
 *   output shows (settings-redaction).
 *
 * Everything else runs the server in the test's process (test/helpers/in-process.ts):
 * - HTTP behaviour (authentication, CORS, jobs, idempotency, rate limits, bad input, client aborts, the
 *   upstream engine) lives beside the code it tests, as `*.http.test.ts` under src/server:
 *   `startInProcessHttp` answers through `app.request()`, `listen` on real sockets when the test
 *   needs a connection (raw bytes, a socket closed mid-body, a speech server called back);
 * - tests whose subject is another process (the CLI, the clients, the MCP tool, the browser tests, the
 *   conformance self-test and Prism proxy, the load tool) stay in test/ and talk to `listen()`: the
 *   server in the test's process on TCP ports, with the environment this function would give.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ServerProcess } from '@agent-tts/bench/harness/server-process.js';
import type { ConformanceFixturesT } from '../../src/contract/fixtures.js';

// The process harness is shared with the benchmarks: bench/harness/server-process.ts (its entry points,
// freePort) and bench/harness/node-process.ts (runNode), which the tests import from there.

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface RunningServer {
  baseUrl: string;
  voicesUrl: string;
  fixtures: ConformanceFixturesT;
  fixturesPath: string;
  dataDir: string;
  env: Record<string, string>;
  /** Everything the server wrote to stdout and stderr so far (JSON log lines). */
  logs(): string;
  process: ChildProcess;
  /** Runs the admin CLI against this server's store. */
  admin(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }>;
  /** SIGTERM, then waits for the exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash). */
  kill(): Promise<void>;
  /** Starts the server again on the same ports and data directory. */
  restart(extraEnv?: Record<string, string>): Promise<void>;
}

/**
 * The distributed mode for a test server: `TEST_REDIS_URL` (default the local Redis) on database 11,
 * under a key prefix of its own (inside `TEST_REDIS_RUN_PREFIX` when a run sets one, so the run can
 * delete its keys afterwards).
 */
export function redisBackendEnv(): Record<string, string> {
  const url = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  if (url.pathname === '' || url.pathname === '/') url.pathname = '/11';
  const runPrefix = process.env.TEST_REDIS_RUN_PREFIX ?? 'agent-tts-test:';
  return { REDIS_URL: url.toString(), REDIS_PREFIX: `${runPrefix}server-${randomBytes(4).toString('hex')}:` };
}

/**
 * Starts the reference server (built, in `dist/`) as a child process on free ports with its own data
 * directory, and seeds it. Set `seed: false` to skip seeding. `backend: 'redis'` (or the environment
 * variable TEST_BACKEND=redis, which runs a whole end-to-end suite in the distributed mode) backs it
 * with Redis instead of SQLite; `env` still wins over what that sets.
 */
export async function startServer(
  opts: { env?: Record<string, string>; seed?: boolean; dataDir?: string; backend?: 'embedded' | 'redis' } = {},
): Promise<RunningServer> {
  const server = await ServerProcess.start({
    dataDir: opts.dataDir,
    dataDirPrefix: 'agent-tts-test-',
    env: {
      CORS_ORIGINS: 'https://app.example.com',
      CORS_PREVIEW_PATTERN: 'https://*.preview.example.com',
      ...((opts.backend ?? process.env.TEST_BACKEND) === 'redis' ? redisBackendEnv() : {}),
      ...opts.env,
    },
  });
  let fixtures = {} as ConformanceFixturesT;
  if (opts.seed !== false) {
    try {
      fixtures = await server.seed();
    } catch (error) {
      await server.kill();
      throw error;
    }
  }
  return {
    baseUrl: server.baseUrl,
    voicesUrl: server.voicesUrl,
    fixtures,
    fixturesPath: server.fixturesPath,
    dataDir: server.dataDir,
    env: server.env,
    logs: () => server.log(),
    get process() {
      return server.process.child;
    },
    admin: (args, input) => server.admin(args, { input }),
    stop: () => server.stop(),
    kill: () => server.kill(),
    restart: (extraEnv) => server.restart(extraEnv),
  };
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
