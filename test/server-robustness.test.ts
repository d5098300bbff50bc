import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, expectMeta, postJob } from './helpers/http.js';
import { removeDir, startServer, type RunningServer } from './helpers/server.js';

/** Sends raw bytes and returns the raw HTTP response. */
function raw(baseUrl: string, payload: Buffer | string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = '';
    socket.on('data', (d) => (data += d));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => reject(new Error(`no answer; got ${data}`)));
    socket.end(payload);
  });
}

const jsonOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n/, ''));

describe('bad input never yields a 500, a hang or a crash (issue: robustness)', () => {
  let server: RunningServer;
  let key: string;
  beforeAll(async () => {
    server = await startServer({ env: { RATE_POST_LIMIT: '1000', MAX_BODY_BYTES: '2500000' } });
    key = server.fixtures.keys.active[0];
  });
  afterAll(async () => {
    await server.stop();
    await removeDir(server.dataDir);
  });

  it('answers INVALID_REQUEST for wrong types and missing fields', async () => {
    const bodies: unknown[] = [
      {},
      { text: 42 },
      { text: null },
      { text: ['a'] },
      { text: 'x', speed: '1' },
      { text: 'x', speed: 0.49 },
      { text: 'x', speed: 1.51 },
      { text: 'x', speed: null },
      { text: 'x', voice: 'zz_bad' },
      { text: 'x', voice: 'st_f6' },
      { text: 'x', voice: 7 },
      { text: 'x', language: 'xx' },
      { text: 'x', language: 'EN' },
      { text: '   \n\t ' },
      [],
      'text',
      null,
      123,
    ];
    for (const body of bodies) {
      const res = await postJob(server.baseUrl, key, JSON.stringify(body));
      expectError(res, 400, 'INVALID_REQUEST');
    }
  });

  it('counts text length in code points: 500,000 is accepted by validation, 500,001 is TEXT_TOO_LONG', async () => {
    const over = await postJob(server.baseUrl, key, { text: 'a'.repeat(500_001) });
    expectError(over, 400, 'TEXT_TOO_LONG');
    const emojiOver = await postJob(server.baseUrl, key, { text: '😀'.repeat(500_001) });
    expectError(emojiOver, 400, 'TEXT_TOO_LONG');
    // 500,000 emoji are 1,000,000 UTF-16 units but within the limit: not TEXT_TOO_LONG (the free
    // usage plan refuses it instead, which also proves validation passed).
    const account = JSON.parse((await server.admin(['account', 'create', '--name', 'cp', '--plan', 'free', '--json'])).stdout);
    const freeKey = (await server.admin(['key', 'create', '--account', account.id])).stdout.trim();
    expectError(await postJob(server.baseUrl, freeKey, { text: '😀'.repeat(500_000) }), 403, 'USAGE_LIMIT_EXCEEDED');
  });

  it('refuses malformed JSON, wrong content types and invalid UTF-8', async () => {
    expectError(await postJob(server.baseUrl, key, '{"text": "unterminated'), 400, 'INVALID_REQUEST');
    expectError(await postJob(server.baseUrl, key, ''), 400, 'INVALID_REQUEST');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      expectError(await postJob(server.baseUrl, key, '{"text":"hi"}', { 'content-type': type }), 400, 'INVALID_REQUEST');
    }
    const noType = await call(`${server.baseUrl}/v1/agent-tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: new Uint8Array(Buffer.from('{"text":"hi"}')),
    });
    expectError(noType, 400, 'INVALID_REQUEST');
    const badUtf8 = Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    const res = await call(`${server.baseUrl}/v1/agent-tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: new Uint8Array(badUtf8),
    });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toMatch(/UTF-8/);
  });

  it('refuses a body over the size limit with the error body, declared or streamed', async () => {
    const huge = JSON.stringify({ text: 'a'.repeat(3_000_000) });
    expectError(await postJob(server.baseUrl, key, huge), 400, 'TEXT_TOO_LONG');
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 50; i++) controller.enqueue(new TextEncoder().encode('a'.repeat(100_000)));
        controller.close();
      },
    });
    const chunked = await call(`${server.baseUrl}/v1/agent-tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expectError(chunked, 400, 'TEXT_TOO_LONG');
  });

  it('answers malformed HTTP (bad header bytes, oversized headers) with a JSON error body', async () => {
    const badHeader = await raw(server.baseUrl, 'GET /v1/agent-tts HTTP/1.1\r\nHost: x\r\nX-Bad\x01: y\r\n\r\n');
    expect(badHeader).toMatch(/^HTTP\/1\.1 400/);
    expect(jsonOf(badHeader).error.code).toBe('INVALID_REQUEST');
    expect(jsonOf(badHeader).meta.api_version).toBe('2026-04');
    const bigHeader = await raw(server.baseUrl, `GET /v1/agent-tts HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(bigHeader).toMatch(/^HTTP\/1\.1 4/);
    expect(jsonOf(bigHeader).success).toBe(false);
    const latin1Auth = await raw(server.baseUrl, Buffer.from('GET /v1/agent-tts?id=x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xe9\xe9\r\nConnection: close\r\n\r\n', 'latin1'));
    expect(latin1Auth).toMatch(/^HTTP\/1\.1 401/);
  });

  it('answers unknown routes with 404 and known routes with a wrong method with 405 and Allow', async () => {
    const unknown = await call(`${server.baseUrl}/v2/agent-tts`);
    expectError(unknown, 404, 'NOT_FOUND');
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const res = await call(`${server.baseUrl}/v1/agent-tts`, { method, headers: { authorization: `Bearer ${key}` } });
      expectError(res, 405, 'INVALID_REQUEST');
      expect(res.headers.get('allow')).toBe('GET, POST, OPTIONS');
    }
    expectError(await call(`${server.voicesUrl}/nope`), 404, 'NOT_FOUND');
    expectError(await call(`${server.voicesUrl}/api/v1/voices`, { method: 'POST' }), 405, 'INVALID_REQUEST');
  });

  it('serves the public voice catalog on its own listener without authentication', async () => {
    const res = await call(`${server.voicesUrl}/api/v1/voices`);
    expect(res.status).toBe(200);
    expectMeta(res);
    expect(res.body.count).toBe(res.body.voices.length);
    expect(res.body.count).toBeGreaterThan(300);
    const ids = new Set(res.body.voices.map((v: { id: string }) => v.id));
    for (const id of ['af_heart', 'st_m1', 'st_f5', 'zm_chen', 'bm_george']) expect(ids.has(id)).toBe(true);
  });

  it('is still healthy after all of that: no 500 in the logs', async () => {
    expect(server.logs()).not.toMatch(/"status":5\d\d/);
    expect([200, 202]).toContain((await postJob(server.baseUrl, key, { text: 'Still here.' })).status);
  });
});
