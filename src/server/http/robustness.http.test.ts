import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, expectMeta, postJob, sleep } from '../../../test/helpers/http.js';
import { listen, type ListeningServer } from '../../../test/helpers/in-process.js';

/**
 * Sends raw bytes and returns the raw HTTP response. With `halfClose: false` the socket stays open
 * for writing, and the answer is whatever the server sent before it closed the connection.
 */
function raw(baseUrl: string, payload: Buffer | string, { halfClose = true } = {}): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = '';
    socket.on('data', (d) => (data += d));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => reject(new Error(`no answer; got ${data}`)));
    if (halfClose) socket.end(payload);
    else socket.write(payload);
  });
}

interface Posted {
  status?: number;
  body?: string;
  error?: string;
}

/**
 * POSTs a body with node:http, writing it all before reading the answer, as most clients do, and
 * without any grace on a write error: EPIPE or ECONNRESET is reported as such.
 */
function postBody(baseUrl: string, body: Buffer | Readable, headers: Record<string, string>): Promise<Posted> {
  return new Promise((resolve) => {
    const req = httpRequest(new URL('/v1/agent-tts', baseUrl), { method: 'POST', headers });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, body: text }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: `response ${e.code ?? e.message}` }));
    });
    if (Buffer.isBuffer(body)) req.end(body);
    else body.pipe(req);
  });
}

const jsonOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n/, ''));

describe('bad input never yields a 500, a hang or a crash (issue: robustness)', () => {
  let server: ListeningServer;
  let key: string;
  beforeAll(async () => {
    // What is answered to bad input, not the audio: the instant synthesizer in place of eSpeak.
    server = await listen({ RATE_POST_LIMIT: '1000', MAX_BODY_BYTES: '2500000' }, { synth: 'instant' });
    key = server.fixtures.keys.active[0]!;
  });
  afterAll(async () => {
    await server.close();
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

  it('lets a client that writes a whole oversized body read the 400, declared or streamed', async () => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const big = Buffer.alloc(12 * 1024 * 1024, 0x61);
    const answers: Posted[] = [];
    for (let i = 0; i < 6; i++) {
      // Declared with Content-Length, then streamed without one (chunked), in turns.
      if (i % 2 === 0) answers.push(await postBody(server.baseUrl, big, { ...headers, 'content-length': String(big.length) }));
      else answers.push(await postBody(server.baseUrl, Readable.from([big.subarray(0, 6 << 20), big.subarray(6 << 20)]), headers));
    }
    for (const answer of answers) {
      expect(answer.error).toBeUndefined();
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body!).error.code).toBe('TEXT_TOO_LONG');
    }
    // A body sent with a bad key is answered 401 before it is read; the client still gets the answer.
    const unauthorized = await postBody(server.baseUrl, big, { ...headers, authorization: 'Bearer tts_nope_nope', 'content-length': String(big.length) });
    expect(unauthorized.error).toBeUndefined();
    expect(unauthorized.status).toBe(401);
  });

  it('reads a refused body to its end and keeps the connection for the next request', async () => {
    const size = 3_000_000;
    const first = `POST /v1/agent-tts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;
    const second = `GET /v1/agent-tts?id=00000000-0000-4000-8000-000000000000 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`;
    const answer = await raw(server.baseUrl, Buffer.concat([Buffer.from(first), Buffer.alloc(size, 0x20), Buffer.from(second)]), { halfClose: false });
    const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
    expect(statuses).toEqual(['400', '404']);
    expect(answer).toContain('"TEXT_TOO_LONG"');
    expect(answer).toContain('"NOT_FOUND"');
  });

  it('lets a Connection: close client write the rest of a refused body after the answer (lingering close)', async () => {
    const { hostname, port } = new URL(server.baseUrl);
    const size = 3_000_000;
    // Half-open allowed, as a client that goes on writing after the server's FIN would be.
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    let answer = '';
    socket.on('data', (d) => (answer += d));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.write(
      `POST /v1/agent-tts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${size}\r\n\r\n`,
    );
    while (!answer) await sleep(10);
    // The answer came at once; the client writes its body on, slowly, and no write is refused.
    let writeError: Error | undefined | null;
    for (let i = 0; i < 10; i++) {
      await sleep(50);
      await new Promise<void>((resolve) =>
        socket.write(Buffer.alloc(size / 10, 0x20), (e) => {
          writeError ??= e;
          resolve();
        }),
      );
    }
    expect(writeError ?? null).toBeNull();
    socket.end();
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('"TEXT_TOO_LONG"');
  });

  it.each([
    ['refused as too large, after part of it was read', () => `Bearer ${key}`, 400],
    ['answered 401 before any of it was read', () => 'Bearer tts_nope_nope', 401],
  ])('closes the connection of a body %s once it goes on past the discard bound', async (_what, auth, status) => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    // 400 MiB: far more than MAX_BODY_BYTES plus the 64 MiB the server discards after its answer.
    const endless = new Readable({
      read() {
        sent += chunk.length;
        this.push(sent > 400 * 1024 * 1024 ? null : chunk);
      },
    });
    const answer = await postBody(server.baseUrl, endless, { authorization: auth(), 'content-type': 'application/json' });
    expect(sent).toBeLessThan(200 * 1024 * 1024);
    if (answer.status !== undefined) expect(answer.status).toBe(status);
    else expect(answer.error).toMatch(/EPIPE|ECONNRESET/);
    expect((await call(`${server.baseUrl}/healthz`)).status).toBe(200);
  });

  it('answers malformed HTTP (bad header bytes, oversized headers) with a JSON error body', async () => {
    const badHeader = await raw(server.baseUrl, 'GET /v1/agent-tts HTTP/1.1\r\nHost: x\r\nX-Bad\x01: y\r\n\r\n');
    expect(badHeader).toMatch(/^HTTP\/1\.1 400/);
    expect(jsonOf(badHeader).error.code).toBe('INVALID_REQUEST');
    expect(jsonOf(badHeader).meta.api_version).toBe('2026-04');
    const bigHeader = await raw(server.baseUrl, `GET /v1/agent-tts HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(bigHeader).toMatch(/^HTTP\/1\.1 4/);
    expect(jsonOf(bigHeader).success).toBe(false);
    const latin1Auth = await raw(
      server.baseUrl,
      Buffer.from('GET /v1/agent-tts?id=x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xe9\xe9\r\nConnection: close\r\n\r\n', 'latin1'),
    );
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
    // OPTIONS without a preflight header asks which methods there are.
    const options = await call(`${server.baseUrl}/v1/agent-tts`, { method: 'OPTIONS', headers: { origin: 'https://app.example.com' } });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, POST, OPTIONS');
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

  it('never logs a key whole, even glued to other text in a path', async () => {
    const secret = key.split('_')[2];
    for (const path of [`/v1/${key}`, `/v1/x_${key}`, `/foo${key}bar`]) {
      expect((await call(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(404);
    }
    await sleep(100);
    expect(server.logs()).toContain('/v1/x_tts_');
    expect(server.logs()).not.toContain(secret);
  });

  it('is still healthy after all of that: no 500 in the logs', async () => {
    expect(server.logs()).not.toMatch(/"status":5\d\d/);
    expect([200, 202]).toContain((await postJob(server.baseUrl, key, { text: 'Still here.' })).status);
  });
});
