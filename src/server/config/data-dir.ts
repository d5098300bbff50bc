import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from './error.js';

/** DATA_DIR as an absolute path, created (with its audio/ directory, mode 0700) and checked to be writable. */
export function dataDirectory(path: string): string {
  const dataDir = resolve(path);
  try {
    mkdirSync(join(dataDir, 'audio'), { recursive: true, mode: 0o700 });
    accessSync(dataDir, constants.R_OK | constants.W_OK);
  } catch (error) {
    throw new ConfigError(
      `DATA_DIR: cannot use "${dataDir}" as the data directory (${(error as NodeJS.ErrnoException).code ?? String(error)}); it must be a writable directory`,
    );
  }
  return dataDir;
}

/** URL_SIGNING_SECRET, or else the secret kept in the data directory (made on first use). */
export function signingSecret(dataDir: string, fromEnv?: string): string {
  if (fromEnv) return fromEnv;
  // Generated once and kept in the data directory, so URLs stay valid across restarts.
  const file = join(dataDir, 'url-signing-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('hex');
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    // Another process sharing the data directory wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw error;
  }
}
