import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAD_SETTINGS, repeatsValue } from '../../test/helpers/bad-settings.js';
import { loadConfig } from './config.js';
import { ConfigError } from './config/error.js';
import { CONFIG_VARIABLES } from './config/settings.js';
import { DISTRIBUTED_VARIABLES } from './config/distributed.js';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'agent-tts-config-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The ConfigError a configuration is refused with (the test fails if it is accepted). */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig({ DATA_DIR: join(scratch, 'data'), ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(Object.keys(env))}`);
}

const accepts = (env: Record<string, string>) => loadConfig({ DATA_DIR: join(scratch, 'data'), ...env });

describe('URL settings: every invalid one is refused naming the variable, and never shown with its credentials', () => {
  it('REDIS_URL: only what node-redis can connect with', () => {
    for (const value of ['http://user:hunter2@x', 'https://:hunter2@cache:6379', 'ftp://user:hunter2@cache']) {
      const message = refusal({ REDIS_URL: value });
      expect(message, value).toContain(
        'REDIS_URL: expected redis://host[:port][/db], rediss://host[:port][/db] (TLS) or unix:///path/to/socket[?db=N], with user:password@ after the // if Redis wants them',
      );
      expect(message, value).toContain('the scheme is not redis: or rediss:');
      expect(message, value).not.toContain('hunter2');
    }
    expect(refusal({ REDIS_URL: 'redis://:hunter2@cache/zero' })).toMatch(/REDIS_URL: the path must be a database number/);
    expect(refusal({ REDIS_URL: 'cache:6379' })).toMatch(/REDIS_URL: .*the scheme is not/);
    expect(refusal({ REDIS_URL: 'redis://user:hunter2@[::1' })).toMatch(/REDIS_URL: .*not a URL/);
    expect(refusal({ REDIS_URL: 'unix://user:hunter2@/' })).toMatch(/REDIS_URL: .*no socket path/);
    expect(refusal({ REDIS_URL: 'unix:///run/redis.sock?db=two' })).toMatch(/REDIS_URL: the db query parameter/);
    for (const value of [
      'redis://127.0.0.1:6379',
      'redis://user:pw@cache:6380/2',
      'rediss://:pw@cache.example.com/',
      'unix:///run/redis.sock?db=3',
      'unix://u:pw@/run/redis.sock',
    ]) {
      expect(accepts({ REDIS_URL: value }).redisUrl, value).toBe(value);
    }
  });

  it('S3_ENDPOINT: an http(s) origin without credentials (those come from the SDK chain)', () => {
    const creds = refusal({ AUDIO_STORE: 's3://audio-bucket/x', S3_ENDPOINT: 'http://user:hunter2@127.0.0.1:1' });
    expect(creds).toMatch(/S3_ENDPOINT: must not contain a user name or password \(S3 credentials come from AWS_ACCESS_KEY_ID/);
    expect(creds).not.toContain('hunter2');
    for (const value of ['minio:9000', 'http://minio:9000/path', 'ftp://minio', 'http://minio:9000?X-Amz-Signature=hunter2', 'not a url']) {
      const message = refusal({ AUDIO_STORE: 's3://audio-bucket/x', S3_ENDPOINT: value });
      expect(message, value).toMatch(/S3_ENDPOINT: expected an http\(s\) origin such as http:\/\/127\.0\.0\.1:9000/);
      expect(message, value).not.toContain('hunter2');
    }
    expect(accepts({ AUDIO_STORE: 's3://audio-bucket/x', S3_ENDPOINT: 'HTTP://minio:9000/' }).s3?.endpoint).toBe('HTTP://minio:9000');
  });

  it('AUDIO_STORE: a malformed value is shown redacted, or not at all', () => {
    const creds = refusal({ AUDIO_STORE: 's3://user:hunter2@audio-bucket/x' });
    expect(creds).toMatch(/^AUDIO_STORE: must not contain a user name or password .*; expected s3:\/\/bucket\/prefix$/);
    const malformed = refusal({ AUDIO_STORE: 's3://user:hunter2@...malformed' });
    expect(malformed).toMatch(/^AUDIO_STORE: must not contain a user name or password/);
    const query = refusal({ AUDIO_STORE: 's3://Bad_Bucket/x?token=hunter2' });
    expect(query).toBe(
      'AUDIO_STORE: expected s3://bucket/prefix (a bucket name of 3-63 lower-case letters, digits, dots and hyphens; a prefix without . or .. segments or //); the bucket name or the prefix does not fit',
    );
    const notUrl = refusal({ AUDIO_STORE: 'user:hunter2@audio-bucket' });
    expect(notUrl).toMatch(/^AUDIO_STORE: expected s3:\/\/bucket\/prefix .*; it does not start with s3:\/\/$/);
    for (const message of [creds, malformed, query, notUrl]) expect(message).not.toContain('hunter2');
  });

  it('nothing is created on disk for a refused AUDIO_STORE', () => {
    const dataDir = join(scratch, 'never-created');
    expect(() => loadConfig({ DATA_DIR: dataDir, AUDIO_STORE: 's3://user:hunter2@b' })).toThrow(/AUDIO_STORE/);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('the upstream and public URLs: http(s) base URLs without credentials, query or fragment', () => {
    const creds = refusal({ UPSTREAM_KOKORO_URL: 'https://user:hunter2@tts.internal' });
    expect(creds).toContain('UPSTREAM_KOKORO_URL: must not contain a user name or password (give an upstream key as UPSTREAM_API_KEY)');
    const query = refusal({ UPSTREAM_SUPERTONIC_URL: 'https://tts.internal/v1?api_key=hunter2' });
    expect(query).toContain('UPSTREAM_SUPERTONIC_URL: must not have a query (?…) or fragment (#…): paths are appended to it');
    const scheme = refusal({ UPSTREAM_KOKORO_URL: 'ftp://tts.internal' });
    expect(scheme).toContain('UPSTREAM_KOKORO_URL: expected an http(s) URL');
    const base = refusal({ PUBLIC_BASE_URL: 'https://tts.example.com/#hunter2' });
    expect(base).toContain('PUBLIC_BASE_URL: must not have a query');
    const voices = refusal({ PUBLIC_VOICES_URL: 'https://u:hunter2@voices.example.com' });
    expect(voices).toContain('PUBLIC_VOICES_URL: must not contain a user name or password (clients are given this URL)');
    for (const message of [creds, query, scheme, base, voices]) expect(message).not.toContain('hunter2');
    expect(accepts({ UPSTREAM_KOKORO_URL: 'https://tts.internal/kokoro/' }).upstream.baseUrls.kokoro).toBe('https://tts.internal/kokoro');
  });

  it('BILLING_URL: given to clients, so no credentials; a query is fine', () => {
    const creds = refusal({ BILLING_URL: 'https://u:hunter2@billing.example.com/' });
    expect(creds).toContain('BILLING_URL: must not contain a user name or password');
    expect(creds).not.toContain('hunter2');
    expect(refusal({ BILLING_URL: 'javascript:alert(1)' })).toContain('BILLING_URL: expected an http(s) URL');
    expect(accepts({ BILLING_URL: 'https://billing.example.com/?src=api' }).billingUrl).toBe('https://billing.example.com/?src=api');
  });

  it('CORS_ORIGINS and CORS_PREVIEW_PATTERN: refused with credentials, saying which one without showing it', () => {
    const origins = refusal({ CORS_ORIGINS: 'https://app.example.com,https://u:hunter2@app2.example.com' });
    expect(origins).toMatch(
      /^CORS_ORIGINS: origin 2 of 2 is not an origin like https:\/\/app\.example\.com \(http or https, a host and an optional port; no path/,
    );
    const pattern = refusal({ CORS_PREVIEW_PATTERN: 'https://u:hunter2@*.preview.example.com' });
    expect(pattern).toMatch(/^CORS_PREVIEW_PATTERN: expected an origin with one "\*" label in its host, e\.g\. https:\/\/\*\.preview\.example\.com/);
    for (const message of [origins, pattern]) expect(message).not.toContain('hunter2');
  });

  it('every invalid URL setting is named in one message', () => {
    const message = refusal({ REDIS_URL: 'http://x', UPSTREAM_KOKORO_URL: 'nope', BILLING_URL: 'nope', S3_ENDPOINT: 'nope' });
    for (const name of ['REDIS_URL', 'UPSTREAM_KOKORO_URL', 'BILLING_URL', 'S3_ENDPOINT']) expect(message).toMatch(new RegExp(`^  ${name}: `, 'm'));
  });
});

describe('numbers and choices: refused in words for the person who set them', () => {
  it('says the rule a number breaks (whole, the range, the unit) and how, naming the variable and never repeating the value', () => {
    const rule = 'PORT: must be a whole number from 0 to 65535 (0: any free port)';
    expect(refusal({ PORT: 'eighty' })).toBe(`Invalid configuration:\n  ${rule}; it is not a decimal number`);
    expect(refusal({ PORT: '80.5' })).toBe(`Invalid configuration:\n  ${rule}; it has a fraction`);
    expect(refusal({ PORT: '70000' })).toBe(`Invalid configuration:\n  ${rule}; it is above 65535`);
    // Empty is not 0 (which would mean "any free port"), and hexadecimal or exponents are not read as numbers.
    expect(refusal({ PORT: '' })).toBe(`Invalid configuration:\n  ${rule}; it is empty`);
    expect(refusal({ PORT: '0x1F90' })).toBe(`Invalid configuration:\n  ${rule}; it is not a decimal number`);
    expect(refusal({ RATE_POST_LIMIT: '0' })).toBe(
      'Invalid configuration:\n  RATE_POST_LIMIT: must be a whole number from 1 to 1000000000 (requests a window); it is below 1',
    );
    expect(refusal({ RETENTION_DAYS_PRO: '-0.5' })).toBe(
      'Invalid configuration:\n  RETENTION_DAYS_PRO: must be a number from 0 to 3650 (days, up to 10 years); it is below 0',
    );
    expect(refusal({ TTS_ENGINE: 'festival' })).toBe('Invalid configuration:\n  TTS_ENGINE: must be one of: espeak, openai-compatible');
    expect(refusal({ SYNTH_ENGINE: 'fast' })).toBe('Invalid configuration:\n  SYNTH_ENGINE: must be one of: auto, native, wasm');
    expect(refusal({ LOG_LEVEL: 'loud', PORT: 'x' })).toBe(
      `Invalid configuration:\n  ${rule}; it is not a decimal number\n  LOG_LEVEL: must be one of: fatal, error, warn, info, debug, trace, silent`,
    );
    expect(accepts({ PORT: ' 8085 ', RETENTION_DAYS_FREE: '0.5' })).toMatchObject({ port: 8085, plans: { free: { retentionDays: 0.5 } } });
  });

  it('the distributed mode speaks the same words, one line per variable', () => {
    const message = refusal({ REDIS_URL: 'redis://127.0.0.1:6379/0', REDIS_COMMAND_TIMEOUT_MS: 'abc', QUEUE_LOCK_MS: '0' });
    expect(message).toBe(
      'Invalid configuration:\n' +
        '  REDIS_COMMAND_TIMEOUT_MS: must be a whole number from 1 to 60000 (milliseconds); it is not a decimal number\n' +
        '  QUEUE_LOCK_MS: must be a whole number from 500 to 600000 (milliseconds); it is below 500',
    );
  });

  it('URL_SIGNING_SECRET: at least 32 characters, said as such', () => {
    for (const length of [15, 31]) {
      expect(refusal({ URL_SIGNING_SECRET: 's'.repeat(length) })).toBe('Invalid configuration:\n  URL_SIGNING_SECRET: must be at least 32 characters long');
    }
    expect(accepts({ URL_SIGNING_SECRET: 's'.repeat(32) }).urlSigningSecret).toBe('s'.repeat(32));
  });

  it('REDIS_URL: a stray % in the user name, password or socket path is refused before node-redis throws "URI malformed"', () => {
    for (const value of [
      'redis://u:pa%ZZx@127.0.0.1:6379/0',
      'redis://u%G1:pw@127.0.0.1:6379/0',
      'unix://u:pa%ZZx@/run/redis.sock',
      'unix:///run/re%ZZdis.sock',
    ]) {
      const message = refusal({ REDIS_URL: value });
      expect(message, value).toMatch(
        /REDIS_URL: the (user name or password|socket path) has a % that does not start a percent-encoded byte .*write a % in a password as %25/,
      );
      expect(message, value).not.toContain('pa%ZZx');
    }
    expect(accepts({ REDIS_URL: 'redis://u:pa%25ZZx@127.0.0.1:6379/0' }).redisUrl).toBe('redis://u:pa%25ZZx@127.0.0.1:6379/0');
  });

  it('HOST: an IP address or a host name', () => {
    expect(refusal({ HOST: 'not a host' })).toMatch(/^Invalid configuration:\n {2}HOST: must be an IP address .* or a host name .*; it has other characters$/);
    expect(refusal({ HOST: ':::1' })).toMatch(/HOST: .*; it has a colon but is not an IPv6 address$/);
    for (const host of ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', 'api-1.internal']) expect(accepts({ HOST: host }).host).toBe(host);
  });
});

describe('every setting, given a bad value', () => {
  it('is refused alone with a ConfigError naming it and its rule, without its value', () => {
    for (const setting of BAD_SETTINGS) {
      const message = refusal(setting.env);
      expect(message, setting.name).toMatch(new RegExp(`(^|\\n {2})${setting.name}: (must|expected|the |origin |set, but|"|cannot)`));
      expect(repeatsValue(setting, message), `${setting.name} repeats its value: ${message}`).toBe(false);
    }
  });

  it('has a case in the table, for every variable the server and the distributed mode read', () => {
    expect(BAD_SETTINGS.map((s) => s.name).sort()).toEqual([...CONFIG_VARIABLES, ...DISTRIBUTED_VARIABLES].sort());
  });
});

describe('DATA_DIR', () => {
  it('is created when its parent exists, and said to be; refused, naming it, when the parent does not', () => {
    const fresh = join(scratch, 'fresh-data');
    const made = accepts({ DATA_DIR: fresh });
    expect(made.dataDirCreated).toBe(true);
    expect(existsSync(join(fresh, 'audio'))).toBe(true);
    expect(accepts({ DATA_DIR: fresh }).dataDirCreated).toBe(false);
    const deep = join(scratch, 'no-such-parent', 'data');
    expect(refusal({ DATA_DIR: deep })).toBe(
      `DATA_DIR: "${deep}" does not exist, and neither does its parent directory "${join(scratch, 'no-such-parent')}"; only a directory whose parent exists is created: create it (mkdir -p) or correct the path`,
    );
    expect(existsSync(join(scratch, 'no-such-parent'))).toBe(false);
  });
});
