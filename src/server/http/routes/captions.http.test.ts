import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSrt, renderWebVtt, textWords, timingsProblems } from '@agent-tts/contract/captions.js';
import { AUDIO_URL_INVALID_MESSAGE } from '@agent-tts/contract/errors.js';
import { WordTimingsFile, type WordTimingsFileBody } from '@agent-tts/contract/timing-schemas.js';
import { call, completedJob, decodeMp3, expectError, fetchOf, getJob, postJob } from '../../../../test/helpers/http.js';
import { startInProcessHttp, type SeededServer } from '../../../../test/helpers/in-process.js';

const TEXT = 'Captions, please. Ünïcödé “quotes” & <markup> — and a second sentence after a pause!';
const expiresOf = (url: string) => new URL(url).searchParams.get('expires');

/**
 * Word timings and captions through the whole server (docs/api-rules.md#word-timings-and-captions): a
 * submission that asks for them, the job's answers (POST, GET, a replay), the three signed URLs, and
 * what the captions route serves at them; real synthesis, stores and audio storage (Redis and BullMQ in
 * the Redis run).
 */
describe('word timings and captions', () => {
  let server: SeededServer;
  // biome-ignore lint/suspicious/noExplicitAny: the completed job's JSON answer, read field by field by the later tests
  let completed: any;
  beforeAll(async () => {
    server = await startInProcessHttp({ RATE_POST_LIMIT: '1000', RATE_GET_LIMIT: '1000' });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  it('a submission with timestamps "word" completes with timings: three signed caption URLs expiring with audio_url', async () => {
    const key = server.fixtures.keys.active[0]!;
    const res = await completedJob(server.baseUrl, key, await postJob(server.baseUrl, key, { text: TEXT, timestamps: 'word' }, { 'idempotency-key': 'timed' }));
    completed = res.body;
    const id = completed.job_id;
    expect(completed.timings).toEqual({
      granularity: 'word',
      json_url: expect.stringMatching(new RegExp(`^${server.baseUrl}/v1/captions/${id}\\.json\\?expires=\\d+&sig=[A-Za-z0-9_-]{43}$`)),
      vtt_url: expect.stringMatching(new RegExp(`^${server.baseUrl}/v1/captions/${id}\\.vtt\\?expires=\\d+&sig=[A-Za-z0-9_-]{43}$`)),
      srt_url: expect.stringMatching(new RegExp(`^${server.baseUrl}/v1/captions/${id}\\.srt\\?expires=\\d+&sig=[A-Za-z0-9_-]{43}$`)),
    });
    for (const url of [completed.timings.json_url, completed.timings.vtt_url, completed.timings.srt_url])
      expect(expiresOf(url)).toBe(expiresOf(completed.audio_url));
  });

  it('serves the word timings of the delivered audio at json_url, and WebVTT and SRT made of their cues', async () => {
    const json = await fetchOf(completed.timings.json_url);
    expect([json.status, json.headers.get('content-type')]).toEqual([200, 'application/json']);
    const file = (await json.json()) as WordTimingsFileBody;
    expect(WordTimingsFile.safeParse(file).success).toBe(true);
    expect(file).toMatchObject({ job_id: completed.job_id, granularity: 'word', duration_seconds: completed.audio.duration_seconds });
    expect(file.words.map((w) => w.word)).toEqual(textWords(TEXT).map((w) => w.word));
    expect(timingsProblems(TEXT, file)).toEqual([]);
    const audio = await decodeMp3(new Uint8Array(await (await fetchOf(completed.audio_url)).arrayBuffer()));
    expect(file.words.at(-1)!.end).toBeLessThanOrEqual(audio.seconds + 0.05);

    const vtt = await fetchOf(completed.timings.vtt_url);
    expect([vtt.status, vtt.headers.get('content-type')]).toEqual([200, 'text/vtt; charset=utf-8']);
    expect(await vtt.text()).toBe(renderWebVtt(file));
    const srt = await fetchOf(completed.timings.srt_url);
    expect([srt.status, srt.headers.get('content-type')]).toEqual([200, 'application/x-subrip; charset=utf-8']);
    expect(await srt.text()).toBe(renderSrt(file));
  });

  it('GET of the job and a replay of its Idempotency-Key carry fresh timings; a replay asking for none is the same job', async () => {
    const key = server.fixtures.keys.active[0]!;
    const polled = await getJob(server.baseUrl, key, completed.job_id);
    expect(polled.status).toBe(200);
    expect(Object.keys(polled.body.timings)).toEqual(['granularity', 'json_url', 'vtt_url', 'srt_url']);
    expect((await fetchOf(polled.body.timings.srt_url)).status).toBe(200);
    // The key alone decides (docs/api-rules.md#idempotency): a replay answers the job as it was asked for.
    for (const timestamps of ['word', 'none', undefined]) {
      const replay = await postJob(server.baseUrl, key, { text: TEXT, timestamps }, { 'idempotency-key': 'timed' });
      expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.job_id]).toEqual([200, 'true', completed.job_id]);
      expect(replay.body.timings.granularity).toBe('word');
      expect((await fetchOf(replay.body.timings.vtt_url)).status).toBe(200);
    }
  });

  it('a submission without timestamps, or with "none", has no timings; a replay asking for them is still that job, without', async () => {
    const key = server.fixtures.keys.active[1]!;
    const absent = await completedJob(server.baseUrl, key, await postJob(server.baseUrl, key, { text: 'No captions.' }, { 'idempotency-key': 'plain' }));
    const none = await completedJob(server.baseUrl, key, await postJob(server.baseUrl, key, { text: 'No captions.', timestamps: 'none' }));
    for (const res of [absent, none, await getJob(server.baseUrl, key, absent.body.job_id)]) expect(res.body).not.toHaveProperty('timings');
    // 'none' and no field are the same request; 'word' under the key of a job without timings replays that job.
    for (const timestamps of ['none', 'word']) {
      const replay = await postJob(server.baseUrl, key, { text: 'No captions.', timestamps }, { 'idempotency-key': 'plain' });
      expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.job_id]).toEqual([200, 'true', absent.body.job_id]);
      expect(replay.body).not.toHaveProperty('timings');
    }
    // Caption URLs made for it by hand open nothing: it asked for none.
    const forged = completed.timings.vtt_url.replace(completed.job_id, absent.body.job_id);
    const res = await call(forged);
    expect([res.status, res.body.error.message]).toEqual([404, AUDIO_URL_INVALID_MESSAGE]);
  });

  it('refuses an unknown timestamps value as INVALID_REQUEST, naming the field', async () => {
    const res = await postJob(server.baseUrl, server.fixtures.keys.active[2], { text: 'Hi.', timestamps: 'sentence' });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toContain('timestamps');
  });

  it('the timings go with the audio: once it is deleted, every caption URL answers 404', async () => {
    const key = server.fixtures.keys.active[3]!;
    const job = await completedJob(server.baseUrl, key, await postJob(server.baseUrl, key, { text: 'Soon gone.', timestamps: 'word' }));
    expect((await fetchOf(job.body.timings.json_url)).status).toBe(200);
    await server.inProcess.services.audio.deleteMany([job.body.job_id]);
    for (const url of [job.body.audio_url, job.body.timings.json_url, job.body.timings.vtt_url, job.body.timings.srt_url]) {
      const res = await call(url);
      expect([res.status, res.body.error.message]).toEqual([404, AUDIO_URL_INVALID_MESSAGE]);
    }
  });
});
