import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { procStatusBytes } from './proc.js';

/** The benchmarks run the built server (`@agent-tts/server`'s dist/), as `npm start` does. */
const resolveBuilt = (specifier: string): string => createRequire(import.meta.url).resolve(specifier);
export const SERVER_MAIN = resolveBuilt('@agent-tts/server/main.js');
export const ADMIN_MAIN = resolveBuilt('@agent-tts/server/admin.js');
/** The bench package's folder (its results/ and node_modules resolution); the build is in its dist/. */
export const BENCH_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** This package's own dist/harness/: the baselines are built with it. */
const HARNESS = fileURLToPath(new URL('.', import.meta.url));
export const HONO_BASELINE_MAIN = join(HARNESS, 'hono-hello.js');
export const LEAN_POLL_MAIN = join(HARNESS, 'lean-poll.js');

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

/** Children still running: killed if the benchmark process exits early (an error, Ctrl-C). */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A Node child process whose output goes to a log file, stopped with SIGTERM (SIGKILL after a grace). */
export class NodeProcess {
  readonly startedAt = performance.now();
  private exitCode: number | null | undefined;
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logPath: string,
  ) {
    live.add(child);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        live.delete(child);
        this.exitCode = code ?? (signal ? -1 : null);
        resolve(this.exitCode);
      });
    });
  }

  static spawn(name: string, script: string, opts: { env: Record<string, string>; logPath: string; nodeArgs?: string[]; cwd?: string }): NodeProcess {
    const fd = openSync(opts.logPath, 'a');
    try {
      const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), script], {
        env: { ...process.env, ...opts.env },
        stdio: ['ignore', fd, fd],
        cwd: opts.cwd,
      });
      return new NodeProcess(name, child, opts.logPath);
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

  log(): string {
    try {
      return readFileSync(this.logPath, 'utf8');
    } catch {
      return '';
    }
  }

  /** Last lines of the log, for error messages. */
  logTail(lines = 15): string {
    return this.log().trimEnd().split('\n').slice(-lines).join('\n');
  }

  /**
   * Waits until the log contains `marker` or `ready()` says yes; rejects when the process exits first or
   * the time is up.
   */
  async waitForLog(marker: string | RegExp, timeoutMs: number, ready?: () => Promise<boolean>): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      const text = this.log();
      if (typeof marker === 'string' ? text.includes(marker) : marker.test(text)) return;
      if (ready && (await ready())) return;
      if (!this.running) throw new Error(`${this.name} exited with code ${this.exitCode} before it was ready:\n${this.logTail()}`);
      await sleep(50);
    }
    throw new Error(`${this.name} was not ready within ${timeoutMs} ms:\n${this.logTail()}`);
  }

  peakRssBytes(): number | undefined {
    return procStatusBytes(this.pid, 'VmHWM');
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  async stop(graceMs = 20_000): Promise<number | null> {
    if (!this.running) return this.exitCode ?? null;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

export function runNode(script: string, args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
