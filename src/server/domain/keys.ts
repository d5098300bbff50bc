import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { API_KEY_PATTERN, KEY_PREFIX } from '@agent-tts/contract/limits.js';

export interface NewKey {
  /** The full key, shown once. */
  key: string;
  publicId: string;
  secretHash: string;
}

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function generateKey(): NewKey {
  const publicId = randomBytes(4).toString('hex');
  const secret = randomBytes(24).toString('hex');
  return { key: `${KEY_PREFIX}_${publicId}_${secret}`, publicId, secretHash: hashSecret(secret) };
}

export function displayKey(publicId: string): string {
  return `${KEY_PREFIX}_${publicId}`;
}

export function parseKey(key: string): { publicId: string; secret: string } | undefined {
  const match = API_KEY_PATTERN.exec(key);
  const [, publicId, secret] = match ?? [];
  return publicId !== undefined && secret !== undefined ? { publicId, secret } : undefined;
}

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}

/** Used when no key record exists, so an unknown key costs the same as a wrong secret. */
export const DUMMY_HASH = hashSecret('0'.repeat(48));
