import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConformanceFixtures, type ConformanceFixturesT } from '@agent-tts/contract/fixtures.js';
import { NodeProcess, runNode } from './node-process.js';

/**
 * The one harness that runs the built reference server as a child process, shared by the benchmarks
 * (bench/) and the spawned-process tests (test/, which import it as
 * `@agent-tts/bench/harness/server-process.js`): free ports, the server's environment, waiting for
 * /healthz, seeding keys with the admin command, stopping, and killing what is left when the parent
 * exits (the child processes themselves: node-process.ts).
 */

const require = createRequire(import.meta.url);

/**
 * A built entry point of the server package (`dist/`, what its bins import), so the tests and the
 * benchmarks run what `npm start` runs. Not `require.resolve(name)`: the test runner starts its
 * workers with `--conditions agent-tts-source`, which would resolve to the TypeScript source. The
 * path is computed, not checked: importing this module works before a build, and starting the process
 * then says which file is missing.
 */
function builtEntry(pkg: string, file: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', file);
}

export const SERVER_MAIN = builtEntry('@agent-tts/server', 'entry/server.js');
export const ADMIN_MAIN = builtEntry('@agent-tts/server', 'entry/admin/main.js');
export const WORKER_MAIN = builtEntry('@agent-tts/server', 'entry/worker.js');

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

/** Does `url` answer 200 within a second? Its own connection each time (no keep-alive pool). */
function answers200(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false, timeout: 1_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

export interface ServerProcessOptions {
  /** Names the process in errors. */
  name?: string;
  /** Its data directory (DATA_DIR); by default a fresh temporary one named with `dataDirPrefix`. */
  dataDir?: string;
  dataDirPrefix?: string;
  /** SYNTH_THREADS, 1 unless set. */
  synthThreads?: number;
  /** Settings beyond the defaults (HOST, PORT, VOICES_PORT, DATA_DIR, LOG_LEVEL=info, SYNTH_THREADS); they win. */
  env?: Record<string, string>;
  /** Node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** Output to this file in the data directory rather than in memory (long runs). */
  logFile?: string;
  /** Run with the data directory as the working directory (where --cpu-prof writes). */
  cwdDataDir?: boolean;
  /** How long a start may take until /healthz answers 200. */
  startTimeoutMs?: number;
}

/**
 * The reference server, built, in its own process on free loopback ports with its own data directory.
 * `start` resolves once /healthz answers 200; a start that fails stops the process (and removes a data
 * directory it made) and rejects with the end of the server's output.
 */
export class ServerProcess {
  /** The current launch (a new one after `restart`). */
  process!: NodeProcess;
  /** Milliseconds from the last spawn until /healthz answered. */
  startupMs = 0;
  readonly baseUrl: string;
  readonly voicesUrl: string;
  readonly fixturesPath: string;
  /** Output of earlier launches, when kept in memory (a log file holds them all). */
  private earlierOutput = '';

  private constructor(
    readonly dataDir: string,
    /** The settings it runs with; `restart(extraEnv)` adds to them. */
    readonly env: Record<string, string>,
    private readonly opts: ServerProcessOptions,
  ) {
    this.baseUrl = `http://127.0.0.1:${env.PORT}`;
    this.voicesUrl = `http://127.0.0.1:${env.VOICES_PORT}`;
    this.fixturesPath = join(dataDir, 'fixtures.json');
  }

  static async start(opts: ServerProcessOptions = {}): Promise<ServerProcess> {
    const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), opts.dataDirPrefix ?? 'agent-tts-server-')));
    const [port, voicesPort] = [await freePort(), await freePort()];
    const env: Record<string, string> = {
      HOST: '127.0.0.1',
      PORT: String(port),
      VOICES_PORT: String(voicesPort),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SYNTH_THREADS: String(opts.synthThreads ?? 1),
      ...opts.env,
    };
    const server = new ServerProcess(dataDir, env, opts);
    try {
      await server.launch();
    } catch (error) {
      if (!opts.dataDir) await rm(dataDir, { recursive: true, force: true });
      throw error;
    }
    return server;
  }

  private async launch(): Promise<void> {
    if (this.process && !this.process.logPath) this.earlierOutput += this.process.log();
    this.process = NodeProcess.spawn(this.opts.name ?? 'agent-tts server', SERVER_MAIN, {
      env: this.env,
      nodeArgs: this.opts.nodeArgs,
      cwd: this.opts.cwdDataDir ? this.dataDir : undefined,
      logPath: this.opts.logFile ? join(this.dataDir, this.opts.logFile) : undefined,
    });
    const started = performance.now();
    try {
      await this.process.waitUntil(() => answers200(`${this.baseUrl}/healthz`), this.opts.startTimeoutMs ?? 30_000, 'answering /healthz');
    } catch (error) {
      await this.process.stop(2_000);
      throw error;
    }
    this.startupMs = Math.round(performance.now() - started);
  }

  get pid(): number {
    return this.process.pid;
  }

  /** Everything the server wrote so far, over all its launches (JSON log lines). */
  log(): string {
    return this.earlierOutput + this.process.log();
  }

  /** Starts the server again (after `stop` or `kill`) on the same ports and data directory. */
  async restart(extraEnv: Record<string, string> = {}): Promise<void> {
    Object.assign(this.env, extraEnv);
    await this.launch();
  }

  /** Runs the admin command against this server's store. */
  admin(args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
    return runNode(ADMIN_MAIN, args, this.env, opts);
  }

  /** `admin seed --out <data dir>/fixtures.json ...args`: accounts and keys, as the conformance fixtures. */
  async seed(args: string[] = []): Promise<ConformanceFixturesT> {
    const result = await this.admin(['seed', '--out', this.fixturesPath, ...args]);
    if (result.code !== 0) throw new Error(`admin seed failed (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`);
    return ConformanceFixtures.parse(JSON.parse(await readFile(this.fixturesPath, 'utf8')));
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null> {
    return this.process.stop(graceMs);
  }

  /** SIGKILL (a crash). */
  kill(): Promise<void> {
    return this.process.kill();
  }
}
