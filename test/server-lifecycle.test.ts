import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeMp3, expectError, getJob, longText, pollUntilDone, postJob, sleep } from './helpers/http.js';
import { ROOT, SERVER_MAIN, freePort, removeDir, runNode, startServer, type RunningServer } from './helpers/server.js';

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
  });

  it('names the variable when the data directory or a port cannot be used, and takes no arguments', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'agent-tts-lifecycle-'));
    try {
      const file = join(scratch, 'a-file');
      await writeFile(file, 'not a directory');
      const dataDir = await runNode(SERVER_MAIN, [], { DATA_DIR: file, PORT: '0', VOICES_PORT: '0' });
      expect(dataDir.code).toBe(2);
      expect(dataDir.stderr).toMatch(/^agent-tts-server: DATA_DIR: cannot use ".*a-file" as the data directory \(ENOTDIR\)/);
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

  it('on SIGTERM lets an inline wait finish, then exits cleanly', async () => {
    server = await startServer();
    const key = server.fixtures.keys.active[0];
    const pending = postJob(server.baseUrl, key, { text: longText(200) });
    await sleep(1000);
    const exit = server.stop();
    const res = await pending;
    expect([200, 202]).toContain(res.status);
    expect(await exit).toBe(0);
    expect(server.logs()).toContain('shutting down');
    await server.restart();
  });

  it('resumes a job interrupted by a crash at the next start, charged once', async () => {
    server = await startServer({ env: { INLINE_WAIT_MS: '0' } });
    const key = server.fixtures.keys.active[0];
    const res = await postJob(server.baseUrl, key, { text: longText(300) });
    expect(res.status).toBe(202);
    await sleep(1500);
    await server.kill();
    // The crash left the run's partial file in the job's parts directory.
    const partsDir = join(server.dataDir, 'audio', '.parts');
    expect((await readdir(join(partsDir, res.body.job_id))).filter((f) => f.endsWith('.part'))).toHaveLength(1);
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
    // No temporary file is left: the parts directory is empty, and only audio sits beside it.
    expect((await readdir(join(server.dataDir, 'audio'))).filter((f) => !f.endsWith('.mp3'))).toEqual(['.parts']);
    expect(await readdir(partsDir)).toEqual([]);
    // Two starts, a long synthesis and, in the distributed mode, BullMQ's stalled-job check (30 s)
    // before another run takes the job: more than the default minute on slow cores.
  }, 180_000);

  it('deletes a job’s record and audio after its plan’s retention', async () => {
    server = await startServer({ env: { RETENTION_DAYS_ULTIMATE: '0.0001', RETENTION_SWEEP_SECONDS: '1' } });
    const key = server.fixtures.keys.active[0];
    const submittedAt = Date.now();
    const res = await postJob(server.baseUrl, key, { text: 'Short-lived.' });
    expect([200, 202]).toContain(res.status);
    expect((await pollUntilDone(server.baseUrl, key, res.body.job_id)).body.status).toBe('completed');
    const file = join(server.dataDir, 'audio', `${res.body.job_id}.mp3`);
    expect((await readdir(join(server.dataDir, 'audio'))).includes(`${res.body.job_id}.mp3`)).toBe(true);
    // 0.0001 days ≈ 8.6 s after submission, swept every second.
    await sleep(Math.max(0, 8640 - (Date.now() - submittedAt)) + 2500);
    expectError(await getJob(server.baseUrl, key, res.body.job_id), 404, 'NOT_FOUND');
    expect((await readdir(join(server.dataDir, 'audio'))).includes(file.split('/').pop()!)).toBe(false);
  });
});
