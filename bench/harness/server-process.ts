import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConformanceFixtures, type ConformanceFixturesT } from '@agent-tts/contract/fixtures.js';
import { procStatusBytes } from './proc.js';

/**
 * The one harness that runs the built reference server as a child process, shared by the benchmarks
 * (bench/) and the spawned-process tests (test/, which import it as
 * `@agent-tts/bench/harness/server-process.js`): free ports, the server's environment, waiting for
 * /healthz, seeding keys with the admin command, stopping, and killing what is left when the parent
 * exits.
 */

const require = createRequire(import.meta.url);

/**
 * A built entry point of a workspace package: the default target of its `./*.js` export (`dist/`), so
 * the tests and the benchmarks run what `npm start` runs. Not `require.resolve(name)`: the test runner
 * starts its workers with `--conditions agent-tts-source`, which would resolve to the TypeScript
 * source. The path is computed, not checked: importing this module works before a build, and starting
 * the process then says which file is missing.
 */
function builtEntry(pkg: string, file: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { default: string }> };
  return join(dirname(manifest), exports['./*.js'].default.replace('*', file.replace(/\.js$/, '')));
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

/**
 * Children still running: killed when this process exits early (an error, Ctrl-C, a test file that
 * never stopped its server). One set and one listener per process, however often the module is loaded.
 */
const LIVE = Symbol.for('agent-tts.harness.live-children');
const registry = globalThis as unknown as { [LIVE]?: Set<ChildProcess> };
const live: Set<ChildProcess> =
  registry[LIVE] ??
  (() => {
    const children = new Set<ChildProcess>();
    registry[LIVE] = children;
    process.once('exit', () => {
      for (const child of children) child.kill('SIGKILL');
    });
    return children;
  })();

export interface SpawnOptions {
  env: Record<string, string>;
  /** Arguments after the script. */
  args?: string[];
  /** Node flags before the script, e.g. --cpu-prof. */
  nodeArgs?: string[];
  cwd?: string;
  /** Output (stdout and stderr) appended to this file; without it the output is kept in memory. */
  logPath?: string;
}

/** A Node child process, stopped with SIGTERM (SIGKILL after a grace). */
export class NodeProcess {
  readonly startedAt = performance.now();
  private exitCode: number | null | undefined;
  private readonly exited: Promise<number | null>;
  private output = '';

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logPath: string | undefined,
  ) {
    live.add(child);
    child.stdout?.on('data', (d) => (this.output += d));
    child.stderr?.on('data', (d) => (this.output += d));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        live.delete(child);
        this.exitCode = code ?? (signal ? -1 : null);
        resolve(this.exitCode);
      });
    });
  }

  static spawn(name: string, script: string, opts: SpawnOptions): NodeProcess {
    const argv = [...(opts.nodeArgs ?? []), script, ...(opts.args ?? [])];
    const env = { ...process.env, ...opts.env };
    if (!opts.logPath) return new NodeProcess(name, spawn(process.execPath, argv, { env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] }), undefined);
    // Straight to the file: a long benchmark logs every request, and the parent should not carry it.
    const fd = openSync(opts.logPath, 'a');
    try {
      return new NodeProcess(name, spawn(process.execPath, argv, { env, cwd: opts.cwd, stdio: ['ignore', fd, fd] }), opts.logPath);
    } finally {
      closeSync(fd);
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** Everything the process wrote so far. */
  log(): string {
    if (!this.logPath) return this.output;
    try {
      return readFileSync(this.logPath, 'utf8');
    } catch {
      return '';
    }
  }

  /** Last lines of the output, for error messages. */
  logTail(lines = 30): string {
    return this.log().trimEnd().split('\n').slice(-lines).join('\n');
  }

  /**
   * Waits until `ready()` says yes; rejects with the output's tail when the process exits first or the
   * time is up.
   */
  async waitUntil(ready: () => boolean | Promise<boolean>, timeoutMs: number, what = 'ready'): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (await ready()) return;
      if (!this.running) throw new Error(`${this.name} exited with code ${this.exitCode} before it was ${what}:\n${this.logTail()}`);
      await sleep(50);
    }
    throw new Error(`${this.name} was not ${what} within ${timeoutMs} ms:\n${this.logTail()}`);
  }

  /** Waits until the output contains `marker`. */
  async waitForLog(marker: string | RegExp, timeoutMs: number): Promise<void> {
    const seen = () => {
      const text = this.log();
      return typeof marker === 'string' ? text.includes(marker) : marker.test(text);
    };
    await this.waitUntil(seen, timeoutMs, `ready (no "${String(marker)}" in its log)`);
  }

  peakRssBytes(): number | undefined {
    return procStatusBytes(this.pid, 'VmHWM');
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (-1 when a signal ended it). */
  async stop(graceMs = 30_000): Promise<number | null> {
    if (!this.running) return this.exitCode ?? null;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  /** SIGKILL (a crash); resolves once it is gone. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** Runs a Node script to its end (SIGKILL after `timeoutMs`), with `input` on its stdin. */
export function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  opts: { input?: string; timeoutMs?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
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
