import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';

const KEY = 'tts_5eed1234_00112233445566778899aabbccddeeff00112233445566ff';
const SECRET = KEY.slice('tts_5eed1234_'.length);

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe('agent-tts config', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-tts-config-'));
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });
  const envFor = (name: string) => ({ XDG_CONFIG_HOME: join(root, name), HOME: join(root, `${name}-home`) });

  it('set-key reads the key from stdin and writes a 0600 file in a 0700 directory', async () => {
    const env = envFor('fresh');
    const result = await runCli(['config', 'set-key'], env, `${KEY}\n`, { umask: '000' });
    expect(result.code).toBe(0);
    const dir = join(env.XDG_CONFIG_HOME, 'agent-tts');
    const file = join(dir, 'config.json');
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(file)).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ api_key: KEY });
    expect(result.stdout).toContain('tts_5eed1234');
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    // Nothing else is left in the directory (the temporary file was renamed into place).
    expect(await readdir(dir)).toEqual(['config.json']);
  });

  it('keeps 0600 under a permissive umask and tightens an existing loose directory', async () => {
    const env = envFor('loose');
    const dir = join(env.XDG_CONFIG_HOME, 'agent-tts');
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'config.json'), JSON.stringify({ base_url: 'http://example.test:9' }), { mode: 0o644 });
    const result = await runCli(['config', 'set-key'], env, KEY, { umask: '000' });
    expect(result.code).toBe(0);
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(join(dir, 'config.json'))).toBe(0o600);
    // Other settings survive.
    expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'))).toEqual({ base_url: 'http://example.test:9', api_key: KEY });
  });

  it('uses ~/.config/agent-tts when XDG_CONFIG_HOME is unset', async () => {
    const home = join(root, 'home-only');
    const result = await runCli(['config', 'path'], { HOME: home });
    expect(result.stdout.trim()).toBe(join(home, '.config', 'agent-tts', 'config.json'));
  });

  it('show prints the settings with the key redacted, and where each comes from', async () => {
    const env = envFor('show');
    expect((await runCli(['config', 'set-key'], env, KEY)).code).toBe(0);
    const human = await runCli(['config', 'show'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/api_key:\s+tts_5eed1234\s+\(config file\)/);
    expect(human.stdout).toMatch(/base_url:\s+http:\/\/127\.0\.0\.1:8080\s+\(default\)/);
    expect(human.stdout).toContain('mode 0600');
    const json = await runCli(['config', 'show', '--json'], { ...env, AGENT_TTS_BASE_URL: 'https://tts.example.test' });
    const parsed = JSON.parse(json.stdout) as { effective: { api_key: { value: string; source: string }; base_url: { value: string; source: string } } };
    expect(parsed.effective.api_key).toEqual({ value: 'tts_5eed1234', source: 'config' });
    expect(parsed.effective.base_url).toEqual({ value: 'https://tts.example.test', source: 'env' });
    for (const out of [human, json]) expect(out.stdout + out.stderr).not.toContain(SECRET);
  });

  it('refuses a key given as an argument, without echoing it', async () => {
    const env = envFor('argument');
    const result = await runCli(['config', 'set-key', KEY], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('takes no argument');
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    await expect(stat(join(env.XDG_CONFIG_HOME, 'agent-tts', 'config.json'))).rejects.toThrow();
  });

  it('refuses something that is not a key, without echoing it', async () => {
    const result = await runCli(['config', 'set-key'], envFor('bad'), 'hunter2-not-a-key\n');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not an API key');
    expect(result.stderr).not.toContain('hunter2');
  });

  it('sets and unsets base_url; rejects a value that is not a URL', async () => {
    const env = envFor('urls');
    expect((await runCli(['config', 'set', 'base_url', 'https://tts.example.test/'], env)).code).toBe(0);
    const file = join(env.XDG_CONFIG_HOME, 'agent-tts', 'config.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ base_url: 'https://tts.example.test' });
    expect(await mode(file)).toBe(0o600);
    const bad = await runCli(['config', 'set', 'base_url', 'not a url'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a URL');
    expect((await runCli(['config', 'unset', 'base-url'], env)).code).toBe(0);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({});
  });

  it('reports a broken config file clearly (exit 2, no stack trace)', async () => {
    const env = envFor('broken');
    await mkdir(join(env.XDG_CONFIG_HOME, 'agent-tts'), { recursive: true });
    await writeFile(join(env.XDG_CONFIG_HOME, 'agent-tts', 'config.json'), '{ not json');
    const result = await runCli(['config', 'show'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not valid JSON');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('warns when the config file holding a key is readable by others', async () => {
    const env = envFor('readable');
    await runCli(['config', 'set-key'], env, KEY);
    await chmod(join(env.XDG_CONFIG_HOME, 'agent-tts', 'config.json'), 0o644);
    const result = await runCli(['config', 'show'], env);
    expect(result.stderr).toContain('readable by other users');
  });

  it('unknown subcommands and commands are usage errors with a pointer to --help', async () => {
    const sub = await runCli(['config', 'frobnicate'], envFor('x'));
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('agent-tts config --help');
    const cmd = await runCli(['frobnicate'], envFor('x'));
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain('Unknown command');
    const json = await runCli(['frobnicate', '--json'], envFor('x'));
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, exit_code: 2, error: { code: 'USAGE' } });
  });
});
