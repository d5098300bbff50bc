import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '@agent-tts/server/config.js';
import { httpRequest } from './http-client.js';
import { ADMIN_MAIN, HONO_BASELINE_MAIN, LEAN_POLL_MAIN, NodeProcess, SERVER_MAIN, freePort, runNode } from './processes.js';

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
 * The reference server, built, in its own process on free loopback ports with a fresh data directory.
 * Logs go to a file in that directory at the default level (info): a request log line is part of the
 * path being measured, as in a deployment.
 */
export class AgentServer {
  private constructor(
    readonly process: NodeProcess,
    readonly baseUrl: string,
    readonly dataDir: string,
    readonly env: Record<string, string>,
    readonly startupMs: number,
  ) {}

  static async start(opts: StartOptions): Promise<AgentServer> {
    const dataDir = await mkdtemp(join(tmpdir(), `agent-tts-bench-${opts.label}-`));
    const [port, voicesPort] = [await freePort(), await freePort()];
    const env: Record<string, string> = {
      HOST: '127.0.0.1',
      PORT: String(port),
      VOICES_PORT: String(voicesPort),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SYNTH_THREADS: String(opts.synthThreads),
      ...opts.env,
    };
    const started = performance.now();
    const proc = NodeProcess.spawn(`agent-tts server (${opts.label})`, SERVER_MAIN, {
      env,
      logPath: join(dataDir, 'server.log'),
      nodeArgs: opts.nodeArgs,
      cwd: dataDir,
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    // The start-up line is logged at info; below that level (LOG_LEVEL=warn) an answer on the port tells.
    const answers = () =>
      httpRequest(`${baseUrl}/healthz`, { timeoutMs: 1_000 }).then(
        () => true,
        () => false,
      );
    try {
      await proc.waitForLog('agent-tts listening', 60_000, answers);
    } catch (error) {
      await proc.stop(2_000);
      await rm(dataDir, { recursive: true, force: true });
      throw error;
    }
    return new AgentServer(proc, baseUrl, dataDir, env, Math.round(performance.now() - started));
  }

  get pid(): number {
    return this.process.pid;
  }

  /**
   * The settings the server runs with, defaults included, resolved from the same environment by the
   * server's own loader (its data directory and signing secret exist by now, so this writes nothing).
   */
  config(): Config {
    return loadConfig({ ...process.env, ...this.env });
  }

  /** `admin seed --active n`: n fresh accounts with one active key each. */
  async seed(active: number): Promise<Fixtures> {
    const out = join(this.dataDir, 'fixtures.json');
    const result = await runNode(ADMIN_MAIN, ['seed', '--out', out, '--active', String(active)], this.env);
    if (result.code !== 0) throw new Error(`admin seed failed (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`);
    const fixtures = JSON.parse(await readFile(out, 'utf8')) as Fixtures;
    if (!Array.isArray(fixtures.keys?.active) || fixtures.keys.active.length < active) throw new Error('admin seed wrote fewer active keys than asked');
    return fixtures;
  }

  /** Lines of the JSON log whose `msg` is `msg`. */
  async logRecords(msg: string): Promise<Record<string, unknown>[]> {
    const records: Record<string, unknown>[] = [];
    for (const line of this.process.log().split('\n')) {
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
    const code = await this.process.stop();
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
  return { proc, port, line: marker.exec(proc.log())!, stop };
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
    return new LeanPollBaseline(proc, `http://127.0.0.1:${port}`, line[1]!, line[2]!, stop);
  }
}
