import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ADMIN_MAIN, SERVER_MAIN, ServerProcess, freePort, runNode } from '@agent-tts/bench/harness/server-process.js';
import type { ConformanceFixturesT } from '../../src/contract/fixtures.js';

// The process harness is shared with the benchmarks: bench/harness/server-process.ts.
export { ADMIN_MAIN, SERVER_MAIN, freePort, runNode };

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
function redisBackendEnv(): Record<string, string> {
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
