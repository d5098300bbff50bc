import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, type Stats, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from './error.js';

/**
 * DATA_DIR as an absolute path, checked to be a writable directory, with its audio/ directory. A
 * missing DATA_DIR is created (mode 0700) only when its parent exists: `/nonexistent/x` is a typo or
 * an unmounted volume far more often than a wish, so it is refused rather than made with every missing
 * directory on the way. `created` says whether it was made, for the process to announce it.
 */
export function dataDirectory(path: string): { path: string; created: boolean } {
  const dataDir = resolve(path);
  const refuse = (why: string) => new ConfigError(`DATA_DIR: cannot use "${dataDir}" as the data directory (${why}); it must be a writable directory`);
  const existing = statOrUndefined(dataDir);
  if (existing && !existing.isDirectory()) throw refuse('it is not a directory');
  if (!existing) {
    const parent = statOrUndefined(dirname(dataDir));
    if (!parent?.isDirectory()) {
      throw new ConfigError(
        `DATA_DIR: "${dataDir}" does not exist, and neither does its parent directory "${dirname(dataDir)}"; only a directory whose parent exists is created: create it (mkdir -p) or correct the path`,
      );
    }
  }
  try {
    if (!existing) mkdirSync(dataDir, { mode: 0o700 });
    mkdirSync(join(dataDir, 'audio'), { recursive: true, mode: 0o700 });
    accessSync(dataDir, constants.R_OK | constants.W_OK);
  } catch (error) {
    throw refuse((error as NodeJS.ErrnoException).code ?? String(error));
  }
  return { path: dataDir, created: !existing };
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
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
