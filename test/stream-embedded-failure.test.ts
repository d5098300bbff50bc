import type { Server } from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@agent-tts/bench/harness/server-process.js';
import { createApi, type Api } from '../src/server/create-api.js';
import { loadConfig } from '../src/server/config.js';
import { AccountAdmin } from '../src/server/domain/accounts.js';
import { closeServer, listen } from '../src/server/http/listen.js';
import { createLogger } from '../src/server/log.js';
import type { Synthesizer } from '../src/server/ports/index.js';
import { createSynth } from '../src/server/synthesis-setup.js';
import { longText, pollUntilDone, postJob } from './helpers/http.js';

/** Texts with this word fail in the engine once this many bytes of their audio are out. */
const BREAK_WORD = 'Kaputt.';
const BREAK_AFTER_BYTES = 40_000;

/**
 * A job that fails while a listener streams it (docs/api-rules.md#streaming-audio): the real engine,
 * which fails once its audio is on the way, over TCP, so that what a client sees is the connection's.
 */
describe('streaming audio of a job that fails (embedded)', () => {
  let api: Api;
  let server: Server;
  let baseUrl: string;
  let key: string;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'agent-tts-stream-fail-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      DATA_DIR: dataDir,
      SYNTH_THREADS: '1',
      LOG_LEVEL: 'silent',
      INLINE_WAIT_MS: '0',
      RATE_POST_LIMIT: '1000',
      RATE_GET_LIMIT: '1000',
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
    });
    const real = await createSynth(config);
    // The real engine, whose audio stops with an error part-way for a text with the break word.
    const breaking: Synthesizer = Object.create(real, {
      synthesize: {
        value: (
          request: Parameters<Synthesizer['synthesize']>[0],
          sink: Parameters<Synthesizer['synthesize']>[1],
          options: Parameters<Synthesizer['synthesize']>[2],
        ) => {
          if (!request.text.includes(BREAK_WORD)) return real.synthesize(request, sink, options);
          let written = 0;
          return real.synthesize(
            request,
            {
              write: async (bytes) => {
                if (written >= BREAK_AFTER_BYTES) throw new Error('the engine broke');
                written += bytes.byteLength;
                await sink.write(bytes);
              },
            },
            options,
          );
        },
      },
    });
    api = await createApi({ config, synth: breaking, log: createLogger('silent') });
    server = await listen(api.app.fetch, port, '127.0.0.1', 'PORT');
    const admin = new AccountAdmin(api.services.store);
    const account = await admin.createAccount('stream-failure', 'ultimate', 'active');
    key = (await admin.createKey(account.id)).key;
  }, 120_000);
  afterAll(async () => {
    if (server) await closeServer(server);
    await api?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('ends the stream abnormally (no last chunk: the client read fails) after the bytes made, and the job is failed', async () => {
    const posted = await postJob(baseUrl, key, { text: `${BREAK_WORD} ${longText(200)}` });
    expect(posted.status).toBe(202);
    const res = await fetch(posted.body.stream_url);
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    if (!reader) throw new Error('no body');
    let received = 0;
    const ended = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'done';
        received += value.byteLength;
      }
    })().catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(Error);
    expect(received).toBeGreaterThanOrEqual(BREAK_AFTER_BYTES);

    const job = await pollUntilDone(baseUrl, key, posted.body.job_id);
    expect([job.body.status, job.body.error.code]).toEqual(['failed', 'INTERNAL_ERROR']);
    // The stream URL of a failed job is refused as its audio would be; the run's live file is gone.
    const again = await fetch(posted.body.stream_url);
    expect([again.status, ((await again.json()) as { error: { code: string } }).error.code]).toEqual([404, 'NOT_FOUND']);
    expect(await readdir(join(dataDir, 'live'))).toEqual([]);
  }, 120_000);

  it('a job that succeeds on the same server still streams to a normal end', async () => {
    const posted = await postJob(baseUrl, key, { text: longText(30) });
    const bytes = new Uint8Array(await (await fetch(posted.body.stream_url)).arrayBuffer());
    const done = await pollUntilDone(baseUrl, key, posted.body.job_id);
    const file = new Uint8Array(await (await fetch(done.body.audio_url)).arrayBuffer());
    expect(Buffer.compare(bytes, file)).toBe(0);
  }, 120_000);
});
