import { describe, expect, it } from 'vitest';
import { DUMMY_HASH, displayKey, generateKey, parseKey, secretMatches } from './keys.js';

describe('API keys', () => {
  it('generates tts_<8 hex>_<48 hex> keys, storing only the SHA-256 of the secret', () => {
    const { key, publicId, secretHash } = generateKey();
    expect(key).toMatch(/^tts_[0-9a-f]{8}_[0-9a-f]{48}$/);
    expect(key.slice(4, 12)).toBe(publicId);
    expect(secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(key).not.toContain(secretHash);
    expect(generateKey().key).not.toBe(key);
  });

  it('parses a well-formed key into public id and secret, and nothing else', () => {
    const secret = 'ab'.repeat(24);
    expect(parseKey(`tts_0123abcd_${secret}`)).toEqual({ publicId: '0123abcd', secret });
    for (const bad of [`tts_0123ABCD_${secret}`, `tts_0123abcd_${secret.slice(1)}`, `xyz_0123abcd_${secret}`, `tts_0123abcd_${secret} `, '']) {
      expect(parseKey(bad)).toBeUndefined();
    }
  });

  it('matches a secret against its stored hash only', () => {
    const { key, secretHash } = generateKey();
    const { secret } = parseKey(key)!;
    expect(secretMatches(secret, secretHash)).toBe(true);
    expect(
      secretMatches(
        secret.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
        secretHash,
      ),
    ).toBe(false);
    expect(secretMatches(secret, DUMMY_HASH)).toBe(false);
    expect(secretMatches(secret, 'not-hex')).toBe(false);
  });

  it('shows a key by its prefix and public id', () => {
    expect(displayKey('0123abcd')).toBe('tts_0123abcd');
  });
});
