import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenApiDocument } from '../../../../conformance/openapi-document.js';
import { AUDIO_STORE_UNREACHABLE_MESSAGE } from '../../../contract/errors.js';
import { decodeMp3 } from '../../../../test/helpers/http.js';
import { startInProcess, type InProcessServer } from '../../../../test/helpers/in-process.js';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from '../../../../test/helpers/s3.js';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { renderSrt, renderWebVtt } from '../../../contract/captions.js';
import { createS3Client } from '../../adapters/s3/client.js';
import { composeApi } from '../../compose.js';
import { loadConfig } from '../../config.js';
import { ConfigError } from '../../config/error.js';
import { createLogger } from '../../log.js';

Object.assign(process.env, S3RVER_CREDENTIALS);

const json = async (res: Response) => ({ status: res.status, headers: res.headers, body: await res.json() });

describe('audio kept in an S3 store, in process', () => {
  let s3: S3Server;
  let server: InProcessServer;
  beforeAll(async () => {
    s3 = await startS3Server();
    server = await startInProcess({ AUDIO_STORE: `s3://${s3.bucket}/audio`, ...s3.env });
  });

  it('keeps a job’s word timings as <prefix>/<job_id>.timings.json, its captions rendered once beside them, and serves them from there', async () => {
    const { key } = await server.newKey();
    const posted = await json(await server.request('POST', '/v1/agent-tts', { key, body: { text: 'Captions kept in a bucket.', timestamps: 'word' } }));
    expect([posted.status, posted.body.status]).toEqual([200, 'completed']);
    const id = posted.body.job_id;
    const client = createS3Client({ endpoint: s3.endpoint, forcePathStyle: true });
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `audio/${id}` }));
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual([
      `audio/${id}.captions.srt`,
      `audio/${id}.captions.vtt`,
      `audio/${id}.mp3`,
      `audio/${id}.timings.json`,
    ]);
    const open = (url: string) => server.app.request(new URL(url).pathname + new URL(url).search);
    const file = await (await open(posted.body.timings.json_url)).json();
    expect(file).toMatchObject({ job_id: id, granularity: 'word', duration_seconds: posted.body.audio.duration_seconds });
    expect(file.words.map((w: { word: string }) => w.word)).toEqual(['Captions', 'kept', 'in', 'a', 'bucket']);
    const vtt = await open(posted.body.timings.vtt_url);
    expect([vtt.status, await vtt.text()]).toEqual([200, renderWebVtt(file)]);
    const srt = await open(posted.body.timings.srt_url);
    expect([srt.status, await srt.text()]).toEqual([200, renderSrt(file)]);
  });
  afterAll(async () => {
    await server?.close();
    await s3?.close();
  });

  it('serves the job’s audio from the store, whole and by range, then answers 503 with Retry-After when the store is gone (captions too)', async () => {
    const { key } = await server.newKey();
    const posted = await json(await server.request('POST', '/v1/agent-tts', { key, body: { text: 'Audio kept in a bucket.' } }));
    expect(posted.status).toBe(200);
    expect(posted.body.status).toBe('completed');
    const url = new URL(posted.body.audio_url);
    const path = url.pathname + url.search;
    const timed = await json(
      await server.request('POST', '/v1/agent-tts', { key: (await server.newKey()).key, body: { text: 'With captions.', timestamps: 'word' } }),
    );
    expect(timed.status).toBe(200);

    const whole = await server.app.request(path);
    expect(whole.status).toBe(200);
    const bytes = new Uint8Array(await whole.arrayBuffer());
    expect(whole.headers.get('content-length')).toBe(String(bytes.byteLength));
    const decoded = await decodeMp3(bytes);
    expect(Math.abs(decoded.seconds - posted.body.audio.duration_seconds)).toBeLessThan(0.1);

    const part = await server.app.request(path, { headers: { range: 'bytes=0-0' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-0/${bytes.byteLength}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.subarray(0, 1));
    const tail = await server.app.request(path, { headers: { range: 'bytes=-100' } });
    expect(tail.status).toBe(206);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.byteLength - 100));
    const beyond = await server.app.request(path, { headers: { range: `bytes=${bytes.byteLength}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${bytes.byteLength}`);

    const captions = new URL(timed.body.timings.srt_url);
    await s3.close();
    // The captions of a job, as its audio: 503 with Retry-After, as the committed document declares.
    const captionsDown = await server.app.request(captions.pathname + captions.search);
    const captionsText = await captionsDown.text();
    expect([captionsDown.status, captionsDown.headers.get('retry-after')]).toEqual([503, '5']);
    expect(JSON.parse(captionsText).error).toEqual({ code: 'INTERNAL_ERROR', message: AUDIO_STORE_UNREACHABLE_MESSAGE });
    expect(captionsText).not.toMatch(/S3RVER|s3:\/\/|127\.0\.0\.1/);
    const captionsHeaders: Record<string, string> = {};
    captionsDown.headers.forEach((value, name) => {
      captionsHeaders[name] = value;
    });
    const captionsExchange = {
      seq: 2,
      owner: 'test',
      startedAt: new Date().toISOString(),
      ms: 0,
      request: { method: 'GET', url: `http://localhost${captions.pathname}${captions.search}`, headers: {} },
      response: {
        status: 503,
        headers: captionsHeaders,
        contentType: captionsDown.headers.get('content-type') ?? '',
        bytes: Buffer.from(captionsText),
        text: captionsText,
        json: JSON.parse(captionsText),
      },
    };
    expect(OpenApiDocument.load().checkResponse(captionsExchange, captions.pathname)).toEqual([]);

    const answer = await server.app.request(path);
    const text = await answer.clone().text();
    const down = await json(answer);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(down.body).toMatchObject({ success: false, error: { code: 'INTERNAL_ERROR', message: AUDIO_STORE_UNREACHABLE_MESSAGE } });
    const headers: Record<string, string> = {};
    down.headers.forEach((value, name) => {
      headers[name] = value;
    });
    // The committed document declares this answer: its status, body and headers (Retry-After required).
    const exchange = {
      seq: 1,
      owner: 'test',
      startedAt: new Date().toISOString(),
      ms: 0,
      request: { method: 'GET', url: `http://localhost${path}`, headers: {} },
      response: {
        status: down.status,
        headers,
        contentType: down.headers.get('content-type') ?? '',
        bytes: Buffer.from(text),
        text,
        json: down.body,
      },
    };
    expect(OpenApiDocument.load().checkResponse(exchange, url.pathname)).toEqual([]);
    expect(text).not.toContain('S3RVER');
    expect(text).not.toMatch(/\n\s+at |s3:\/\/|127\.0\.0\.1/);
    const ready = await json(await server.opsApp.request('/readyz'));
    expect(ready.status).toBe(503);
    expect(ready.body.error.details.checks).toMatchObject({ audio_storage: 'unreachable' });
  });

  it('refuses to start when the bucket cannot be reached, naming the endpoint and the bucket', async () => {
    const config = loadConfig({
      DATA_DIR: await mkdtemp(join(tmpdir(), 'agent-tts-s3-unreachable-')),
      LOG_LEVEL: 'silent',
      AUDIO_STORE: 's3://missing-bucket/x',
      S3_ENDPOINT: 'http://127.0.0.1:9',
      S3_FORCE_PATH_STYLE: 'true',
    });
    const error = await composeApi(config, createLogger('silent')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('http://127.0.0.1:9');
    expect((error as Error).message).toContain('"missing-bucket"');
  });

  it('validates the variables at start', () => {
    const base = { DATA_DIR: join(tmpdir(), 'agent-tts-s3-config') };
    expect(() => loadConfig({ ...base, AUDIO_STORE: '/srv/audio' })).toThrow(/AUDIO_STORE/);
    expect(() => loadConfig({ ...base, AUDIO_STORE: 's3://Bad_Bucket/x' })).toThrow(/AUDIO_STORE/);
    expect(() => loadConfig({ ...base, AUDIO_STORE: 's3://ok-bucket', S3_ENDPOINT: 'minio:9000' })).toThrow(/S3_ENDPOINT/);
    expect(() => loadConfig({ ...base, AUDIO_STORE: 's3://ok-bucket', S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/S3_FORCE_PATH_STYLE/);
    expect(() => loadConfig({ ...base, S3_ENDPOINT: 'http://127.0.0.1:9000' })).toThrow(/S3_ENDPOINT.*AUDIO_STORE/);
    expect(() => loadConfig({ ...base, S3_REQUEST_TIMEOUT_MS: '5000' })).toThrow(/S3_REQUEST_TIMEOUT_MS.*AUDIO_STORE/);
    expect(() => loadConfig({ ...base, AUDIO_STORE: 's3://ok-bucket', S3_CONNECT_TIMEOUT_MS: '0' })).toThrow(/S3_CONNECT_TIMEOUT_MS/);
    expect(() => loadConfig({ ...base, AUDIO_STORE: 's3://ok-bucket', S3_REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/S3_REQUEST_TIMEOUT_MS/);
    expect(() => loadConfig({ ...base, AUDIO_STORE_OUTAGE_BUDGET_SECONDS: '-1' })).toThrow(/AUDIO_STORE_OUTAGE_BUDGET_SECONDS/);
    expect(() => loadConfig({ ...base, AUDIO_STORE_OUTAGE_BUDGET_SECONDS: '7200' })).toThrow(/AUDIO_STORE_OUTAGE_BUDGET_SECONDS/);
    expect(loadConfig({ ...base, AUDIO_STORE: 's3://ok-bucket/a/b', S3_REGION: 'eu-west-1' }).s3).toEqual({
      bucket: 'ok-bucket',
      prefix: 'a/b',
      endpoint: undefined,
      region: 'eu-west-1',
      forcePathStyle: false,
      connectTimeoutMs: 3_000,
      requestTimeoutMs: 10_000,
    });
    const tuned = loadConfig({
      ...base,
      AUDIO_STORE: 's3://ok-bucket',
      S3_CONNECT_TIMEOUT_MS: '1500',
      S3_REQUEST_TIMEOUT_MS: '4000',
      AUDIO_STORE_OUTAGE_BUDGET_SECONDS: '300',
    });
    expect(tuned.s3).toMatchObject({ connectTimeoutMs: 1_500, requestTimeoutMs: 4_000 });
    expect(tuned.audioStoreOutageBudgetMs).toBe(300_000);
    expect(loadConfig(base).audioStoreOutageBudgetMs).toBe(120_000);
  });
});
