import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { API_VERSION } from '@agent-tts/contract/limits.js';
import { ConfigError } from '../config/error.js';
import { closeServer, listen } from './listen.js';

/** A listener of this process on a free port (no spawned server), spoken to over a raw socket. */
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(closeServer));
});

async function start(options: Parameters<typeof listen>[4] = {}, fetch = (_req: Request) => new Response('hello')) {
  const server = await listen(fetch, 0, '127.0.0.1', 'PORT', options);
  servers.push(server);
  return { server, port: (server.address() as AddressInfo).port };
}

function raw(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      out += d;
    });
    socket.on('end', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.end(request);
  });
}

const headersOf = (answer: string) =>
  new Map(
    answer
      .split('\r\n\r\n')[0]!
      .split('\r\n')
      .slice(1)
      .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
const jsonOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('listen', () => {
  it('serves the app’s fetch on the port', async () => {
    const { port } = await start({}, (req) => new Response(`you asked ${new URL(req.url).pathname}`));
    const res = await fetch(`http://127.0.0.1:${port}/v1/agent-tts`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('you asked /v1/agent-tts');
  });

  it('answers malformed HTTP with the API’s error body, request id and extra headers, and tells the observer', async () => {
    const refused: Array<{ requestId: string; requestLine?: string }> = [];
    const { port } = await start({ headers: { 'Agent-TTS-Sandbox': '1' }, onClientError: (r) => refused.push(r) });
    const answer = await raw(port, 'GET /v1/agent-tts HTTP/1.1\r\nHost: x\r\nX-Bad\x01: y\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const headers = headersOf(answer);
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('connection')).toBe('close');
    expect(headers.get('agent-tts-sandbox')).toBe('1');
    expect(jsonOf(answer)).toEqual({
      success: false,
      error: { code: 'INVALID_REQUEST', message: 'The HTTP request is malformed (request line or headers).' },
      meta: { request_id: headers.get('x-request-id'), api_version: API_VERSION },
    });
    expect(refused).toEqual([{ requestId: headers.get('x-request-id'), requestLine: 'GET /v1/agent-tts HTTP/1.1' }]);
  });

  it('answers oversized headers with the error body too, and survives an observer that throws', async () => {
    const { port } = await start({
      onClientError: () => {
        throw new Error('observer failed');
      },
    });
    const answer = await raw(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 4/);
    expect(jsonOf(answer).success).toBe(false);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
  });

  it('names the variable when the port is in use', async () => {
    const { port } = await start();
    const clash = await listen(() => new Response(''), port, '127.0.0.1', 'VOICES_PORT').catch((e: unknown) => e);
    expect(clash).toBeInstanceOf(ConfigError);
    expect((clash as Error).message).toBe(`VOICES_PORT: port ${port} on 127.0.0.1 is in use`);
  });

  it('closes at once, idle keep-alive connections included', async () => {
    const { server, port } = await start();
    expect((await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'keep-alive' } })).status).toBe(200);
    servers.splice(servers.indexOf(server), 1);
    const started = Date.now();
    await closeServer(server);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.listening).toBe(false);
  });
});
