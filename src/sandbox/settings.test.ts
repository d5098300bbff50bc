import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../server/config/error.js';
import { CONFIG_VARIABLES } from '../server/config/settings.js';
import { type RunningSandbox, startSandbox } from './index.js';
import { SANDBOX_SETTINGS, checkSettingNames, settingsFromEnvironment, unclassifiedSettings } from './settings.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON read off the wire is walked field by field, and every check tests the value it reads
type Json = Record<string, any>;

describe('sandbox settings', () => {
  let running: RunningSandbox | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('classifies every setting of the server: read by the sandbox, or refused with a reason', () => {
    expect(CONFIG_VARIABLES.length).toBeGreaterThan(40);
    expect(unclassifiedSettings()).toEqual([]);
    for (const { name } of SANDBOX_SETTINGS) expect(CONFIG_VARIABLES).toContain(name);
  });

  it('refuses, saying why, a setting that does not apply and a name that is no setting', async () => {
    expect(() => checkSettingNames({ RATE_POST_LIMIT: '5', REDIS_URL: 'redis://127.0.0.1', RATE_POST_LIMT: '5' })).toThrow(ConfigError);
    const refused = startSandbox({ env: { REDIS_URL: 'redis://127.0.0.1', DATA_DIR: '/tmp/x', RATE_POST_LIMT: '5' } });
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(
      /^Settings the sandbox does not read:\n {2}REDIS_URL: does not apply to the sandbox \(the distributed mode’s; .*\)\n {2}DATA_DIR: does not apply to the sandbox \(its state is in memory.*\)\n {2}RATE_POST_LIMT: not a setting of the sandbox \(nor of the reference server\)\nIt reads: HOST, PORT, VOICES_PORT, PUBLIC_BASE_URL, .*RATE_POST_LIMIT/,
    );
  });

  it('refuses a bad value with the server’s message (what is wrong and what is allowed)', async () => {
    await expect(startSandbox({ env: { RATE_POST_LIMIT: '0' } })).rejects.toThrow(
      'Invalid configuration:\n  RATE_POST_LIMIT: must be a whole number from 1 to 1000000000 (requests a window); it is below 1',
    );
    await expect(startSandbox({ env: { PORT: '99999' } })).rejects.toThrow('PORT: expected a port 0-65535, got "99999"');
    await expect(startSandbox({ publicBaseUrl: 'ftp://proxy.test' })).rejects.toThrow(
      'PUBLIC_BASE_URL: expected an http(s) URL such as https://tts.example.com',
    );
  });

  it('reads the settings of a process environment and sets aside, with a warning, those that do not apply', () => {
    const { settings, warnings } = settingsFromEnvironment({ PATH: '/bin', RATE_GET_LIMIT: '7', PUBLIC_BASE_URL: 'http://proxy.test', AUDIO_STORE: 's3://b' });
    expect(settings).toEqual({ RATE_GET_LIMIT: '7', PUBLIC_BASE_URL: 'http://proxy.test' });
    expect(warnings).toEqual([
      'AUDIO_STORE is set in the environment but does not apply to the sandbox (the object store’s; the sandbox keeps audio in a temporary directory): ignored.',
    ]);
  });

  it('publicBaseUrl: audio URLs, baseUrl and the fixtures point at the origin clients reach, which may write to /sandbox/*', async () => {
    running = await startSandbox({ publicBaseUrl: 'http://proxy.test:9000/tts/', env: { RATE_POST_LIMIT: '2', PLAN_MINUTES_FREE: '5' } });
    const own = running.listening.urls[0]!;
    expect(running.baseUrl).toBe('http://proxy.test:9000/tts');
    expect(own).toBe(`http://127.0.0.1:${running.listening.port}`);
    const post = () =>
      fetch(`${own}/v1/agent-tts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${running!.keys.active_free}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'Hi.' }),
      });
    const first = (await (await post()).json()) as Json;
    expect(first.audio_url).toMatch(/^http:\/\/proxy\.test:9000\/tts\/v1\/audio\/[0-9a-f-]+\.mp3\?expires=/);
    // The limits given: two POSTs a minute, five minutes a month on the free plan.
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(429);
    expect(first.billing.monthly_minutes_limit).toBe(5);
    const fixtures = await running.fixtures();
    expect(fixtures.base_url).toBe('http://proxy.test:9000/tts');
    expect(fixtures.clock?.url).toBe('http://proxy.test:9000/tts/sandbox/clock');
    // A page on the origin clients reach may drive the clock; another may not.
    const move = (origin: string) =>
      fetch(`${own}/sandbox/clock`, { method: 'POST', headers: { Origin: origin, 'Content-Type': 'application/json' }, body: '{"advance_seconds": 1}' });
    expect((await move('http://proxy.test:9000')).status).toBe(200);
    expect((await move(own)).status).toBe(200);
    expect((await move('http://elsewhere.test')).status).toBe(403);
  });

  it('env HOST and PORT stand for the options, which win', async () => {
    running = await startSandbox({ env: { HOST: 'localhost', RATE_GET_LIMIT: '3' } });
    expect(running.baseUrl).toMatch(/^http:\/\/localhost:\d+$/);
    await running.stop();
    running = await startSandbox({ host: '127.0.0.1', env: { HOST: 'localhost' } });
    expect(running.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect(startSandbox({ env: { HOST: '0.0.0.0' } })).rejects.toThrow(/host "0\.0\.0\.0" is not a loopback address/);
  });
});
