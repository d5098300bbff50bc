import type { Server } from 'node:http';
import { voiceCatalog } from '../synth/index.js';
import { composeApi } from '../compose.js';
import { loadConfig } from '../config.js';
import { scheduleSweeps, storageSweepRound } from '../domain/retention.js';
import { createApiApp, createOpsApp, createVoicesApp, opsDepsOf } from '../http/apps.js';
import { closeServer, listen } from '../http/listen.js';
import { createLogger } from '../log.js';
import { exitOnStartFailure, handleProcessArgs, SERVER_HELP } from './process-args.js';

/** `agent-tts-server`: the API, the voice catalog and (with OPS_PORT) the operations listener. */
async function main(): Promise<void> {
  handleProcessArgs('agent-tts-server', SERVER_HELP);
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'agent-tts', { asyncStdout: true });
  const services = await composeApi(config, log);
  const shutdown = new AbortController();
  const withOps = config.opsPort === undefined;
  const app = createApiApp({ services, log, shutdown: shutdown.signal, withOps });
  const voicesApp = createVoicesApp(voiceCatalog(config.engine, config.upstream), log, config.cors);

  const servers: Server[] = [];
  const api = await listen(app.fetch, config.port, config.host, 'PORT');
  servers.push(api);
  const voices = await listen(voicesApp.fetch, config.voicesPort, config.host, 'VOICES_PORT');
  servers.push(voices);
  const ops = withOps ? undefined : await listen(createOpsApp(opsDepsOf(services, log)).fetch, config.opsPort!, config.host, 'OPS_PORT');
  if (ops) servers.push(ops);
  const portOf = (s: Server) => (s.address() as { port: number }).port;
  const resumed = await services.resumeInterrupted();
  log.info(
    {
      port: portOf(api),
      voices_port: portOf(voices),
      ops_port: ops ? portOf(ops) : undefined,
      data_dir: config.dataDir,
      resumed_jobs: resumed,
      mode: config.redisUrl ? 'redis' : 'embedded',
    },
    `agent-tts listening on http://${config.host}:${portOf(api)} (voices on port ${portOf(voices)})`,
  );

  const sweeps = await scheduleSweeps(storageSweepRound(services.store, services.audio, log, services.clock), {
    intervalMs: config.retentionSweepMs,
    runNow: true,
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new connections; in-flight requests finish');
    sweeps.stop();
    const force = setTimeout(() => {
      log.warn('shutdown grace period over; closing the remaining connections');
      shutdown.abort();
      for (const server of servers) server.closeAllConnections();
    }, config.shutdownGraceMs);
    force.unref();
    await Promise.all(servers.map(closeServer));
    clearTimeout(force);
    // Jobs still running stay `processing` and resume at the next start.
    await services.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch(exitOnStartFailure('agent-tts-server'));
