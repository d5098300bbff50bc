import { ConfigError } from './config/error.js';

/**
 * The server's optional parts: their packages are optional peer dependencies of @agent-tts/server
 * (package.json's peerDependencies, with these ranges), which npm does not install unless asked, so
 * that an embedded server (and the sandbox) installs without Redis, BullMQ, the AWS SDK or a native
 * build. Each is loaded only when its setting (`when`) asks for it:
 *
 * - `distributed` and `s3` by a dynamic import (importOptionalPart);
 * - `sqlite`: better-sqlite3, the embedded store's SQLite driver on Node.js 20 and 22 (Node.js 24 has
 *   node:sqlite built in), checked by importOptionalPart before the store opens;
 * - `native`: koffi, through which the native engine calls the system's eSpeak NG and LAME; without it
 *   SYNTH_ENGINE=auto runs the WebAssembly engine, and SYNTH_ENGINE=native is refused with a message
 *   (synth/native.ts) that names this range.
 */
export const OPTIONAL_PARTS = {
  distributed: { when: 'REDIS_URL is set', packages: { redis: '^6.3.1', bullmq: '^6.7.0' }, otherwise: '' },
  s3: {
    when: 'AUDIO_STORE=s3://… is set',
    packages: { '@aws-sdk/client-s3': '3.1169.0', '@aws-sdk/lib-storage': '3.1169.0' },
    otherwise: '',
  },
  sqlite: {
    when: 'The embedded store (REDIS_URL not set) uses SQLite, on Node.js 20 and 22 through better-sqlite3',
    packages: { 'better-sqlite3': '^12.11.1' },
    otherwise: '. Node.js 24 needs nothing: its built-in node:sqlite is used instead',
  },
  native: { when: 'SYNTH_ENGINE=native is set', packages: { koffi: '^3.3.4' }, otherwise: '' },
} as const;

/** The npm command that installs a part's packages, with their ranges. */
function installCommand(part: keyof typeof OPTIONAL_PARTS): string {
  const install = Object.entries(OPTIONAL_PARTS[part].packages)
    .map(([name, range]) => `${name}@${range.startsWith('^') ? `"${range}"` : range}`)
    .join(' ');
  return `npm install ${install}`;
}

/** Loads an optional part; its packages missing is a configuration error (exit 2) that says what to install. */
export async function importOptionalPart<T>(part: keyof typeof OPTIONAL_PARTS, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const { when, packages, otherwise } = OPTIONAL_PARTS[part];
    const names = Object.keys(packages);
    const missing = names.find((name) => isMissingPackage(error, name));
    if (!missing) throw error;
    throw new ConfigError(
      `${when}, but ${missing}, which it needs, is not installed (it is an optional part of @agent-tts/server); install ${names.join(' and ')} beside it: ${installCommand(part)} (with -g for a global install)${otherwise}`,
    );
  }
}

/** Whether `error` is Node's failure to find the package `name` (not a module missing inside it). */
function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && message.includes(`'${name}'`);
}
