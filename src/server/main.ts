import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import { API_VERSION } from '../contract/limits.js';
import { voiceCatalog } from '../synth/index.js';
import { ConfigError, loadConfig } from './config.js';
import { sweepExpiredJobs } from './domain/retention.js';
import { createApp } from './http/app.js';
import { boundUnreadBodies } from './http/unread-body.js';
import { createVoicesApp } from './http/voices-app.js';
import { createLogger } from './log.js';
import { handleProcessArgs, SERVER_HELP } from './process-args.js';
import { createServices } from './services.js';

/**
 * Errors the HTTP parser raises before any handler runs (malformed request line or headers, headers
 * too large) still get the spec's error body, not a bare "400 Bad Request".
 */
function answerClientErrors(server: Server): void {
  server.on('clientError', (_error: Error, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const requestId = randomUUID();
    const body = JSON.stringify({
      success: false,
      error: { code: 'INVALID_REQUEST', message: 'The HTTP request is malformed (request line or headers).' },
      meta: { request_id: requestId, api_version: API_VERSION },
    });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/** Listening errors that come from the configuration name the variable and exit with code 2. */
function listenError(error: NodeJS.ErrnoException, variable: string, port: number, hostname: string): Error {
  const reasons: Record<string, string> = {
    EADDRINUSE: `port ${port} on ${hostname} is in use`,
    EACCES: `port ${port} needs privileges this process does not have`,
    EADDRNOTAVAIL: `HOST ${hostname} is not an address of this machine`,
  };
  const reason = error.code ? reasons[error.code] : undefined;
  return reason ? new ConfigError(`${error.code === 'EADDRNOTAVAIL' ? 'HOST' : variable}: ${reason}`) : error;
}

function listen(fetch: (req: Request) => Response | Promise<Response>, port: number, hostname: string, variable: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    // Unread request bodies are discarded by Node, within the bounds set in unread-body.ts (the
    // adapter's own clean-up would close such connections after half a second).
    const server = serve({ fetch, port, hostname, autoCleanupIncoming: false }, () => resolve(server as Server)) as Server;
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, variable, port, hostname)));
    answerClientErrors(server);
    boundUnreadBodies(server);
    // Inline waits last up to ~10 s; keep idle sockets short so shutdown is prompt.
    server.keepAliveTimeout = 5_000;
    server.headersTimeout = 20_000;
    server.requestTimeout = 120_000;
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

async function main(): Promise<void> {
  handleProcessArgs('agent-tts-server', SERVER_HELP);
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`agent-tts-server: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  const services = await createServices(config, log);
  const shutdown = new AbortController();
  const app = createApp({ ...services, log, shutdown: shutdown.signal });
  const voicesApp = createVoicesApp(voiceCatalog(config.engine, config.upstream), config.cors.origins, config.cors.previewPattern);

  const api = await listen(app.fetch, config.port, config.host, 'PORT');
  const voices = await listen(voicesApp.fetch, config.voicesPort, config.host, 'VOICES_PORT');
  const apiPort = (api.address() as { port: number }).port;
  const voicesPort = (voices.address() as { port: number }).port;
  const resumed = await services.resumeInterrupted();
  log.info(
    { port: apiPort, voices_port: voicesPort, data_dir: config.dataDir, resumed_jobs: resumed, mode: config.redisUrl ? 'redis' : 'embedded' },
    `agent-tts listening on http://${config.host}:${apiPort} (voices on port ${voicesPort})`,
  );

  const sweep = async () => {
    await sweepExpiredJobs(services.store, services.audio, log).catch((error: unknown) => log.error({ err: error }, 'retention sweep failed'));
  };
  await sweep();
  const sweeper = setInterval(() => void sweep(), config.retentionSweepMs);
  sweeper.unref();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new connections; in-flight requests finish');
    clearInterval(sweeper);
    const force = setTimeout(() => {
      log.warn('shutdown grace period over; closing the remaining connections');
      shutdown.abort();
      api.closeAllConnections();
      voices.closeAllConnections();
    }, config.shutdownGraceMs);
    force.unref();
    await Promise.all([closeServer(api), closeServer(voices)]);
    clearTimeout(force);
    // Jobs still running stay `processing` and resume at the next start.
    await services.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`agent-tts-server: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`agent-tts-server: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
