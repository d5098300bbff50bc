import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConformanceFixtures } from '../src/contract/fixtures.js';
import { ROOT } from './helpers/server.js';
import { runNode } from '@agent-tts/bench/harness/node-process.js';

/**
 * Every command names its flags alike (README, "Flag names"): `--out <file>` for the one file it
 * writes, `--out-dir <dir>` for a directory of reports, `--fixtures <file>` for a fixtures file it
 * reads. The names used before still work, each with one line on stderr saying what it is now.
 */
/** Where each command's bin lives: in the folder of the package that ships it. */
const BIN_DIRS: Record<string, string> = {
  'agent-tts': 'src/client',
  'agent-tts-admin': 'src/server',
  'agent-tts-conformance': 'conformance',
  'agent-tts-load': 'src/load',
  'agent-tts-sandbox': 'src/sandbox',
};
const bin = (name: string) => join(ROOT, BIN_DIRS[name] ?? `no folder for ${name}`, 'bin', `${name}.js`);
const NOTICE = (old: string, now: string) => `${old} is now ${now}; the old name still works for now.`;

describe('flag names across the commands', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-flags-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('every --help names the new flags', async () => {
    const help = async (script: string, args: string[]) => {
      const run = await runNode(script, args, {});
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe('');
      return run.stdout;
    };
    expect(await help(bin('agent-tts-conformance'), ['--help'])).toMatch(/--out-dir <value>\s+\[TTS_CONFORMANCE_OUT_DIR\]/);
    expect(await help(bin('agent-tts-load'), ['--help'])).toMatch(/^ {2}--out-dir DIR /m);
    expect(await help(bin('agent-tts-sandbox'), ['--help'])).toMatch(/^ {2}--out <file> /m);
    expect(await help(bin('agent-tts-admin'), ['--help'])).toContain('seed [--out .agent-tts/fixtures.server.json]');
    expect(await help(bin('agent-tts'), ['speak', '--help'])).toMatch(/^ {2}-o, --out <file> /m);
    expect(await help(bin('agent-tts'), ['status', '--help'])).toMatch(/^ {2}-o, --out <file> /m);
    expect(await help(join(ROOT, 'bench/dist/run.js'), ['--help'])).toMatch(/^ {2}--out-dir /m);
  });

  it('former names are still read, each with a one-line notice on stderr', async () => {
    const conformance = await runNode(bin('agent-tts-conformance'), ['--output-dir', join(dir, 'c'), '--help'], {});
    expect(conformance.code).toBe(0);
    expect(conformance.stderr).toBe(`agent-tts-conformance: ${NOTICE('--output-dir', '--out-dir')}\n`);
    const variable = await runNode(bin('agent-tts-conformance'), ['--help'], { TTS_CONFORMANCE_OUTPUT_DIR: join(dir, 'c') });
    expect(variable.stderr).toBe(`agent-tts-conformance: ${NOTICE('TTS_CONFORMANCE_OUTPUT_DIR', 'TTS_CONFORMANCE_OUT_DIR')}\n`);
    const load = await runNode(bin('agent-tts-load'), ['--out', join(dir, 'l'), '--help'], {});
    expect(load.code).toBe(0);
    expect(load.stderr).toBe(`agent-tts-load: ${NOTICE('--out', '--out-dir')}\n`);
    const bench = await runNode(join(ROOT, 'bench/dist/run.js'), ['--results-dir', join(dir, 'b'), '--help'], {});
    expect(bench.code).toBe(0);
    expect(bench.stderr).toBe(`bench: ${NOTICE('--results-dir', '--out-dir')}\n`);
  });

  it('the sandbox writes its fixtures to --out (or the former --fixtures), making the directory, for its owner only', async () => {
    for (const [flag, stderr] of [
      ['--out', ''],
      ['--fixtures', `agent-tts-sandbox: ${NOTICE('--fixtures', '--out')}\n`],
    ] as const) {
      const out = join(dir, flag.slice(2), '.agent-tts', 'fixtures.sandbox.json');
      const child = spawn(process.execPath, [bin('agent-tts-sandbox'), '--port', '0', flag, out], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdoutText = '';
      let stderrText = '';
      child.stderr.on('data', (d) => (stderrText += d));
      const started = await new Promise<boolean>((resolve) => {
        child.stdout.on('data', (d) => {
          stdoutText += d;
          if (/Started in \d+ ms/.test(stdoutText)) resolve(true);
        });
        child.once('close', () => resolve(false));
      });
      const closed = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      await closed;
      expect(started, stderrText).toBe(true);
      expect(stdoutText).toContain(`Conformance fixtures written to ${out}`);
      expect(stderrText).toBe(stderr);
      expect(ConformanceFixtures.parse(JSON.parse(await readFile(out, 'utf8'))).clock?.url).toMatch(/\/sandbox\/clock$/);
      expect((await stat(out)).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, flag.slice(2), '.agent-tts'))).mode & 0o777).toBe(0o700);
    }
  }, 60_000);
});
