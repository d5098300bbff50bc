import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAD_SETTINGS, type BadSetting, repeatsValue } from './helpers/bad-settings.js';
import { deleteKeys, redisOrSkip, startWorker, testRedisUrl, uniquePrefix, type RunningWorker } from './helpers/redis.js';
import { ROOT, removeDir, startServer, type RunningServer } from './helpers/server.js';
import { runNode } from '@agent-tts/bench/harness/node-process.js';
import { ADMIN_MAIN, SERVER_MAIN, WORKER_MAIN } from '@agent-tts/bench/harness/server-process.js';

const LOG_MODULE = join(ROOT, 'src/server/dist/log.js');

/**
 * Settings that hold a URL may hold credentials: every process (server, worker, admin) refuses an
 * invalid one with exit code 2 and a message naming the variable, and no password reaches its output,
 * its logs or /readyz.
 */
const SECRET = 'hunter2-redact-test';

describe('an invalid URL setting: exit 2, the variable named, the password nowhere', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'agent-tts-redaction-'));
  });
  afterAll(async () => {
    await removeDir(scratch);
  });

  const cases: { name: string; env: Record<string, string>; says: RegExp }[] = [
    {
      name: 'S3_ENDPOINT',
      env: { AUDIO_STORE: 's3://audio-bucket/x', S3_ENDPOINT: `http://user:${SECRET}@127.0.0.1:1` },
      says: /S3_ENDPOINT: must not contain a user name or password \(S3 credentials come from AWS_ACCESS_KEY_ID/,
    },
    {
      name: 'AUDIO_STORE',
      env: { AUDIO_STORE: `s3://user:${SECRET}@...malformed` },
      says: /AUDIO_STORE: must not contain a user name or password .*; expected s3:\/\/bucket\/prefix/,
    },
    {
      name: 'REDIS_URL',
      env: { REDIS_URL: `http://user:${SECRET}@x` },
      says: /REDIS_URL: expected redis:\/\/host\[:port\]\[\/db\], rediss:\/\/host\[:port\]\[\/db\] \(TLS\) or unix:\/\/\/path\/to\/socket.*; the scheme is not redis: or rediss:/,
    },
  ];
  const programs = [
    { name: 'agent-tts-server', script: SERVER_MAIN, args: [] },
    { name: 'agent-tts-worker', script: WORKER_MAIN, args: [] },
    { name: 'agent-tts-admin', script: ADMIN_MAIN, args: ['account', 'list'] },
  ];

  for (const setting of cases) {
    it(`${setting.name}: server, worker and admin`, async () => {
      for (const program of programs) {
        const dataDir = join(scratch, `${program.name}-${setting.name}`);
        const res = await runNode(program.script, program.args, { ...setting.env, DATA_DIR: dataDir, PORT: '0', VOICES_PORT: '0', LOG_LEVEL: 'info' });
        const what = `${program.name} with ${setting.name}:\n${res.stderr}`;
        expect(res.code, what).toBe(2);
        expect(res.stderr, what).toMatch(new RegExp(`^${program.name}: `));
        expect(res.stderr, what).toMatch(setting.says);
        expect(res.stdout + res.stderr, what).not.toContain('hunter2');
        // Refused before anything was created.
        expect(existsSync(dataDir), what).toBe(false);
      }
    });
  }
});

/**
 * Every setting of the server, given a bad value (test/helpers/bad-settings.ts), stops the server, the
 * worker and the admin with exit code 2, naming it and its rule, without its value. The cases one check
 * refuses together (the settings table, the distributed mode's table) share a start, so that the three
 * programs start 3 × 7 times rather than 3 × 51.
 */
describe('every invalid setting: exit 2, the variable and its rule named, the value nowhere', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'agent-tts-bad-settings-'));
  });
  afterAll(async () => {
    await removeDir(scratch);
  });

  const starts: BadSetting[][] = [];
  for (const group of ['table', 'distributed'] as const) starts.push(BAD_SETTINGS.filter((s) => s.group === group));
  for (const setting of BAD_SETTINGS) if (setting.group === undefined) starts.push([setting]);

  for (const program of [
    { name: 'agent-tts-server', script: SERVER_MAIN, args: [] as string[] },
    { name: 'agent-tts-worker', script: WORKER_MAIN, args: [] as string[] },
    { name: 'agent-tts-admin', script: ADMIN_MAIN, args: ['account', 'list'] },
  ]) {
    it(program.name, async () => {
      for (const [index, settings] of starts.entries()) {
        const env = Object.assign({ DATA_DIR: join(scratch, `${program.name}-${index}`), PORT: '0', VOICES_PORT: '0' }, ...settings.map((s) => s.env));
        const res = await runNode(program.script, program.args, env);
        const what = `${program.name} with ${settings.map((s) => s.name).join(', ')}:\n${res.stderr}`;
        expect(res.code, what).toBe(2);
        expect(res.stderr, what).toMatch(new RegExp(`^${program.name}: `));
        for (const setting of settings) {
          expect(res.stderr, `${setting.name} in ${what}`).toMatch(new RegExp(`(^${program.name}: |\\n {2})${setting.name}: `));
          expect(repeatsValue(setting, res.stdout + res.stderr), `${setting.name} repeated in ${what}`).toBe(false);
        }
        expect(res.stdout + res.stderr, what).not.toContain('hunter2');
      }
    });
  }
});

describe("the AWS SDK's Node version warning", () => {
  it('reaches the output of the server, the worker and the admin only as one JSON log line (server, worker) or not at all (admin)', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'agent-tts-aws-warning-'));
    try {
      // An S3 client is made, and the start then stops at the unreachable store (exit 2).
      const env = {
        AUDIO_STORE: 's3://audio-bucket/x',
        S3_ENDPOINT: 'http://127.0.0.1:1',
        S3_FORCE_PATH_STYLE: 'true',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        PORT: '0',
        VOICES_PORT: '0',
        LOG_LEVEL: 'info',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined,
      } as unknown as Record<string, string>;
      const onNode20 = Number(process.versions.node.split('.')[0]) < 22;
      for (const program of [
        { name: 'agent-tts-server', script: SERVER_MAIN, args: [] as string[], logs: true },
        { name: 'agent-tts-worker', script: WORKER_MAIN, args: [] as string[], logs: true },
        { name: 'agent-tts-admin', script: ADMIN_MAIN, args: ['account', 'list'], logs: false },
      ]) {
        const extra: Record<string, string> = program.name === 'agent-tts-worker' ? { REDIS_URL: 'redis://127.0.0.1:1/0' } : {};
        const res = await runNode(program.script, program.args, { ...env, ...extra, DATA_DIR: join(scratch, program.name) });
        const what = `${program.name}:\n${res.stdout}\n${res.stderr}`;
        expect(res.code, what).toBe(2);
        expect(res.stdout + res.stderr, what).not.toContain('NodeVersionSupportWarning');
        expect(res.stderr, what).toMatch(
          new RegExp(`^${program.name}: AUDIO_STORE: the bucket "audio-bucket" at http://127\\.0\\.0\\.1:1 cannot be used`, 'm'),
        );
        // Every line on stdout is JSON; on Node 20 one of them says why the warning is not printed.
        const lines = res.stdout.split('\n').filter(Boolean);
        for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
        const said = lines.map((l) => JSON.parse(l)).filter((l) => /AWS SDK for JavaScript requires Node 22/.test(l.msg));
        expect(said, what).toHaveLength(program.logs && onNode20 ? 1 : 0);
        if (said[0]) expect(said[0]).toMatchObject({ level: 40, aws_sdk: '3.1169.0' });
      }
    } finally {
      await removeDir(scratch);
    }
  });
});

describe('the logs', () => {
  it('mask the credentials of any URL a library quotes, in messages, fields and errors', async () => {
    // The built logger in a process of its own: what it writes to stdout is what an operator reads.
    const script = `
      const { createLogger } = await import(${JSON.stringify(pathToFileURL(LOG_MODULE).href)});
      const log = createLogger('info');
      const secret = ${JSON.stringify(SECRET)};
      const err = new Error('the URL redis://default:' + secret + '@cache.internal:6379/0 passed');
      log.error({ err, endpoint: 'https://s3.example.com/b?X-Amz-Signature=' + secret }, 'failed');
      log.warn('cannot reach https://' + secret + '@tts.internal/v1');
    `;
    const res = await runNode('--input-type=module', ['-e', script], {});
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[0].err.message).toBe('the URL redis://default:***@cache.internal:6379/0 passed');
    expect(lines[0].err.stack).toContain('redis://default:***@cache.internal');
    expect(lines[0].endpoint).toBe('https://s3.example.com/b?X-Amz-Signature=***');
    expect(lines[1].msg).toBe('cannot reach https://***@tts.internal/v1');
    expect(res.stdout).not.toContain('hunter2');
  });
});

const redis = await redisOrSkip('settings redaction');
const prefix = uniquePrefix('redaction');

/** The test Redis under a user name and a password it does not know: connections fail AUTH. */
function credentialedRedisUrl(): string {
  const url = new URL(testRedisUrl());
  url.username = 'agent-tts-test';
  url.password = SECRET;
  return url.toString();
}

describe.skipIf(!redis)('a REDIS_URL with a password: never in /readyz or the logs', () => {
  let server: RunningServer | undefined;
  let worker: RunningWorker | undefined;
  let workerDataDir: string | undefined;
  afterAll(async () => {
    // SIGKILL: a clean stop would wait out the queue connections that never authenticate.
    await server?.kill();
    await worker?.kill();
    if (server) await removeDir(server.dataDir);
    if (workerDataDir) await removeDir(workerDataDir);
    await deleteKeys(redis!, prefix);
  });

  it('the server answers /readyz 503 naming the check, and logs the URL masked', async () => {
    server = await startServer({ backend: 'redis', seed: false, env: { REDIS_URL: credentialedRedisUrl(), REDIS_PREFIX: prefix } });
    const res = await fetch(`${server.baseUrl}/readyz`);
    const text = await res.text();
    expect(res.status, text).toBe(503);
    expect(JSON.parse(text)).toMatchObject({
      success: false,
      error: { code: 'INTERNAL_ERROR', details: { checks: { queue: expect.stringMatching(/^(unreachable|timeout)$/) } } },
    });
    expect(text).not.toContain('hunter2');
    // node-redis reports the refused AUTH; the line names the Redis with the password masked.
    expect(server.logs()).toContain('redis://agent-tts-test:***@');
    expect(server.logs()).not.toContain('hunter2');
  });

  it('the worker logs the URL masked and answers /readyz without it', async () => {
    workerDataDir = await mkdtemp(join(tmpdir(), 'agent-tts-redaction-worker-'));
    worker = await startWorker({ REDIS_URL: credentialedRedisUrl(), REDIS_PREFIX: prefix, DATA_DIR: workerDataDir, WORKER_OPS_PORT: '0', HOST: '127.0.0.1' });
    const res = await fetch(`${worker.opsUrl!}/readyz`);
    const text = await res.text();
    // Ready or not depends on the test Redis: one without passwords still answers, as its default
    // user, the commands node-redis sends after the refused AUTH. Either way, no password in the answer.
    expect([200, 503], text).toContain(res.status);
    expect(JSON.parse(text)).toMatchObject({ success: res.status === 200 });
    expect(text).not.toContain('hunter2');
    expect(worker.logs()).toMatch(/"redis":"redis:\/\/agent-tts-test:\*\*\*@[^"]+","prefix"[^\n]*"msg":"agent-tts worker started[ "]/);
    expect(worker.logs()).not.toContain('hunter2');
  });
});
