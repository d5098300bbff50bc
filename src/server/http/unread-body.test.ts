import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServer, listen } from './listen.js';
import { boundUnreadBodies, discardRest } from './unread-body.js';

/**
 * Bodies answered before they were read, on listeners of this process (no spawned server), spoken to
 * over raw sockets: the connection is kept for the next request, a `Connection: close` client may
 * finish writing, and past the bound the connection is closed.
 */
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(closeServer));
});

/** Answers a POST at once: 400 after reading 1 byte (the rest discarded), 401 with nothing read. */
async function refuse(req: Request): Promise<Response> {
  if (req.method !== 'POST') return new Response('next', { status: 200 });
  if (new URL(req.url).pathname === '/unauthorized') return new Response('no', { status: 401 });
  const reader = req.body!.getReader();
  await reader.read();
  discardRest(reader);
  return new Response('too long', { status: 400 });
}

async function start(limits?: { maxBytes: number; maxMs: number }): Promise<number> {
  let server: Server;
  if (limits) {
    server = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: refuse, port: 0, hostname: '127.0.0.1', autoCleanupIncoming: false }, () => resolve(s as Server)) as Server;
    });
    boundUnreadBodies(server, limits);
  } else {
    server = await listen(refuse, 0, '127.0.0.1', 'PORT');
  }
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

function open(port: number): { socket: Socket; answer: () => string; closed: Promise<void> } {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let answer = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => {
    answer += d;
  });
  socket.on('error', () => undefined);
  // Half-open allowed, as a client that goes on writing after the server's FIN would be: the server's
  // side ending ('end') is what tells it the connection is over.
  const closed = new Promise<void>((resolve) => {
    socket.on('end', () => resolve());
    socket.on('close', () => resolve());
  });
  return { socket, answer: () => answer, closed };
}

const write = (socket: Socket, data: string | Buffer) =>
  new Promise<Error | undefined | null>((resolve) => {
    socket.write(data, (error) => resolve(error));
  });

const statuses = (answer: string) => [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);

describe('unread request bodies', () => {
  it('are read to their end, and the connection serves the next request', async () => {
    const port = await start();
    const size = 3_000_000;
    for (const path of ['/', '/unauthorized']) {
      const { socket, answer, closed } = open(port);
      await write(socket, `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${size}\r\n\r\n`);
      await write(socket, Buffer.alloc(size, 0x20));
      socket.end('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await closed;
      expect(statuses(answer())).toEqual([path === '/' ? '400' : '401', '200']);
      expect(answer()).toMatch(/\r\n\r\nnext$/);
    }
  });

  it('lets a Connection: close client write the rest of its body after the answer (lingering close)', async () => {
    const port = await start();
    const size = 3_000_000;
    const { socket, answer, closed } = open(port);
    await write(socket, `POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${size}\r\n\r\n`);
    await write(socket, Buffer.alloc(1, 0x20));
    await expect.poll(answer, { timeout: 5_000, interval: 5 }).toMatch(/^HTTP\/1\.1 400 /);
    // The answer is out; the client writes its body on, and no write is refused.
    const errors: Array<Error | undefined | null> = [];
    for (let i = 0; i < 10; i++) errors.push(await write(socket, Buffer.alloc((size - 1) / 10, 0x20)));
    expect(errors.filter(Boolean)).toEqual([]);
    socket.end();
    await closed;
    expect(answer()).toMatch(/connection: close/i);
  });

  it('closes the connection of a body that goes on past the bound, read in part or not at all', async () => {
    const port = await start({ maxBytes: 1024 * 1024, maxMs: 30_000 });
    for (const path of ['/', '/unauthorized']) {
      const { socket, answer, closed } = open(port);
      await write(socket, `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${400 * 1024 * 1024}\r\n\r\n`);
      let sent = 0;
      let ended = false;
      void closed.then(() => {
        ended = true;
      });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      while (!ended && sent < 100 * 1024 * 1024) {
        const error = await write(socket, chunk);
        if (error) break;
        sent += chunk.length;
      }
      await closed;
      expect(sent).toBeLessThan(100 * 1024 * 1024);
      expect(statuses(answer())).toEqual([path === '/' ? '400' : '401']);
    }
  });

  it('closes it after the time bound too', async () => {
    const port = await start({ maxBytes: 1024 * 1024 * 1024, maxMs: 200 });
    const { socket, closed } = open(port);
    await write(socket, `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n `);
    const started = Date.now();
    await closed;
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('discardRest', () => {
  it('reads a stream to its end, and ends quietly on an error', async () => {
    let pulls = 0;
    const finite = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (++pulls > 3) controller.close();
        else controller.enqueue(new Uint8Array(1));
      },
    });
    discardRest(finite.getReader());
    await expect.poll(() => pulls).toBe(4);
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('client went away'));
      },
    });
    expect(() => discardRest(failing.getReader())).not.toThrow();
  });
});
