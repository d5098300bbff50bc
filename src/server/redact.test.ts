import { describe, expect, it } from 'vitest';
import { describeError, redactText, redactUrl, secretsIn } from './redact.js';

describe('redactUrl', () => {
  it('masks the password of the user info and keeps the rest', () => {
    expect(redactUrl('redis://user:hunter2@cache.internal:6380/2')).toBe('redis://user:***@cache.internal:6380/2');
    expect(redactUrl('rediss://:hunter2@cache.internal')).toBe('rediss://:***@cache.internal');
    expect(redactUrl('http://user:hunter2@127.0.0.1:9000')).toBe('http://user:***@127.0.0.1:9000/');
    expect(redactUrl('s3://user:hunter2@bucket/prefix')).toBe('s3://user:***@bucket/prefix');
    // Percent-encoded and with a raw "@" in it: nothing of it is left.
    expect(redactUrl('redis://u:hun%40ter2@h:1')).toBe('redis://u:***@h:1');
  });

  it('masks a user name given alone, the usual form of a token', () => {
    expect(redactUrl('https://hunter2@git.example.com/repo')).toBe('https://***@git.example.com/repo');
  });

  it('masks the values of query parameters named like secrets, and only those', () => {
    const shown = redactUrl(
      'https://bucket.s3.amazonaws.com/a.mp3?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAhunter2&X-Amz-Signature=hunter2sig&X-Amz-Security-Token=hunter2tok&part=3',
    );
    expect(shown).not.toMatch(/hunter2/);
    expect(shown).toContain('X-Amz-Algorithm=AWS4-HMAC-SHA256');
    expect(shown).toContain('part=3');
    expect(shown).toContain('X-Amz-Signature=***');
    for (const name of ['token', 'access_token', 'key', 'api_key', 'password', 'secret', 'sig', 'auth']) {
      expect(redactUrl(`https://h/p?${name}=hunter2&n=1`), name).toBe(`https://h/p?${name}=***&n=1`);
    }
    expect(redactUrl('https://h/cb#access_token=hunter2')).toBe('https://h/cb#***');
  });

  it('leaves a URL without credentials as it is', () => {
    expect(redactUrl('redis://127.0.0.1:6379/11')).toBe('redis://127.0.0.1:6379/11');
    expect(redactUrl('https://tts.example.com/billing?src=api')).toBe('https://tts.example.com/billing?src=api');
  });

  it('shows a value that is not a URL not at all', () => {
    expect(redactUrl('user:hunter2@cache')).toBe('(not a URL)');
    expect(redactUrl('http://user:hunter2@[::1')).toBe('(not a URL)');
    expect(redactUrl('')).toBe('(not a URL)');
  });

  it('masks the credentials of a unix socket URL, which WHATWG URL cannot parse', () => {
    expect(redactUrl('unix://user:hunter2@/run/redis.sock?db=2')).toBe('unix://user:***@/run/redis.sock?db=2');
    expect(redactUrl('unix:///run/redis.sock')).toBe('unix:///run/redis.sock');
  });
});

describe('redactText', () => {
  it('masks the credentials of every URL quoted in a text', () => {
    const text =
      'tls socket option is set to true which is mismatch with protocol or the URL redis://default:hunter2@h:6379 passed; also see http://x:hunter2@y/z?token=hunter2t for details';
    const shown = redactText(text);
    expect(shown).not.toContain('hunter2');
    expect(shown).toBe(
      'tls socket option is set to true which is mismatch with protocol or the URL redis://default:***@h:6379 passed; also see http://x:***@y/z?token=*** for details',
    );
  });

  it('takes the user info to the last "@" before the host', () => {
    expect(redactText('at redis://u:hun@ter2@host:1/0')).toBe('at redis://u:***@host:1/0');
  });

  it('replaces the secrets it is given wherever they stand, decoded ones too', () => {
    const env = { REDIS_URL: 'redis://u:p%40ss-hunter2@h:1', UPSTREAM_API_KEY: 'sk-hunter2-key', SHORT: 'http://u:ab@h' };
    const secrets = secretsIn(env);
    expect(secrets).toEqual(new Set(['p%40ss-hunter2', 'p@ss-hunter2', 'sk-hunter2-key']));
    expect(redactText('WRONGPASS for p@ss-hunter2; key sk-hunter2-key rejected', secrets)).toBe('WRONGPASS for ***; key *** rejected');
  });

  it('leaves ordinary text alone', () => {
    const text = 'connect ECONNREFUSED 127.0.0.1:6379 (attempts=3, http://127.0.0.1:9000/bucket?list-type=2)';
    expect(redactText(text)).toBe(text);
  });
});

describe('describeError', () => {
  it('is the message of an error with the secrets of the environment masked', () => {
    const env = { S3_ENDPOINT: 'http://minio:hunter2@127.0.0.1:1' };
    expect(describeError(new Error('getaddrinfo failed for hunter2 at http://minio:hunter2@127.0.0.1:1'), env)).toBe(
      'getaddrinfo failed for *** at http://minio:***@127.0.0.1:1',
    );
    expect(describeError('plain hunter2', env)).toBe('plain ***');
  });
});
