import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTIONAL_PARTS } from '../src/server/optional-parts.js';
import { WORKER_MAIN, ADMIN_MAIN, SERVER_MAIN } from '@agent-tts/bench/harness/server-process.js';
import { NodeProcess, runNode } from '@agent-tts/bench/harness/node-process.js';
import { removeDir, ROOT } from './helpers/server.js';

/**
 * The server's optional parts (Redis and BullMQ; the AWS SDK; better-sqlite3 where Node.js has no
 * node:sqlite; koffi for the native engine) are optional peer dependencies, loaded only when
 * configured. Here the built server runs as if they were not installed (a resolve hook for import and
 * a patched resolver for require refuse them as Node does a package that is absent): an operator who
 * sets REDIS_URL, an s3:// AUDIO_STORE or SYNTH_ENGINE=native, or runs the embedded store on Node.js
 * 20, is told, with exit 2, what to install; one who needs none of them never loads them.
 */
let dir: string;
let hide: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tts-optional-'));
  await writeFile(
    join(dir, 'hooks.mjs'),
    `const hidden = (process.env.HIDE_PACKAGES ?? '').split(',').filter(Boolean);
export async function resolve(specifier, context, next) {
  if (hidden.some((name) => specifier === name || specifier.startsWith(name + '/'))) {
    throw Object.assign(new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}
`,
  );
  await writeFile(join(dir, 'hide.mjs'), `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`);
  // require() (koffi and better-sqlite3 are loaded by it) does not pass through the hooks on Node.js 20.
  await writeFile(
    join(dir, 'hide.cjs'),
    `const Module = require('node:module');
const hidden = (process.env.HIDE_PACKAGES ?? '').split(',').filter(Boolean);
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (hidden.some((name) => request === name || request.startsWith(name + '/'))) {
    throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
  }
  return resolveFilename.call(this, request, ...rest);
};
`,
  );
  hide = `--import=${pathToFileURL(join(dir, 'hide.mjs')).href} --require=${join(dir, 'hide.cjs')}`;
});
afterAll(() => removeDir(dir));

const ALL_OPTIONAL = Object.values(OPTIONAL_PARTS).flatMap((part) => Object.keys(part.packages));
/** Node.js 24 stores through its built-in node:sqlite; before it, through better-sqlite3. */
const NODE_SQLITE = Number(process.versions.node.split('.')[0]) >= 24;
/** Every optional package but the SQLite driver this Node.js needs. */
const ALL_BUT_DRIVER = ALL_OPTIONAL.filter((name) => NODE_SQLITE || name !== 'better-sqlite3');
const env = (extra: Record<string, string>, hidden: readonly string[] = ALL_BUT_DRIVER) => ({
  NODE_OPTIONS: hide,
  HIDE_PACKAGES: hidden.join(','),
  DATA_DIR: join(dir, 'data'),
  URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
  PORT: '0',
  VOICES_PORT: '0',
  ...extra,
});

describe('the optional parts of the server', () => {
  it('are the optional peer dependencies of the package, with the ranges the message names', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'src/server/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      optionalDependencies?: Record<string, string>;
    };
    const ranges = Object.assign({}, ...Object.values(OPTIONAL_PARTS).map((part) => part.packages));
    expect(pkg.peerDependencies).toEqual(ranges);
    for (const name of ALL_OPTIONAL) {
      expect(pkg.peerDependenciesMeta[name]?.optional).toBe(true);
      expect(pkg.dependencies[name]).toBeUndefined();
      expect(pkg.optionalDependencies?.[name]).toBeUndefined();
    }
  });

  it('REDIS_URL without redis and bullmq installed: exit 2, naming REDIS_URL and what to install', async () => {
    for (const main of [SERVER_MAIN, WORKER_MAIN]) {
      const res = await runNode(main, [], env({ REDIS_URL: 'redis://127.0.0.1:6379/0' }), { timeoutMs: 60_000 });
      expect(res.stderr).toMatch(/REDIS_URL is set, but (redis|bullmq), which it needs, is not installed/);
      expect(res.stderr).toContain('npm install redis@"^6.3.1" bullmq@"^6.7.0"');
      expect(res.code).toBe(2);
    }
  });

  it('an s3:// AUDIO_STORE without the AWS SDK installed: exit 2, naming the setting and what to install', async () => {
    const res = await runNode(ADMIN_MAIN, ['account', 'list'], env({ AUDIO_STORE: 's3://a-bucket/audio', S3_REGION: 'eu-west-1' }), { timeoutMs: 60_000 });
    expect(res.stderr).toContain('AUDIO_STORE=s3://… is set, but @aws-sdk/client-s3, which it needs, is not installed');
    expect(res.stderr).toContain('npm install @aws-sdk/client-s3@3.1169.0 @aws-sdk/lib-storage@3.1169.0');
    expect(res.code).toBe(2);
  });

  it.skipIf(NODE_SQLITE)(
    'the embedded store on Node.js 20 without better-sqlite3: exit 2, saying what to install and that Node.js 24 needs nothing',
    async () => {
      for (const [main, args] of [
        [SERVER_MAIN, []],
        [ADMIN_MAIN, ['account', 'list']],
      ] as const) {
        const res = await runNode(main, [...args], env({}, ALL_OPTIONAL), { timeoutMs: 60_000 });
        expect(res.stderr).toContain(
          'The embedded store (REDIS_URL not set) uses SQLite, on Node.js 20 and 22 through better-sqlite3, but better-sqlite3, which it needs, is not installed',
        );
        expect(res.stderr).toContain('npm install better-sqlite3@"^12.11.1"');
        expect(res.stderr).toContain('Node.js 24 needs nothing: its built-in node:sqlite is used instead');
        expect(res.code).toBe(2);
      }
    },
  );

  it('SYNTH_ENGINE=native without koffi installed: exit 2, saying to install koffi', async () => {
    const res = await runNode(SERVER_MAIN, [], env({ SYNTH_ENGINE: 'native' }), { timeoutMs: 60_000 });
    expect(res.stderr).toContain(
      'SYNTH_ENGINE=native: The native eSpeak NG engine cannot run: koffi, through which it calls the system libraries, is not installed',
    );
    expect(res.stderr).toContain(`npm install koffi@"${OPTIONAL_PARTS.native.packages.koffi}"`);
    expect(res.code).toBe(2);
  });

  it('SYNTH_ENGINE=auto without koffi installed: the server starts on the WebAssembly engine', async () => {
    const server = NodeProcess.spawn('agent-tts-server', SERVER_MAIN, { env: env({ SYNTH_ENGINE: 'auto', DATA_DIR: join(dir, 'auto') }) });
    try {
      await server.waitForLog('agent-tts listening', 60_000);
      const start = server
        .log()
        .split('\n')
        .find((line) => line.includes('agent-tts listening'));
      expect(JSON.parse(start!)).toMatchObject({ synth_engine: 'espeak-wasm' });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('none of them set: the embedded server starts and answers without them', async () => {
    const res = await runNode(ADMIN_MAIN, ['account', 'create', '--name', 'embedded', '--plan', 'free', '--json'], env({}), { timeoutMs: 60_000 });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ name: 'embedded' });
  });
});
