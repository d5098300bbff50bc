import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './server.js';

/** The built command as the package ships it (bin → dist). */
const LOAD_BIN = join(ROOT, 'src/load/bin/agent-tts-load.js');

export interface LoadRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (a signal death counts as -1). */
  done: Promise<number>;
}

/** Starts agent-tts-load with `args`, outside a terminal (plain progress lines), CI unset. */
export function startLoad(args: string[], env: Record<string, string> = {}): LoadRun {
  const child = spawn(process.execPath, [LOAD_BIN, ...args], { env: { ...process.env, CI: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const done = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? -1));
  });
  return { child, stdout: () => out, stderr: () => err, done };
}

export async function runLoadCommand(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = startLoad(args, env);
  const code = await run.done;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

// biome-ignore lint/suspicious/noExplicitAny: results.json as the load tool wrote it; the tests read it field by field
export async function readReports(dir: string): Promise<{ results: any; md: string; html: string; texts: string[] }> {
  const [json, md, html] = await Promise.all(['results.json', 'report.md', 'report.html'].map((f) => readFile(join(dir, f), 'utf8')));
  return { results: JSON.parse(json!), md: md!, html: html!, texts: [json!, md!, html!] };
}
