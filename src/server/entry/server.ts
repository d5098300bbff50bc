import { sayAwsSdkNodeWarning } from './aws-sdk-warning.js';
import type { Server } from 'node:http';
import { createApi } from '../create-api.js';
import { loadConfig } from '../config.js';
import { scheduleSweeps, storageSweepRound } from '../domain/retention.js';
import { createOpsApp, opsDepsOf, serverHosts } from '../http/apps.js';
import { closeServer, listen } from '../http/listen.js';
import { pollFastPath } from '../http/poll-fast-path.js';
import { createLogger } from '../log.js';
import { recordOrigin } from './public-origin.js';
import { exitOnStartFailure, handleProcessArgs, SERVER_HELP } from './process-args.js';

/** `agent-tts-server`: the API, the voice catalog and (with OPS_PORT) the operations listener. */
async function main(): Promise<void> {
  handleProcessArgs('agent-tts-server', SERVER_HELP);
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'agent-tts', { asyncStdout: true });
  if (config.dataDirCreated) log.info({ data_dir: config.dataDir }, 'created the data directory (DATA_DIR); its parent existed');
  sayAwsSdkNodeWarning(config, log, process.env);
  const shutdown = new AbortController();
  const withOps = config.opsPort === undefined;
  const { app, voicesApp, services } = await createApi({ config, log, shutdown: shutdown.signal, withOps });

  const servers: Server[] = [];
  // Signal handlers before the first listener and the line that says it listens: until then a SIGTERM
  // (which a reader of that line may send the next instant) ends the process at once, with no shutdown.
  let sweeps: { stop(): void } | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new connections; in-flight requests finish');
    sweeps?.stop();
    // The whole shutdown fits the grace period, whatever the backends do: connections still open
    // 5 s before its end (or at half of a shorter one) are closed, leaving the rest for the backend
    // clients to close, and the process exits at its end even if a backend (an unreachable Redis)
    // has not answered. Jobs still running stay `processing` and
    // resume at the next start (or are taken back by the stalled-job check of another worker).
    const force = setTimeout(
      () => {
        log.warn('shutdown grace period nearly over; closing the remaining connections');
        shutdown.abort();
        for (const server of servers) server.closeAllConnections();
      },
      config.shutdownGraceMs - Math.min(5_000, config.shutdownGraceMs / 2),
    );
    force.unref();
    const deadline = setTimeout(() => {
      log.warn({ grace_ms: config.shutdownGraceMs }, 'shutdown grace period over with backend clients still closing; exiting');
      process.exit(0);
    }, config.shutdownGraceMs);
    deadline.unref();
    await Promise.all(servers.map(closeServer));
    clearTimeout(force);
    // Jobs still running stay `processing` and resume at the next start.
    await services.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  const api = await listen(app.fetch, config.port, config.host, 'PORT', { ahead: pollFastPath(services, log) });
  servers.push(api);
  const voices = await listen(voicesApp.fetch, config.voicesPort, config.host, 'VOICES_PORT');
  servers.push(voices);
  const ops = withOps ? undefined : await listen(createOpsApp(opsDepsOf(services, log), serverHosts(config)).fetch, config.opsPort!, config.host, 'OPS_PORT');
  if (ops) servers.push(ops);
  const portOf = (s: Server) => (s.address() as { port: number }).port;
  // For agent-tts-admin run in another shell: its sign-in links and fixtures use this server's origin.
  recordOrigin(config, { api: portOf(api), voices: portOf(voices) });
  const resumed = await services.resumeInterrupted();
  log.info(
    {
      port: portOf(api),
      voices_port: portOf(voices),
      ops_port: ops ? portOf(ops) : undefined,
      data_dir: config.dataDir,
      resumed_jobs: resumed,
      mode: config.redisUrl ? 'redis' : 'embedded',
      synth_engine: services.synthEngine?.name,
      synth_engine_detail: services.synthEngine?.detail,
    },
    `agent-tts listening on http://${config.host}:${portOf(api)} (voices on port ${portOf(voices)}; speech: ${services.synthEngine?.name ?? 'estimates only, no local synthesis'})`,
  );

  const scheduled = await scheduleSweeps(storageSweepRound(services.store, services.audio, log, services.clock), {
    intervalMs: config.retentionSweepMs,
    runNow: true,
  });
  if (stopping) scheduled.stop();
  else sweeps = scheduled;
}

main().catch(exitOnStartFailure('agent-tts-server'));
