import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { type Server, type Socket, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformanceCli } from '../conformance/testing/run-cli.js';
import { removeDir } from './helpers/server.js';

/** The command line itself, through the package bin: help, the catalog, and unusable settings. */
const bin = (args: string[], env: Record<string, string> = {}) => runConformanceCli(args, env, 'bin/agent-tts-conformance.js');
const KEY = `tts_0123abcd_${'a'.repeat(48)}`;

/** Listens on a free loopback port; resolves to the server's origin. */
function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`));
  });
}

describe('agent-tts-conformance command line', () => {
  it('prints its settings, each with its environment variable', async () => {
    const run = await bin(['--help']);
    expect(run.code).toBe(0);
    for (const text of [
      '--fixtures',
      'TTS_CONFORMANCE_FIXTURES',
      'TTS_CONFORMANCE_BASE_URL',
      '--out-dir',
      'TTS_CONFORMANCE_OUT_DIR',
      'TTS_CONFORMANCE_PROFILE',
      '--only',
      '--skip',
    ]) {
      expect(run.stdout).toContain(text);
    }
  });

  it('lists the rule catalog', async () => {
    const run = await bin(['--list']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^auth\.missing-header\s+full,mock\s+document\s+§5.*\n {4}decision: docs\/api-rules\.md#authentication\n/m);
    expect(run.stdout).toMatch(/^auth\.unknown-key\s+full\s+api\s+§5\.2, §5\.3\n/m);
    expect(run.stdout).toMatch(/^timings\.file-consistent\s+full\s+extension\s+.*\n {4}extension: docs\/api-rules\.md#word-timings-and-captions\n/m);
    expect(run.stdout).toMatch(/\n(\d+) rules: \d+ api, \d+ document \(binding at --level document, advisory at --level api\), \d+ extension\n$/);
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

  it('exits 2 with one line naming the option when a base or voices URL is malformed, running no rule', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conformance-cli-'));
    try {
      const path = join(dir, 'fixtures.json');
      await writeFile(path, JSON.stringify({ base_url: 'http://127.0.0.1:9', keys: { active: [KEY] } }));
      const cases: { args: string[]; env?: Record<string, string>; message: string }[] = [
        {
          args: ['--fixtures', path, '--base-url', 'notaurl'],
          message: '--base-url (TTS_CONFORMANCE_BASE_URL) must be an absolute http:// or https:// URL, got "notaurl"',
        },
        {
          args: ['--profile', 'mock'],
          env: { TTS_CONFORMANCE_BASE_URL: 'mailto:ops@example.com' },
          message: '--base-url (TTS_CONFORMANCE_BASE_URL) must be an absolute',
        },
        {
          args: ['--fixtures', path],
          env: { TTS_CONFORMANCE_VOICES_URL: 'voices.example.com' },
          message: '--voices-url (TTS_CONFORMANCE_VOICES_URL) must be an absolute',
        },
      ];
      for (const { args, env, message } of cases) {
        const run = await bin(args, env);
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toContain(message);
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
        expect(run.stderr).not.toContain('Invalid URL');
        expect(run.stdout).toBe('');
        expect(run.results).toBeUndefined();
      }
      // The fixtures schema accepts any URL scheme; the suite speaks only HTTP.
      await writeFile(path, JSON.stringify({ base_url: 'ftp://tts.example.com', keys: { active: [KEY] } }));
      const ftp = await bin(['--fixtures', path]);
      expect(ftp.code).toBe(2);
      expect(ftp.stderr).toContain(`base_url of the fixtures file ${path} must be an absolute http:// or https:// URL, got "ftp://tts.example.com"`);
      expect(ftp.results).toBeUndefined();
    } finally {
      await removeDir(dir);
    }
  });

  it('exits 2 with one line, running no rule, when nothing answers at the base URL (connection refused)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conformance-cli-'));
    try {
      const path = join(dir, 'fixtures.json');
      // Port 9 (discard) on loopback: nothing listens, every connection is refused.
      await writeFile(path, JSON.stringify({ base_url: 'http://127.0.0.1:9', voices_url: 'http://127.0.0.1:9', keys: { active: [KEY] } }));
      const run = await bin(['--fixtures', path]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^agent-tts-conformance: cannot reach http:\/\/127\.0\.0\.1:9\/v1\/agent-tts: connect ECONNREFUSED 127\.0\.0\.1:9$/m);
      // One line per URL probed: the API path and the voice catalog.
      expect(run.stderr.trim().split('\n')).toHaveLength(2);
      expect(run.stdout).toBe('');
      expect(run.results).toBeUndefined();
      expect(run.stderr).not.toContain(KEY);
    } finally {
      await removeDir(dir);
    }
  });

  it('exits 2 when the base URL accepts connections but never answers within the request timeout', async () => {
    const sockets = new Set<Socket>();
    const silent = createNetServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    const url = await listen(silent);
    try {
      const run = await bin(['--profile', 'mock', '--base-url', url, '--request-timeout-ms', '300']);
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toBe(`agent-tts-conformance: cannot reach ${url}/v1/agent-tts: no answer within 300 ms`);
      expect(run.results).toBeUndefined();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('counts any HTTP answer as reachable, but stops when the voices URL does not answer', async () => {
    const probes: string[] = [];
    const answering = createHttpServer((req, res) => {
      probes.push(`${req.method} ${req.url} ${req.headers.authorization ?? 'no key'}`);
      res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
    });
    const url = await listen(answering);
    try {
      const run = await bin(['--profile', 'mock', '--base-url', url, '--voices-url', 'http://127.0.0.1:9']);
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toMatch(/^agent-tts-conformance: cannot reach http:\/\/127\.0\.0\.1:9\/api\/v1\/voices: connect ECONNREFUSED/);
      expect(run.stderr).not.toContain(url);
      expect(probes).toEqual(['GET /v1/agent-tts no key']);
      expect(run.results).toBeUndefined();
    } finally {
      await new Promise((resolve) => answering.close(resolve));
    }
  });

  it('exits 2 listing the --only and --skip patterns that match no rule, pointing to --list', async () => {
    const typo = await bin(['--profile', 'mock', '--base-url', 'http://127.0.0.1:9', '--only', 'nonexist.rule']);
    expect(typo.code).toBe(2);
    expect(typo.stderr.trim()).toBe(
      'agent-tts-conformance: --only: no rule matches "nonexist.rule" (a pattern is a rule id or a glob such as auth.*; agent-tts-conformance --list prints the rule ids)',
    );
    expect(typo.results).toBeUndefined();
    // Known patterns alongside do not hide the unknown ones; a group needs its glob.
    const mixed = await bin(['--profile', 'mock', '--base-url', 'http://127.0.0.1:9', '--only', 'auth.*,auth,job.nope'], {
      TTS_CONFORMANCE_SKIP: 'rate-limit.post,*.no-such-rule',
    });
    expect(mixed.code).toBe(2);
    const lines = mixed.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('--only: no rule matches "auth", "job.nope" (');
    expect(lines[1]).toContain('--skip: no rule matches "*.no-such-rule" (');
    expect(mixed.results).toBeUndefined();
  });

  it('disables what --only leaves out', async () => {
    const answering = createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('nothing here'));
    const url = await listen(answering);
    try {
      const run = await bin(['--profile', 'mock', '--base-url', url, '--only', 'auth.*,legacy.file-expired', '--skip', 'auth.no-api-access']);
      expect(run.code).toBe(1);
      expect(run.outcomes['auth.missing-header']).toBe('fail');
      expect(run.outcomes['legacy.file-expired']).not.toBe('disabled');
      expect(run.outcomes['auth.no-api-access']).toBe('disabled');
      expect(run.outcomes['rate-limit.post']).toBe('disabled');
      expect(run.results.rules.find((r: { id: string }) => r.id === 'rate-limit.post').message).toMatch(/not selected by --only/);
      await removeDir(run.outputDir);
    } finally {
      await new Promise((resolve) => answering.close(resolve));
    }
  });

  it('reports a document rule that fails as advisory at --level api (exit 0), and fails the run with it at --level document', async () => {
    const answering = createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('nothing here'));
    const url = await listen(answering);
    try {
      const args = ['--profile', 'mock', '--base-url', url, '--only', 'auth.missing-header'];
      const api = await bin(args);
      expect(api.outcomes['auth.missing-header']).toBe('fail');
      const rule = api.results.rules.find((r: { id: string }) => r.id === 'auth.missing-header');
      expect(rule).toMatchObject({ basis: 'document', decision: 'docs/api-rules.md#authentication', binding: false });
      expect(api.results.level).toBe('api');
      expect(api.code).toBe(0);
      expect(api.stdout).toMatch(/FAIL {2}auth\.missing-header \[document docs\/api-rules\.md#authentication advisory\]/);
      expect(api.stdout).toContain("level api: the 1 rule(s) run of this project's own decisions (basis document) are advisory: 1 of them did not pass");
      const junit = await readFile(join(api.outputDir, 'junit.xml'), 'utf8');
      expect(junit).toContain('<property name="basis" value="document"/>');
      expect(junit).toMatch(/<testsuites [^>]*failures="0"/);
      expect(junit).toContain('<skipped message="advisory at --level api, did not pass: ');
      expect(await readFile(join(api.outputDir, 'report.html'), 'utf8')).toContain('document docs/api-rules.md#authentication · advisory at level api');
      // --strict fails on the binding rules --only disabled, not on the advisory one.
      const strict = await bin([...args, '--strict']);
      expect(strict.code).toBe(1);
      const strictLine = strict.stdout.split('\n').find((line) => line.startsWith('--strict: '));
      expect(strictLine).toContain('auth.unknown-key (disabled');
      expect(strictLine).not.toContain('openapi.examples (disabled');
      const document = await bin([...args, '--level', 'document']);
      expect(document.results.rules.find((r: { id: string }) => r.id === 'auth.missing-header').binding).toBe(true);
      expect(document.code).toBe(1);
      for (const run of [api, strict, document]) await removeDir(run.outputDir);
    } finally {
      await new Promise((resolve) => answering.close(resolve));
    }
  });
});
