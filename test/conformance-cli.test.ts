import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformanceCli } from '../conformance/testing/run-cli.js';
import { removeDir } from './helpers/server.js';

/** The command line itself, through the package bin: help, the catalog, and unusable settings. */
const bin = (args: string[], env: Record<string, string> = {}) => runConformanceCli(args, env, 'bin/agent-tts-conformance.js');

describe('agent-tts-conformance command line', () => {
  it('prints its settings, each with its environment variable', async () => {
    const run = await bin(['--help']);
    expect(run.code).toBe(0);
    for (const text of ['--fixtures', 'TTS_CONFORMANCE_FIXTURES', 'TTS_CONFORMANCE_BASE_URL', 'TTS_CONFORMANCE_OUTPUT_DIR', 'TTS_CONFORMANCE_PROFILE', '--only', '--skip']) {
      expect(run.stdout).toContain(text);
    }
  });

  it('lists the rule catalog', async () => {
    const run = await bin(['--list']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^auth\.missing-header\s+full,mock\s+§5/m);
    expect(run.stdout).toMatch(/\n(\d+) rules\n$/);
  });

  it('exits 2 with a plain message when no fixtures file is given', async () => {
    const run = await bin([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no fixtures file: pass --fixtures <path> or set TTS_CONFORMANCE_FIXTURES');
    expect(run.results).toBeUndefined();
  });

  it('exits 2 naming the file when it cannot be read (path from the environment)', async () => {
    const run = await bin([], { TTS_CONFORMANCE_FIXTURES: '/nonexistent/fixtures.json' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('cannot read the fixtures file /nonexistent/fixtures.json: ENOENT');
  });

  it('prints the schema errors of an invalid fixtures file, field by field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conformance-cli-'));
    try {
      const path = join(dir, 'fixtures.json');
      await writeFile(path, JSON.stringify({ base_url: 'not a url', keys: { active: ['tts_1234abcd_short'], revoked: 42 } }));
      const run = await bin(['--fixtures', path]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('does not match the fixtures schema');
      expect(run.stderr).toMatch(/→ at base_url/);
      expect(run.stderr).toMatch(/→ at keys\.active\[0\]/);
      expect(run.stderr).toMatch(/→ at keys\.revoked/);
      await writeFile(path, '{"base_url": ');
      const broken = await bin(['--fixtures', path]);
      expect(broken.code).toBe(2);
      expect(broken.stderr).toContain('is not valid JSON');
    } finally {
      await removeDir(dir);
    }
  });

  it('refuses unknown flags and bad values with exit code 2', async () => {
    expect((await bin(['--no-such-flag'])).code).toBe(2);
    const badProfile = await bin(['--profile', 'partial']);
    expect(badProfile.code).toBe(2);
    expect(badProfile.stderr).toContain('--profile must be one of full, mock');
    const badNumber = await bin([], { TTS_CONFORMANCE_CONCURRENCY: 'many' });
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toContain('--concurrency must be a whole number');
  });

  it('reports an unreachable deployment as errors (or skips), never as failures, and exits 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conformance-cli-'));
    try {
      const path = join(dir, 'fixtures.json');
      const key = `tts_0123abcd_${'a'.repeat(48)}`;
      // Port 9 (discard) on loopback: nothing listens, every connection is refused.
      await writeFile(path, JSON.stringify({ base_url: 'http://127.0.0.1:9', voices_url: 'http://127.0.0.1:9', keys: { active: [key] } }));
      const run = await bin(['--fixtures', path]);
      expect(run.code).toBe(1);
      const outcomes = Object.entries(run.outcomes);
      expect(outcomes.filter(([, o]) => o === 'fail')).toEqual([]);
      // Only the rule about the document itself needs no server.
      expect(outcomes.filter(([, o]) => o === 'pass').map(([id]) => id)).toEqual(['openapi.examples']);
      expect(run.outcomes['auth.missing-header']).toBe('error');
      expect(run.outcomes['auth.revoked-key']).toBe('skip');
      expect(run.stdout).not.toContain(key);
      await removeDir(run.outputDir);
    } finally {
      await removeDir(dir);
    }
  });

  it('disables what --only leaves out', async () => {
    const run = await bin(['--profile', 'mock', '--base-url', 'http://127.0.0.1:9', '--only', 'auth.*,legacy.file-expired', '--skip', 'auth.no-api-access']);
    expect(run.outcomes['auth.missing-header']).toBe('error');
    expect(run.outcomes['auth.no-api-access']).toBe('disabled');
    expect(run.outcomes['rate-limit.post']).toBe('disabled');
    expect(run.results.rules.find((r: { id: string }) => r.id === 'rate-limit.post').message).toMatch(/not selected by --only/);
    await removeDir(run.outputDir);
  });
});
