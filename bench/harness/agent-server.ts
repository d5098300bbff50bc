import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '@agent-tts/server';
import { ServerProcess, freePort } from './server-process.js';
import { NodeProcess } from './node-process.js';

/** The bench package's folder (its results/ and node_modules resolution); the build is in its dist/. */
export const BENCH_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** This package's own dist/harness/: the baselines are built with it. */
const HARNESS = fileURLToPath(new URL('.', import.meta.url));
const HONO_BASELINE_MAIN = join(HARNESS, 'hono-hello.js');
const LEAN_POLL_MAIN = join(HARNESS, 'lean-poll.js');

export interface Fixtures {
  base_url: string;
  keys: { active: string[] };
}

export interface StartOptions {
  /** Settings beyond the bench defaults (HOST, ports, DATA_DIR, LOG_LEVEL=info, SYNTH_THREADS). */
  env: Record<string, string>;
  synthThreads: number;
  /** Extra Node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** Directory for a CPU profile, when nodeArgs asks for one. */
  label: string;
}

/**
 * The reference server (harness/server-process.ts), with a fresh data directory it runs in. Logs go
 * to a file in that directory at the default level (info): a request log line is part of the path
 * being measured, as in a deployment.
 */
export class AgentServer {
  private constructor(private readonly server: ServerProcess) {}

  static async start(opts: StartOptions): Promise<AgentServer> {
    const server = await ServerProcess.start({
      name: `agent-tts server (${opts.label})`,
      dataDirPrefix: `agent-tts-bench-${opts.label}-`,
      synthThreads: opts.synthThreads,
      env: opts.env,
      nodeArgs: opts.nodeArgs,
      logFile: 'server.log',
      cwdDataDir: true,
      startTimeoutMs: 60_000,
    });
    return new AgentServer(server);
  }

  get process(): NodeProcess {
    return this.server.process;
  }

  get baseUrl(): string {
    return this.server.baseUrl;
  }

  get dataDir(): string {
    return this.server.dataDir;
  }

  get env(): Record<string, string> {
    return this.server.env;
  }

  /** From the spawn until /healthz answered. */
  get startupMs(): number {
    return this.server.startupMs;
  }

  get pid(): number {
    return this.server.pid;
  }

  /**
   * The settings the server runs with, defaults included, resolved from the same environment by the
   * server's own loader (its data directory and signing secret exist by now, so this writes nothing).
   */
  config(): Config {
    return loadConfig({ ...process.env, ...this.env });
  }

  /** Runs the admin command against this server's store. */
  admin(args: string[], opts: { timeoutMs?: number } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
    return this.server.admin(args, opts);
  }

  /** `admin seed --active n`: n fresh accounts with one active key each. */
  async seed(active: number): Promise<Fixtures> {
    const fixtures = await this.server.seed(['--active', String(active)]);
    if (fixtures.keys.active.length < active) throw new Error('admin seed wrote fewer active keys than asked');
    return fixtures;
  }

  /** Lines of the JSON log whose `msg` is `msg`. */
  async logRecords(msg: string): Promise<Record<string, unknown>[]> {
    const records: Record<string, unknown>[] = [];
    for (const line of this.server.log().split('\n')) {
      if (!line.includes(`"msg":"${msg}"`)) continue;
      try {
        records.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // A line cut by a crash: not a record.
      }
    }
    return records;
  }

  /** Stops the server (SIGTERM) and removes its data directory unless `keep`. */
  async stop(keep = false): Promise<number | null> {
    const code = await this.server.stop();
    if (!keep) await rm(this.dataDir, { recursive: true, force: true });
    return code;
  }
}

/** A baseline server in its own process with a scratch directory (DATA_DIR), on a free loopback port. */
async function startBaseline(name: string, script: string, marker: RegExp, env: Record<string, string> = {}, nodeArgs?: string[]) {
  const dir = await mkdtemp(join(tmpdir(), `agent-tts-bench-${name}-`));
  const port = await freePort();
  const proc = NodeProcess.spawn(name, script, { env: { ...env, PORT: String(port), DATA_DIR: dir }, logPath: join(dir, `${name}.log`), nodeArgs });
  try {
    await proc.waitForLog(marker, 20_000);
  } catch (error) {
    await proc.stop(2_000);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const stop = async () => {
    await proc.stop();
    await rm(dir, { recursive: true, force: true });
  };
  // waitForLog saw the marker, so the log shows it.
  const line = marker.exec(proc.log());
  if (!line) throw new Error(`the log of ${name} does not show ${marker}, which it was waited for`);
  return { proc, port, line, stop };
}

/** The bare Hono hello world, in its own process. */
export class HonoBaseline {
  private constructor(
    readonly process: NodeProcess,
    readonly url: string,
    readonly stop: () => Promise<void>,
  ) {}

  static async start(): Promise<HonoBaseline> {
    const { proc, port, stop } = await startBaseline('hono-hello', HONO_BASELINE_MAIN, /hono-hello listening/);
    return new HonoBaseline(proc, `http://127.0.0.1:${port}/`, stop);
  }
}

/**
 * The lean poll handler (harness/lean-poll.ts), in its own process: the necessary work of a poll and
 * nothing else, with its own database, key and completed job.
 */
export class LeanPollBaseline {
  private constructor(
    readonly process: NodeProcess,
    readonly baseUrl: string,
    readonly key: string,
    readonly jobId: string,
    readonly stop: () => Promise<void>,
  ) {}

  /** `env`: RATE_GET_LIMIT and RATE_WINDOW_SECONDS, as the server under test has them; `nodeArgs`: e.g. --cpu-prof. */
  static async start(env: Record<string, string>, nodeArgs?: string[]): Promise<LeanPollBaseline> {
    const { proc, port, line, stop } = await startBaseline('lean-poll', LEAN_POLL_MAIN, /lean-poll listening on \d+ key (\S+) job (\S+)/, env, nodeArgs);
    const [, key = '', jobId = ''] = line;
    return new LeanPollBaseline(proc, `http://127.0.0.1:${port}`, key, jobId, stop);
  }
}
