import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP relay on a free loopback port in front of a server (an S3 endpoint), for faults the server
 * itself cannot show:
 * - `hang()`: connections are accepted (and kept) but nothing is relayed either way, on new and open
 *   connections alike: a store that takes the connection and never answers (a stuck load balancer, a
 *   frozen process). `relay()` undoes it for new connections.
 * - `bytesPerSecond`: the client's bytes reach the server at about that rate: a slow but moving link.
 */
export interface TcpProxy {
  port: number;
  endpoint: string;
  hang(): void;
  relay(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host?: string; port: number }, options: { bytesPerSecond?: number } = {}): Promise<TcpProxy> {
  let hanging = false;
  const pairs = new Set<{ client: Socket; upstream?: Socket }>();
  const server: Server = createServer((client) => {
    client.on('error', () => undefined);
    const pair: { client: Socket; upstream?: Socket } = { client };
    pairs.add(pair);
    client.on('close', () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    // A hung store: the connection stays open and silent (its bytes are read and dropped).
    if (hanging) {
      client.resume();
      return;
    }
    const upstream = connect(target.port, target.host ?? '127.0.0.1');
    pair.upstream = upstream;
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    upstream.on('data', (chunk) => {
      if (!hanging) client.write(chunk);
    });
    let ready = Promise.resolve();
    client.on('data', (chunk: Buffer) => {
      if (hanging) return;
      if (!options.bytesPerSecond) {
        upstream.write(chunk);
        return;
      }
      // Throttled: each piece of 16 KiB leaves after the time the rate gives it.
      client.pause();
      ready = ready.then(async () => {
        for (let i = 0; i < chunk.byteLength; i += 16_384) {
          const piece = chunk.subarray(i, i + 16_384);
          await new Promise((r) => setTimeout(r, (piece.byteLength / options.bytesPerSecond!) * 1000));
          if (!hanging) upstream.write(piece);
        }
        client.resume();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    endpoint: `http://127.0.0.1:${port}`,
    hang: () => {
      hanging = true;
    },
    relay: () => {
      hanging = false;
    },
    close: async () => {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
