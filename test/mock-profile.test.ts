import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MPEGDecoder } from 'mpg123-decoder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSrt, renderWebVtt, timingsProblems } from '../src/contract/captions.js';
import { ERROR_CODES } from '../src/contract/errors.js';
import { completedJobWithTimingsExample, EXAMPLE_ORIGIN, TIMINGS_EXAMPLE_TEXT, wordTimingsFileExample } from '../src/contract/examples.js';
import { MOCK_API_KEY } from '../conformance/fixtures-file.js';
import { runConformanceCli, type CliRun } from '../conformance/testing/run-cli.js';
import { ROOT, removeDir } from './helpers/server.js';
import { freePort } from '@agent-tts/bench/harness/server-process.js';

/** The mock as a client author starts it (the agent-tts-mock bin), and the suite's mock profile against it. */
describe('mock: Prism on the committed document, checked by the suite', () => {
  let mock: ChildProcess;
  let baseUrl: string;
  let output = '';

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    mock = spawn(process.execPath, [join(ROOT, 'mock/bin/agent-tts-mock.js'), '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    mock.stdout!.on('data', (d) => (output += d));
    mock.stderr!.on('data', (d) => (output += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the mock did not start:\n${output}`)), 60_000);
      mock.stdout!.on('data', () => {
        if (output.includes('Prism is listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
      mock.once('exit', (code) => reject(new Error(`the mock exited with ${code}:\n${output}`)));
    });
  }, 90_000);

  afterAll(async () => {
    if (mock && mock.exitCode === null) {
      const exited = new Promise((resolve) => mock.once('exit', resolve));
      mock.kill('SIGTERM');
      await exited;
    }
  });

  const call = (path: string, init: RequestInit & { prefer?: string } = {}) =>
    fetch(`${baseUrl}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${MOCK_API_KEY}`,
        'content-type': 'application/json',
        ...(init.prefer ? { prefer: init.prefer } : {}),
        ...(init.headers ?? {}),
      },
    });

  it('reaches every job state with Prefer: example=…', async () => {
    for (const state of ['completed', 'processing', 'failed', 'expired']) {
      const res = await call('/v1/agent-tts?id=3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', { prefer: `code=200, example=${state}` });
      expect(res.status).toBe(200);
      expect((await res.json()).status).toBe(state);
    }
    const accepted = await call('/v1/agent-tts', { method: 'POST', body: JSON.stringify({ text: 'Hi' }), prefer: 'code=202, example=processing' });
    expect(accepted.status).toBe(202);
  });

  it('reaches every error code of the table with Prefer: code=…, example=<code in lower case>', async () => {
    const reached = new Set<string>();
    const tries: [string, string, number][] = [
      ['POST', 'invalid_request', 400],
      ['POST', 'text_too_long', 400],
      ['POST', 'invalid_key', 401],
      ['POST', 'inactive_subscription', 403],
      ['POST', 'no_api_access', 403],
      ['POST', 'usage_limit_exceeded', 403],
      ['POST', 'rate_limited', 429],
      ['POST', 'internal_error', 500],
      ['POST', 'tts_provider_error', 502],
      ['GET', 'not_found', 404],
    ];
    for (const [method, example, status] of tries) {
      const res = await call(method === 'POST' ? '/v1/agent-tts' : '/v1/agent-tts?id=3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', {
        method,
        body: method === 'POST' ? JSON.stringify({ text: 'Hi' }) : undefined,
        prefer: `code=${status}, example=${example}`,
      });
      expect(res.status, example).toBe(status);
      reached.add((await res.json()).error.code);
    }
    const expired = await (await call('/v1/agent-tts?id=3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', { prefer: 'code=200, example=expired' })).json();
    reached.add(expired.error.code);
    expect([...reached].sort()).toEqual([...ERROR_CODES].sort());
  });

  const AUDIO = '/v1/audio/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f.mp3';
  const SIGNED = `${AUDIO}?expires=1775000000&sig=Jm3cV0Hk8G5wq0n1d3bXb1Cq7h9o0W5YtI2m4Yk1aZ0`;

  it('names its own address when it starts, not the one Prism listens on behind it', () => {
    expect(output).toContain(`Prism is listening on ${baseUrl}`);
  });

  it('downloads a real MP3 from an audio URL: audio/mpeg bytes that an MP3 decoder plays', async () => {
    const res = await fetch(`${baseUrl}${SIGNED}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    // An MPEG audio frame sync (11 bits set), not the text "string".
    expect(bytes.length).toBeGreaterThan(500);
    expect(bytes[0]).toBe(0xff);
    expect(bytes[1]! & 0xe0).toBe(0xe0);
    const decoder = new MPEGDecoder();
    await decoder.ready;
    try {
      const decoded = decoder.decode(bytes);
      expect(decoded.errors).toEqual([]);
      expect(decoded.samplesDecoded / decoded.sampleRate).toBeGreaterThan(0.4);
    } finally {
      decoder.free();
    }
    // A byte range of the same file, and HEAD without a body.
    const part = await fetch(`${baseUrl}${SIGNED}`, { headers: { range: 'bytes=0-99' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-99/${bytes.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.subarray(0, 100));
    const head = await fetch(`${baseUrl}${SIGNED}`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length')]).toEqual([200, String(bytes.length)]);
  });

  it('answers a malformed or cut-short audio URL with the audio route’s 404 example of it, and errors chosen with Prefer with their examples', async () => {
    for (const query of ['?expires=1775000000&sig=bad', '?expires=1775000000', '']) {
      const bad = await fetch(`${baseUrl}${AUDIO}${query}`);
      expect(bad.status, query).toBe(404);
      const body = (await bad.json()) as { error: { code: string; message: string } };
      expect(body.error.code, query).toBe('NOT_FOUND');
      expect(body.error.message, query).toMatch(/^This audio URL is malformed: .*GET the job again for a fresh audio_url\.$/);
    }
    const tampered = await fetch(`${baseUrl}${SIGNED}`, { headers: { prefer: 'code=404, example=invalid_audio_url' } });
    expect(tampered.status).toBe(404);
    expect(((await tampered.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    const beyond = await fetch(`${baseUrl}${SIGNED}`, { headers: { range: 'bytes=999999-' } });
    expect(beyond.status).toBe(416);
  });

  it('serves a completed job with word timings: Prefer: example=completed_with_timings on POST and GET', async () => {
    const submitted = await call('/v1/agent-tts', {
      method: 'POST',
      body: JSON.stringify({ text: TIMINGS_EXAMPLE_TEXT, timestamps: 'word' }),
      prefer: 'example=completed_with_timings',
    });
    expect(submitted.status).toBe(200);
    // The example's URLs, on the mock's own origin (they download from it).
    const timingsOnMock = JSON.parse(JSON.stringify(completedJobWithTimingsExample.timings).replaceAll(`${EXAMPLE_ORIGIN}/`, `${baseUrl}/`));
    expect((await submitted.json()).timings).toEqual(timingsOnMock);
    const polled = await call('/v1/agent-tts?id=3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', { prefer: 'code=200, example=completed_with_timings' });
    expect(polled.status).toBe(200);
    const job = await polled.json();
    expect([job.status, job.timings]).toEqual(['completed', timingsOnMock]);
    // Without the example, the base answer: no timings.
    const plain = await call('/v1/agent-tts', { method: 'POST', body: JSON.stringify({ text: 'Hi' }) });
    expect((await plain.json()).timings).toBeUndefined();
  });

  const CAPTIONS = '/v1/captions/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
  const CAPTION_QUERY = '?expires=1775000000&sig=Q2v1p8x0cJ9mT3kL6wR4yB7nH5dF2sA0zE8uG1iO4qW';

  it('downloads the timings and captions example in the format the URL names, whatever the Accept header', async () => {
    const expected = {
      vtt: ['text/vtt; charset=utf-8', renderWebVtt(wordTimingsFileExample)],
      srt: ['application/x-subrip; charset=utf-8', renderSrt(wordTimingsFileExample)],
      json: ['application/json', JSON.stringify(wordTimingsFileExample)],
    } as const;
    for (const accept of [undefined, '*/*', 'application/json']) {
      for (const [format, [type, body]] of Object.entries(expected)) {
        const res = await fetch(`${baseUrl}${CAPTIONS}.${format}${CAPTION_QUERY}`, { headers: accept ? { accept } : {} });
        expect([res.status, res.headers.get('content-type')], `${format}, Accept ${accept}`).toEqual([200, type]);
        expect(res.headers.get('cache-control')).toBe('private, max-age=3600');
        const text = await res.text();
        if (format === 'json') expect(JSON.parse(text)).toEqual(JSON.parse(body));
        else expect(text, `${format}, Accept ${accept}`).toBe(body);
      }
    }
    // HEAD: the GET's headers, no body.
    const head = await fetch(`${baseUrl}${CAPTIONS}.vtt${CAPTION_QUERY}`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'text/vtt; charset=utf-8', '']);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(expected.vtt[1])));
    // The example is a timings file of its text that the suite's checks pass.
    expect(timingsProblems(TIMINGS_EXAMPLE_TEXT, wordTimingsFileExample)).toEqual([]);
  });

  it('answers a malformed caption URL with its 404 example, and errors chosen with Prefer as JSON', async () => {
    for (const query of ['?expires=1775000000&sig=bad', '?expires=1775000000', '']) {
      const bad = await fetch(`${baseUrl}${CAPTIONS}.vtt${query}`);
      expect([bad.status, bad.headers.get('content-type')], query).toEqual([404, 'application/json']);
      expect(((await bad.json()) as { error: { message: string } }).error.message, query).toMatch(/ is malformed: /);
    }
    for (const [prefer, status] of [
      ['code=404, example=invalid_caption_url', 404],
      ['code=503, example=audio_store_unreachable', 503],
      ['code=500', 500],
    ] as const) {
      const res = await fetch(`${baseUrl}${CAPTIONS}.srt${CAPTION_QUERY}`, { headers: { prefer } });
      expect([res.status, res.headers.get('content-type')], prefer).toEqual([status, 'application/json']);
      expect(((await res.json()) as { success: boolean }).success).toBe(false);
    }
  });

  it('sends each response’s header examples (mock/README.md quotes them): the rate-limit headers of the operation’s own policy', async () => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'openapi/openapi.json'), 'utf8'));
    const JOB = '/v1/agent-tts?id=3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
    for (const [method, path, status] of [
      ['POST', '/v1/agent-tts', 429],
      ['GET', JOB, 429],
      ['GET', JOB, 200],
      ['POST', '/v1/agent-tts', 200],
    ] as const) {
      const res = await call(path, { method, body: method === 'POST' ? JSON.stringify({ text: 'Hi' }) : undefined, prefer: `code=${status}` });
      expect(res.status).toBe(status);
      await res.arrayBuffer();
      const documented = doc.paths['/v1/agent-tts'][method.toLowerCase()].responses[status].headers as Record<string, { example: string }>;
      for (const name of ['RateLimit-Policy', 'RateLimit', 'Retry-After', 'X-Request-Id']) {
        expect(res.headers.get(name), `${method} ${status} ${name}`).toBe(documented[name]?.example ?? null);
      }
      expect(res.headers.get('ratelimit-policy')).toMatch(method === 'POST' ? /^"post";/ : /^"get";/);
    }
  });

  describe('the suite with --profile mock', () => {
    let run: CliRun;
    beforeAll(async () => {
      run = await runConformanceCli(['--profile', 'mock', '--base-url', baseUrl]);
    }, 120_000);
    afterAll(async () => {
      if (run) await removeDir(run.outputDir);
    });

    it('passes the stateless rules, with no failure and no error', () => {
      const bad = run.results.rules.filter((r: { outcome: string }) => r.outcome === 'fail' || r.outcome === 'error');
      expect(bad.map((r: { id: string; message: string }) => `${r.id}: ${r.message}`)).toEqual([]);
      expect(run.results.counts.pass).toBeGreaterThanOrEqual(25);
      expect(run.code).toBe(0);
    });

    it('skips each stateful rule for the profile, saying why', () => {
      const skipped = run.results.rules.filter((r: { outcome: string }) => r.outcome === 'skip');
      expect(skipped.length).toBeGreaterThan(0);
      for (const rule of skipped) {
        expect(rule.skip_kind).toBe('profile');
        expect(rule.message).toMatch(/^not applicable to profile mock: \S/);
      }
      for (const id of ['idempotency.same-key-same-job', 'rate-limit.get', 'cors.denied-origin']) expect(run.outcomes[id]).toBe('skip');
      for (const id of ['errors.body-shape', 'openapi.examples', 'job.completed-fields', 'legacy.file-expired']) expect(run.outcomes[id]).toBe('pass');
    });
  });
});
