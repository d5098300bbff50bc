import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeProcess, runNode } from '@agent-tts/bench/harness/node-process.js';
import { findNativeLibraries } from '../src/server/synth/native.js';
import { decodeMp3, expectError, getJob, longText, pollUntilDone, postJob, sleep } from './helpers/http.js';
import { type RunningWorker, startOwnRedis, startWorker } from './helpers/redis.js';
import { ROOT, removeDir, startServer, type RunningServer } from './helpers/server.js';
import { ADMIN_MAIN, SERVER_MAIN, freePort } from '@agent-tts/bench/harness/server-process.js';

describe('start-up, shutdown, crash recovery and retention', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    if (server) {
      await server.stop();
      await removeDir(server.dataDir);
      server = undefined;
    }
  });

  it('refuses a bad configuration with a message naming the variable', async () => {
    const res = await runNode(SERVER_MAIN, [], { PORT: 'eighty', INLINE_WAIT_MS: '-5', DATA_DIR: join(ROOT, '.tmp-never-used') });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/PORT/);
    expect(res.stderr).toMatch(/INLINE_WAIT_MS/);
    const cors = await runNode(SERVER_MAIN, [], {
      CORS_PREVIEW_PATTERN: 'not a pattern',
      PORT: '0',
      VOICES_PORT: '0',
      DATA_DIR: join(ROOT, '.tmp-never-used'),
    });
    expect(cors.code).toBe(2);
    expect(cors.stderr).toMatch(/CORS_PREVIEW_PATTERN/);
    // Credentials in an upstream URL would reach logs and errors: refused, and not echoed.
    const creds = await runNode(SERVER_MAIN, [], {
      TTS_ENGINE: 'openai-compatible',
      UPSTREAM_SUPERTONIC_URL: 'http://admin:hunter2-upstream@127.0.0.1:9/',
      DATA_DIR: join(ROOT, '.tmp-never-used'),
    });
    expect(creds.code).toBe(2);
    expect(creds.stderr).toMatch(/UPSTREAM_SUPERTONIC_URL: must not contain a user name or password/);
    expect(creds.stderr).not.toContain('hunter2');
    const malformed = await runNode(SERVER_MAIN, [], { PUBLIC_BASE_URL: 'notaurl', DATA_DIR: join(ROOT, '.tmp-never-used') });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/PUBLIC_BASE_URL: /);
    const engine = await runNode(SERVER_MAIN, [], { SYNTH_ENGINE: 'fastest', DATA_DIR: join(ROOT, '.tmp-never-used') });
    expect(engine.code).toBe(2);
    expect(engine.stderr).toContain('SYNTH_ENGINE: must be one of: auto, native, wasm');
  });

  it('names the variable when the data directory or a port cannot be used, and takes no arguments', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'agent-tts-lifecycle-'));
    try {
      const file = join(scratch, 'a-file');
      await writeFile(file, 'not a directory');
      const dataDir = await runNode(SERVER_MAIN, [], { DATA_DIR: file, PORT: '0', VOICES_PORT: '0' });
      expect(dataDir.code).toBe(2);
      expect(dataDir.stderr).toMatch(/^agent-tts-server: DATA_DIR: cannot use ".*a-file" as the data directory \(it is not a directory\)/);
      // Both listeners on one port: the second cannot have it.
      const port = String(await freePort());
      const clash = await runNode(SERVER_MAIN, [], { DATA_DIR: join(scratch, 'data'), HOST: '127.0.0.1', PORT: port, VOICES_PORT: port });
      expect(clash.code).toBe(2);
      expect(clash.stderr).toContain(`VOICES_PORT: port ${port} on 127.0.0.1 is in use`);
      const help = await runNode(SERVER_MAIN, ['--help'], { DATA_DIR: join(scratch, 'help') });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/environment variables/);
      const flag = await runNode(SERVER_MAIN, ['--port', '9999'], { DATA_DIR: join(scratch, 'flag') });
      expect(flag.code).toBe(2);
      expect(flag.stderr).toMatch(/unexpected argument "--port"/);
      // Neither created a data directory.
      expect(await readdir(scratch)).toEqual(['a-file', 'data']);
    } finally {
      await removeDir(scratch);
    }
    await removeDir(join(ROOT, '.tmp-never-used'));
  });

  it("agent-tts-admin run without the server's settings builds its links on the server's origin, and says where it took it", async () => {
    server = await startServer({ seed: false });
    const port = new URL(server.baseUrl).port;
    // Only DATA_DIR, as in another shell: no PORT, HOST or PUBLIC_BASE_URL.
    const adminEnv = { DATA_DIR: server.dataDir, PORT: undefined, HOST: undefined, PUBLIC_BASE_URL: undefined } as unknown as Record<string, string>;
    const account = JSON.parse((await runNode(ADMIN_MAIN, ['account', 'create', '--name', 'origin', '--json'], adminEnv)).stdout);
    const link = await runNode(ADMIN_MAIN, ['account', 'sign-in-link', account.id], adminEnv);
    expect(link.code, link.stderr).toBe(0);
    expect(link.stdout).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/dashboard/sign-in\\?token=`));
    expect(link.stderr).toMatch(
      new RegExp(
        `^agent-tts-admin: links on http://127\\.0\\.0\\.1:${port} \\(recorded by agent-tts-server at .* in DATA_DIR/public-origin\\.json, from its HOST and PORT; set PUBLIC_BASE_URL to choose\\)\n$`,
      ),
    );
    // The link works: its page answers on the server.
    expect((await fetch(link.stdout.split('\n')[0]!)).status).toBe(200);
  });

  // A SIGTERM sent the instant the server says it is listening ended the process by the signal's
  // default action (killed, no shutdown) while the handlers were installed after that line: the window
  // is the few statements between the line and the handlers (then the first retention sweep), open in
  // 2 to 10 rounds of 20 on 2 cores, hence many rounds. The handlers now come before the listeners.
  it('on SIGTERM the moment it says it is listening, shuts down cleanly', { repeats: 15 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-tts-sigterm-at-start-'));
    try {
      const started = NodeProcess.spawn('agent-tts-server', SERVER_MAIN, {
        env: { DATA_DIR: dataDir, URL_SIGNING_SECRET: randomBytes(32).toString('hex'), PORT: '0', VOICES_PORT: '0', SYNTH_THREADS: '1' },
      });
      await started.waitForLog('agent-tts listening', 60_000);
      const code = await started.stop();
      expect({ code, signal: started.child.signalCode }, started.log().slice(-2000)).toEqual({ code: 0, signal: null });
      expect(started.log()).toContain('shutting down');
    } finally {
      await removeDir(dataDir);
    }
  });

  it('on SIGTERM lets an inline wait finish, then exits cleanly', async () => {
    server = await startServer();
    // The start line names the speech engine (native where its libraries are installed, by default).
    const start = server
      .logs()
      .split('\n')
      .find((line) => line.includes('agent-tts listening'));
    expect(JSON.parse(start!)).toMatchObject({ synth_engine: 'espeak' in findNativeLibraries() ? 'espeak-native' : 'espeak-wasm' });
    const key = server.fixtures.keys.active[0]!;
    const pending = postJob(server.baseUrl, key, { text: longText(200) });
    await sleep(1000);
    const exit = server.stop();
    const res = await pending;
    expect([200, 202]).toContain(res.status);
    expect(await exit).toBe(0);
    expect(server.logs()).toContain('shutting down');
    await server.restart();
  });

  it('on SIGTERM with Redis unreachable, exits within its grace period', async () => {
    const own = await startOwnRedis();
    try {
      const grace = 3_000;
      server = await startServer({
        backend: 'redis',
        env: {
          REDIS_URL: own.url,
          REDIS_PREFIX: `agent-tts-test:lifecycle-${randomBytes(3).toString('hex')}:`,
          URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
          SHUTDOWN_GRACE_MS: String(grace),
        },
      });
      await own.stop();
      await sleep(500);
      const running = server;
      running.process.kill('SIGTERM');
      // The grace period and a margin for a busy machine; before, closing the clients of the
      // unreachable Redis alone took the worker's grace plus 5 s and more (12 s with these settings).
      for (let waited = 0; running.process.exitCode === null && waited < grace + 2_000; waited += 100) await sleep(100);
      expect(running.process.exitCode, running.logs().split('\n').slice(-5).join('\n')).toBe(0);
      expect(running.logs()).toContain('shutdown grace period over with backend clients still closing; exiting');
      await removeDir(running.dataDir);
      server = undefined;
    } finally {
      await own.stop();
      await removeDir(own.dir);
    }
  }, 120_000);

  // Redis is stopped right after "worker started", often while BullMQ still sets its connections up: a
  // set-up that failed once used to leave the worker spinning in BullMQ's fetch loop (Worker.mainLoop →
  // retryIfFailed → moveToActive, settled as microtasks only), deaf to the SIGTERM, about one run in
  // five. The worker now takes jobs only once its connections are set up (synthesis-worker.ts;
  // test/worker-redis-reset.test.ts makes that failure on every run). A worker that did not exit is
  // killed, so that it does not spin on after the test.
  it('a synthesis worker, on SIGTERM with Redis unreachable, exits within its grace period', { timeout: 120_000 }, async () => {
    const own = await startOwnRedis();
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-tts-worker-grace-'));
    let worker: RunningWorker | undefined;
    try {
      const grace = 3_000;
      worker = await startWorker({
        REDIS_URL: own.url,
        REDIS_PREFIX: `agent-tts-test:lifecycle-${randomBytes(3).toString('hex')}:`,
        DATA_DIR: dataDir,
        SHUTDOWN_GRACE_MS: String(grace),
      });
      await own.stop();
      await sleep(500);
      worker.process.kill('SIGTERM');
      // The grace period and a margin for a busy machine; before, the worker took its grace plus 5 s
      // and more with Redis unreachable (12 s with these settings).
      for (let waited = 0; worker.process.exitCode === null && waited < grace + 4_000; waited += 100) await sleep(100);
      expect(worker.process.exitCode, worker.logs().split('\n').slice(-5).join('\n')).toBe(0);
    } finally {
      if (worker && worker.process.exitCode === null) await worker.kill();
      await own.stop();
      await removeDir(own.dir);
      await removeDir(dataDir);
    }
  });

  it('resumes a job interrupted by a crash at the next start, charged once', async () => {
    server = await startServer({ env: { INLINE_WAIT_MS: '0' } });
    const key = server.fixtures.keys.active[0]!;
    const res = await postJob(server.baseUrl, key, { text: longText(300) });
    expect(res.status).toBe(202);
    await sleep(1500);
    await server.kill();
    // The crash left the run's partial file in the job's parts directory.
    const partsDir = join(server.dataDir, 'audio', '.parts');
    expect((await readdir(join(partsDir, `${res.body.job_id}.mp3`))).filter((f) => f.endsWith('.part'))).toHaveLength(1);
    await server.restart();
    // The embedded queue lives in the process, so the restart queues the job again; in the
    // distributed mode BullMQ still holds it and its stalled-job check hands it to a worker.
    if (!server.env.REDIS_URL) expect(server.logs()).toMatch(/"resumed_jobs":1/);
    const done = await pollUntilDone(server.baseUrl, key, res.body.job_id);
    expect(done.body.status).toBe('completed');
    const charged = Math.ceil((done.body.audio.duration_seconds / 60) * 100) / 100;
    expect(done.body.billing.monthly_minutes_used).toBe(charged);
    const audio = await decodeMp3(new Uint8Array(await (await fetch(done.body.audio_url)).arrayBuffer()));
    expect(Math.abs(audio.seconds - done.body.audio.duration_seconds) / audio.seconds).toBeLessThan(0.02);
    // No temporary file is left: the parts directory is empty, and only audio sits beside it (in the
    // distributed mode with the mark of the job's last run of live audio, `<job>.live`: its segments are gone).
    const beside = (await readdir(join(server.dataDir, 'audio'))).filter((f) => !f.endsWith('.mp3'));
    expect(beside).toEqual(server.env.REDIS_URL ? ['.parts', `${res.body.job_id}.live`].sort() : ['.parts']);
    expect(await readdir(partsDir)).toEqual([]);
    // Two starts, a long synthesis and, in the distributed mode, BullMQ's stalled-job check (30 s)
    // before another run takes the job: more than the default minute on slow cores.
  }, 180_000);

  it('deletes a job’s record and audio after its plan’s retention', async () => {
    server = await startServer({ env: { RETENTION_DAYS_ULTIMATE: '0.0001', RETENTION_SWEEP_SECONDS: '1' } });
    const key = server.fixtures.keys.active[0]!;
    const submittedAt = Date.now();
    const res = await postJob(server.baseUrl, key, { text: 'Short-lived.' });
    expect([200, 202]).toContain(res.status);
    expect((await pollUntilDone(server.baseUrl, key, res.body.job_id)).body.status).toBe('completed');
    const file = join(server.dataDir, 'audio', `${res.body.job_id}.mp3`);
    expect((await readdir(join(server.dataDir, 'audio'))).includes(`${res.body.job_id}.mp3`)).toBe(true);
    // 0.0001 days ≈ 8.6 s after submission, swept every second: gone within 2.5 s of it, asked every
    // quarter second (a dozen GETs at most, within the 30 a minute of the plan).
    await sleep(Math.max(0, 8640 - (Date.now() - submittedAt)));
    const deadline = submittedAt + 8640 + 2500;
    let after = await getJob(server.baseUrl, key, res.body.job_id);
    while (after.status !== 404 && Date.now() < deadline) {
      await sleep(250);
      after = await getJob(server.baseUrl, key, res.body.job_id);
    }
    expectError(after, 404, 'NOT_FOUND');
    expect((await readdir(join(server.dataDir, 'audio'))).includes(file.split('/').pop()!)).toBe(false);
  });
});
