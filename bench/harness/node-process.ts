import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { procStatusBytes } from './proc.js';

/**
 * Node child processes of the harness: one kept running (its output in memory or a file, waited on,
 * stopped or killed, and killed with the parent when it exits early), or one run to its end.
 */

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
