import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../package-files.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  outputDir: string;
  /** results.json, when the run got that far. */
  // biome-ignore lint/suspicious/noExplicitAny: results.json as the CLI wrote it; the tests read it field by field
  results?: any;
  outcomes: Record<string, string>;
  ms: number;
}

/** Runs the built suite (`dist/conformance/cli.js` of the conformance package; `script` is relative to that package) as a user would, and reads its result file. */
export async function runConformanceCli(args: string[], env: Record<string, string> = {}, script = 'dist/conformance/cli.js'): Promise<CliRun> {
  const outputDir = env.TTS_CONFORMANCE_OUT_DIR ?? (await mkdtemp(join(tmpdir(), 'agent-tts-conformance-')));
  const started = Date.now();
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [join(packageRoot(), script), ...args], {
      env: { ...process.env, TTS_CONFORMANCE_OUT_DIR: outputDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (c) => resolve({ code: c ?? -1, stdout: out, stderr: err }));
  });
  let results;
  try {
    results = JSON.parse(await readFile(join(outputDir, 'results.json'), 'utf8'));
  } catch {
    results = undefined;
    // A run that stopped before writing anything (--help, unusable settings) leaves no directory behind.
    if (!env.TTS_CONFORMANCE_OUT_DIR) await rm(outputDir, { recursive: true, force: true });
  }
  const outcomes: Record<string, string> = Object.fromEntries((results?.rules ?? []).map((r: { id: string; outcome: string }) => [r.id, r.outcome]));
  return { code, stdout, stderr, outputDir, results, outcomes, ms: Date.now() - started };
}
