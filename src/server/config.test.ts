import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

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
      'AUDIO_STORE: expected s3://bucket/prefix (a bucket name of 3-63 lower-case letters, digits, dots and hyphens); got "s3://Bad_Bucket/x?token=***"',
    );
    const notUrl = refusal({ AUDIO_STORE: 'user:hunter2@audio-bucket' });
    expect(notUrl).toMatch(/^AUDIO_STORE: expected s3:\/\/bucket\/prefix .*; got a value that is not a URL$/);
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

  it('CORS_ORIGINS and CORS_PREVIEW_PATTERN: refused with credentials, and shown without them', () => {
    const origins = refusal({ CORS_ORIGINS: 'https://app.example.com,https://u:hunter2@app2.example.com' });
    expect(origins).toBe('CORS_ORIGINS: "https://u:***@app2.example.com" is not an origin like https://app.example.com');
    const pattern = refusal({ CORS_PREVIEW_PATTERN: 'https://u:hunter2@*.preview.example.com' });
    expect(pattern).toMatch(/^CORS_PREVIEW_PATTERN: expected an origin with one "\*" label.*; got "https:\/\/u:\*\*\*@\*\.preview\.example\.com"$/);
  });

  it('every invalid URL setting is named in one message', () => {
    const message = refusal({ REDIS_URL: 'http://x', UPSTREAM_KOKORO_URL: 'nope', BILLING_URL: 'nope', S3_ENDPOINT: 'nope' });
    for (const name of ['REDIS_URL', 'UPSTREAM_KOKORO_URL', 'BILLING_URL', 'S3_ENDPOINT']) expect(message).toMatch(new RegExp(`^  ${name}: `, 'm'));
  });
});

describe('numbers and choices: refused in words for the person who set them', () => {
  it('says what a number or a choice must be, naming the variable and never repeating the value', () => {
    expect(refusal({ PORT: 'eighty' })).toBe('Invalid configuration:\n  PORT: must be a number');
    expect(refusal({ PORT: '80.5' })).toBe('Invalid configuration:\n  PORT: must be a whole number');
    expect(refusal({ PORT: '70000' })).toBe('Invalid configuration:\n  PORT: must be at most 65535');
    expect(refusal({ RATE_POST_LIMIT: '0' })).toBe('Invalid configuration:\n  RATE_POST_LIMIT: must be at least 1');
    expect(refusal({ TTS_ENGINE: 'festival' })).toBe('Invalid configuration:\n  TTS_ENGINE: must be one of: espeak, openai-compatible');
    expect(refusal({ LOG_LEVEL: 'loud', PORT: 'x' })).toBe(
      'Invalid configuration:\n  PORT: must be a number\n  LOG_LEVEL: must be one of: fatal, error, warn, info, debug, trace, silent',
    );
  });
});
