import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

const BIN = join(ROOT, 'mock/bin/agent-tts-mock.js');

/** Runs the agent-tts-mock bin; the cases here all end before Prism would be started. */
function runMock(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AGENT_TTS_MOCK_'))) as Record<string, string>;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    // A launcher that did start Prism is stopped rather than left running.
    const timer = setTimeout(() => child.kill('SIGTERM'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** One line on stderr, nothing on stdout: no usage text, no Prism output, no stack trace. */
function expectOneLine(result: { stdout: string; stderr: string }, line: string | RegExp): void {
  expect(result.stdout).toBe('');
  expect(result.stderr.endsWith('\n')).toBe(true);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr.trimEnd()).toMatch(typeof line === 'string' ? new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) : line);
}

describe('agent-tts-mock: flags and start-up failures', () => {
  it('refuses --port out of range in one line with exit code 2, before Prism starts', async () => {
    const result = await runMock(['--port', '99999']);
    expect(result.code).toBe(2);
    expectOneLine(result, 'agent-tts-mock: --port must be an integer from 0 to 65535, got "99999"');
  });

  it.each([
    [['--port', 'abc'], 'agent-tts-mock: --port must be an integer from 0 to 65535, got "abc"'],
    [['--port', '1e3'], 'agent-tts-mock: --port must be an integer from 0 to 65535, got "1e3"'],
    [['--port='], 'agent-tts-mock: --port must be an integer from 0 to 65535, got ""'],
    [['--port'], 'agent-tts-mock: --port needs a value'],
    [['--port', '--host', '127.0.0.1'], 'agent-tts-mock: --port needs a value'],
    [['--host'], 'agent-tts-mock: --host needs a value'],
    [['--host', ''], 'agent-tts-mock: --host must be a host name or an IP address, got ""'],
    [['--host', 'local host'], 'agent-tts-mock: --host must be a host name or an IP address, got "local host"'],
    // TEST-NET-1 (RFC 5737): never an address of this machine.
    [['--host', '192.0.2.1', '--port', '0'], 'agent-tts-mock: --host 192.0.2.1 is not an address of this machine'],
    [['--bogus'], "agent-tts-mock: unknown option '--bogus'"],
    [['-x'], "agent-tts-mock: unknown option '-x'"],
    [['--dynamic=yes'], "agent-tts-mock: Option '--dynamic' does not take an argument"],
    [['--port', '4010', 'extra'], "agent-tts-mock: unexpected argument 'extra'"],
    [['--prism-port', '-1'], 'agent-tts-mock: --prism-port needs a value'],
    [['--prism-port', '65536'], 'agent-tts-mock: --prism-port must be an integer from 0 to 65535, got "65536"'],
    [['--port', '4011', '--prism-port', '4011'], 'agent-tts-mock: --prism-port must differ from --port (both 4011): Prism listens behind the mock'],
  ])('refuses %j in one line with exit code 2', async (args, line) => {
    const result = await runMock(args);
    expect(result.code).toBe(2);
    expectOneLine(result, line);
  });

  it('names AGENT_TTS_MOCK_PORT when the bad port comes from the environment', async () => {
    const result = await runMock([], { AGENT_TTS_MOCK_PORT: '70000' });
    expect(result.code).toBe(2);
    expectOneLine(result, 'agent-tts-mock: AGENT_TTS_MOCK_PORT must be an integer from 0 to 65535, got "70000"');
  });

  it.each([['--help'], ['-h']])('%s prints the usage on stdout and exits 0', async (flag) => {
    const result = await runMock([flag]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Usage: agent-tts-mock \[--port 4010\]/);
    expect(result.stdout).toContain('--host <addr>');
    expect(result.stdout).toContain('Exit codes:');
  });

  describe('a port already in use', () => {
    let holder: Server;
    let port: number;
    beforeAll(async () => {
      holder = createServer();
      await new Promise<void>((resolve, reject) => {
        holder.once('error', reject);
        holder.listen(0, '127.0.0.1', () => resolve());
      });
      port = (holder.address() as { port: number }).port;
    });
    afterAll(async () => {
      await new Promise((resolve) => holder?.close(resolve));
    });

    it('is reported in one line with exit code 1, without Prism usage text', async () => {
      const result = await runMock(['--port', String(port), '--host', '127.0.0.1']);
      expect(result.code).toBe(1);
      expectOneLine(result, /^agent-tts-mock: port \d+ is in use; choose another with --port$/);
      expect(result.stderr).toBe(`agent-tts-mock: port ${port} is in use; choose another with --port\n`);
    });

    it('as Prism’s port (--prism-port, AGENT_TTS_MOCK_PRISM_PORT) is reported in one line naming the setting, exit code 1', async () => {
      const flag = await runMock(['--port', '0', '--prism-port', String(port)]);
      expect(flag.code).toBe(1);
      expect(flag.stderr).toBe(`agent-tts-mock: --prism-port ${port} is in use on 127.0.0.1; choose another, or 0 for any free port\n`);
      const env = await runMock(['--port', '0'], { AGENT_TTS_MOCK_PRISM_PORT: String(port) });
      expect(env.code).toBe(1);
      expect(env.stderr).toBe(`agent-tts-mock: AGENT_TTS_MOCK_PRISM_PORT ${port} is in use on 127.0.0.1; choose another, or 0 for any free port\n`);
    });
  });

  it('stops cleanly (exit 0) on SIGTERM once Prism is serving', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AGENT_TTS_MOCK_'))) as Record<string, string>;
    const child = spawn(process.execPath, [BIN, '--port', String(port)], { env: base, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    let up = false;
    while (!up && Date.now() < deadline) {
      up = await fetch(`http://127.0.0.1:${port}/api/v1/voices`).then(
        () => true,
        () => false,
      );
      if (!up) await new Promise((r) => setTimeout(r, 250));
    }
    expect(up).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 90_000);
});
