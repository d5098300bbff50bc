import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessHttp, type SeededServer } from '../../../test/helpers/in-process.js';
import { closeServer, listen } from './listen.js';

/**
 * Sends `head` and the start of a body, keeps the connection open (or half-closes it), and returns
 * everything the server wrote until it closed.
 */
function partialPost(port: number, head: string, partialBody: string, halfClose: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      out += d;
    });
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    if (halfClose) socket.end(head + partialBody);
    else socket.write(head + partialBody);
  });
}

describe("who ended it (docs/api-rules.md#errors): the server's request timeout answers and counts 408", () => {
  let server: SeededServer;
  let listener: Server;
  let port: number;
  beforeAll(async () => {
    server = await startInProcessHttp({}, { synth: 'instant' });
    listener = await listen(server.inProcess.app.fetch, 0, '127.0.0.1', 'PORT', { requestTimeoutMs: 1_000 });
    port = (listener.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await closeServer(listener);
    await server.close();
  });

  const head = (key: string) =>
    `POST /v1/agent-tts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;

  it('answers a body still short at the timeout 408 with the error body, and logs and counts that request 408', async () => {
    const answer = await partialPost(port, head(server.fixtures.keys.active[0]!), '{"text":"slow', false);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(body.error.code).toBe('INVALID_REQUEST');
    expect(body.error.message).toMatch(/request timeout \(1 s/);
    const requestId = /X-Request-Id: (\S+)/i.exec(answer)?.[1];
    expect(requestId).toBe(body.meta.request_id);
    // The app's log line of that request names the same id and the same status: not 499.
    await expect.poll(() => server.logs().includes(requestId!)).toBe(true);
    const lines = server
      .logs()
      .split('\n')
      .filter((l) => l.includes(requestId!))
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.msg === 'request')?.status).toBe(408);
    expect(lines.some((l) => l.status === 499)).toBe(false);
  });
});

describe('who ended it: a half-close mid-body', () => {
  let server: SeededServer;
  let listener: Server;
  let port: number;
  beforeAll(async () => {
    server = await startInProcessHttp({}, { synth: 'instant' });
    listener = await listen(server.inProcess.app.fetch, 0, '127.0.0.1', 'PORT');
    port = (listener.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await closeServer(listener);
    await server.close();
  });

  it("answers a body cut short by a half-close 400 with its own request id, which the log names, counted as the client's doing (499)", async () => {
    const key = server.fixtures.keys.active[0];
    const head = `POST /v1/agent-tts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const answer = await partialPost(port, head, '{"text":"cut', true);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(body.error.code).toBe('INVALID_REQUEST');
    expect(body.error.message).toMatch(/closed its sending side mid-body/);
    const requestId = body.meta.request_id as string;
    await expect.poll(() => server.logs().includes(requestId)).toBe(true);
    const lines = server
      .logs()
      .split('\n')
      .filter((l) => l.includes(requestId))
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.msg === 'request')?.status).toBe(499);
    expect(lines.some((l) => l.msg === 'client closed the connection before the body was complete')).toBe(true);
  });
});
