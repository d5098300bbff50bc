import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConformanceFixtures, type ConformanceFixturesT } from '../../src/contract/fixtures.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SERVER_MAIN = join(ROOT, 'src/server/dist/main.js');
export const ADMIN_MAIN = join(ROOT, 'src/server/dist/admin.js');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

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

export function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/**
 * Waits until this launch answers on /healthz (whatever the log level). On a timeout the process is
 * killed, so a failed start leaves nothing running.
 */
async function waitForListening(child: ChildProcess, output: () => string, healthUrl: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`server exited with ${exited}:\n${output()}`);
    const ok = await fetch(healthUrl, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start within 30 s:\n${output()}`);
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
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'agent-tts-test-')));
  const [port, voicesPort] = [await freePort(), await freePort()];
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    PORT: String(port),
    VOICES_PORT: String(voicesPort),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    CORS_ORIGINS: 'https://app.example.com',
    CORS_PREVIEW_PATTERN: 'https://*.preview.example.com',
    SYNTH_THREADS: '1',
    ...((opts.backend ?? process.env.TEST_BACKEND) === 'redis' ? redisBackendEnv() : {}),
    ...opts.env,
  };
  let output = '';
  let child!: ChildProcess;
  const launch = async (extra: Record<string, string> = {}) => {
    Object.assign(env, extra);
    child = spawn(process.execPath, [SERVER_MAIN], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    await waitForListening(child, () => output, `http://127.0.0.1:${port}/healthz`);
  };
  await launch();
  const admin = (args: string[], input?: string) => runNode(ADMIN_MAIN, args, env, input);
  const fixturesPath = join(dataDir, 'fixtures.json');
  let fixtures = {} as ConformanceFixturesT;
  if (opts.seed !== false) {
    const result = await admin(['seed', '--out', fixturesPath]);
    if (result.code !== 0) {
      child.kill('SIGKILL');
      throw new Error(`seed failed: ${result.stderr}`);
    }
    fixtures = ConformanceFixtures.parse(JSON.parse(await readFile(fixturesPath, 'utf8')));
  }
  const exited = () =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
    });
  const server: RunningServer = {
    baseUrl: `http://127.0.0.1:${port}`,
    voicesUrl: `http://127.0.0.1:${voicesPort}`,
    fixtures,
    fixturesPath,
    dataDir,
    env,
    logs: () => output,
    get process() {
      return child;
    },
    admin,
    async stop() {
      const done = exited();
      child.kill('SIGTERM');
      const code = await done;
      return code;
    },
    async kill() {
      const done = exited();
      child.kill('SIGKILL');
      await done;
    },
    async restart(extraEnv) {
      await launch(extraEnv);
    },
  };
  return server;
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
