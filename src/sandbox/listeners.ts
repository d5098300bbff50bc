/** The listeners of a sandbox: which hosts it may listen on, its two listeners (API and voice catalog), and the URLs they are reached on. */
import type { Server } from 'node:http';
import { isIPv6 } from 'node:net';
import { networkInterfaces } from 'node:os';
import { ConfigError, isLoopbackHost, closeServer, listen } from '@agent-tts/server';
import type { Journal } from './journal.js';
import { journalClientError } from './journal-middleware.js';
import { SANDBOX_HEADER } from './public.js';

type Handler = (req: Request) => Response | Promise<Response>;

/** Where the listeners send requests; until the sandbox is made, both answer 503. */
export interface Routing {
  api: Handler;
  voices: Handler;
  /** Requests the HTTP parser refuses are answered by the listener: marked too, and journaled here. */
  journal?: Journal;
}

/** The routing of listeners whose sandbox is not made yet. */
export function notReadyRouting(): Routing {
  const notReady = () => new Response(null, { status: 503 });
  return { api: notReady, voices: notReady };
}

/** Refuses a host that is not a loopback address unless `allowRemote`: everyone who reaches it gets the test keys. */
export function checkHost(host: string, allowRemote: boolean | undefined): void {
  if (!allowRemote && !isLoopbackHost(host)) {
    throw new ConfigError(
      `host ${JSON.stringify(host)} is not a loopback address: the sandbox would hand its test keys (GET /sandbox), its clock and its request journal to every machine that can reach it. ` +
        'Listen on 127.0.0.1, ::1 or localhost, or pass allowRemote: true to listen there anyway.',
    );
  }
}

/**
 * Opens the API's listener, then the voice catalog's, on `host`, each answer marked as the sandbox's;
 * the ports are read when each listener opens. When one fails, the other is closed.
 */
export async function openListeners(host: string, ports: { api: () => number; voices: () => number }, routing: Routing): Promise<Server[]> {
  const mark = { [SANDBOX_HEADER]: '1' };
  const servers: Server[] = [];
  try {
    servers.push(
      await listen((req) => routing.api(req), ports.api(), host, '--port', {
        headers: mark,
        onClientError: ({ requestLine }) => routing.journal && journalClientError(routing.journal, requestLine),
      }),
    );
    servers.push(await listen((req) => routing.voices(req), ports.voices(), host, '--voices-port', { headers: mark }));
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
  return servers;
}

/** The listeners' own origins, and where the API listens with the URLs it can be reached on. */
export function originsOf(host: string, servers: Server[]) {
  const [port, voicesPort] = servers.map((s) => (s.address() as { port: number }).port) as [number, number];
  // On a wildcard address the API is reached (and audio URLs point) on this machine's loopback.
  const urlHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : isIPv6(host) ? `[${host}]` : host;
  const ownUrl = `http://${urlHost}:${port}`;
  const ownVoicesUrl = `http://${urlHost}:${voicesPort}`;
  return { ownUrl, ownVoicesUrl, listening: { host, port, voicesPort, urls: reachableUrls(host, ownUrl, port) } };
}

/** The URLs of the API: on a wildcard address one per address of this machine's interfaces, else `baseUrl`. */
function reachableUrls(host: string, baseUrl: string, port: number): string[] {
  if (host !== '0.0.0.0' && host !== '::') return [baseUrl];
  const urls: string[] = [];
  for (const address of Object.values(networkInterfaces()).flat()) {
    if (!address) continue;
    if (address.family === 'IPv4') urls.push(`http://${address.address}:${port}`);
    // Link-local IPv6 addresses need a zone to be reached; they are left out.
    else if (host === '::' && !address.address.toLowerCase().startsWith('fe80:')) urls.push(`http://[${address.address}]:${port}`);
  }
  return urls.length > 0 ? urls : [baseUrl];
}
