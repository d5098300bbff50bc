import { sayAwsSdkNodeWarning } from './aws-sdk-warning.js';
import type { Server } from 'node:http';
import { composeWorker } from '../compose.js';
import { loadConfig } from '../config.js';
import { ConfigError } from '../config/error.js';
import { Readiness } from '../domain/readiness.js';
import { createOpsApp, serverHosts } from '../http/apps.js';
import { closeServer, listen } from '../http/listen.js';
import { createLogger } from '../log.js';
import { redactUrl } from '../redact.js';
import { exitOnStartFailure, handleProcessArgs, WORKER_HELP } from './process-args.js';

/**
 * A synthesis worker process of the distributed mode (`agent-tts-worker`, `npm run worker`): takes
 * jobs from the Redis queue, synthesizes them into the audio storage and settles them in the store.
 * Run as many as the machines allow; on SIGTERM it stops taking jobs, lets the running ones finish
 * within SHUTDOWN_GRACE_MS and hands the rest back to the queue.
 */
async function main(): Promise<void> {
  handleProcessArgs('agent-tts-worker', WORKER_HELP);
  const config = loadConfig();
  if (!config.redisUrl) {
    throw new ConfigError('REDIS_URL is not set; workers take their jobs from the Redis queue of a distributed deployment.');
  }
  const log = createLogger(config.logLevel, 'agent-tts-worker', { asyncStdout: true });
  if (config.dataDirCreated) log.info({ data_dir: config.dataDir }, 'created the data directory (DATA_DIR); its parent existed');
  sayAwsSdkNodeWarning(config, log, process.env);
  const services = await composeWorker(config, log);
  const { worker } = services;

  let ops: Server | undefined;
  // Read by loadConfig with REDIS_URL.
  const workerOpsPort = config.distributed?.workerOpsPort;
  if (workerOpsPort !== undefined) {
    const app = createOpsApp(
      {
        readiness: new Readiness({ store: services.store, audio: services.audio, queue: { ping: () => worker.ping() } }),
        log,
        metrics: services.metrics,
        engine: services.synthEngine,
      },
      serverHosts(config),
    );
    ops = await listen(app.fetch, workerOpsPort, config.host, 'WORKER_OPS_PORT');
  }
  // The signal handlers are in place before the line that says the worker started: until they are, a
  // SIGTERM ends the process by the signal's default action, at once and with no shutdown.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, running: worker.activeJobs }, 'worker shutting down: no new jobs; running jobs finish or go back to the queue');
    // The whole shutdown fits the grace period: the process exits at its end even if a backend (an
    // unreachable Redis) has not answered; jobs it could not hand back are recovered by the
    // stalled-job check of another worker.
    const deadline = setTimeout(() => {
      log.warn({ grace_ms: config.shutdownGraceMs }, 'shutdown grace period over with backend clients still closing; exiting');
      process.exit(0);
    }, config.shutdownGraceMs);
    deadline.unref();
    try {
      await services.close();
      if (ops) await closeServer(ops);
      log.info('worker stopped');
    } catch (error) {
      // A backend that failed to close (an unreachable Redis): the jobs it held are recovered by the
      // stalled-job check of another worker.
      log.warn({ err: error }, 'worker stopped without closing its backends cleanly');
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  log.info(
    {
      redis: redactUrl(config.redisUrl),
      prefix: config.redisPrefix,
      concurrency: config.jobConcurrency,
      data_dir: config.dataDir,
      ops_port: ops ? (ops.address() as { port: number }).port : undefined,
      synth_engine: services.synthEngine?.name,
      synth_engine_detail: services.synthEngine?.detail,
    },
    `agent-tts worker started (speech: ${services.synthEngine?.name ?? 'unknown'})`,
  );
  // Without Redis at start, this waits (reconnecting) rather than exiting: workers come up in any order.
  worker
    .ready()
    .then(() => log.info({ concurrency: config.jobConcurrency }, 'agent-tts worker ready: taking jobs'))
    .catch((error: unknown) => log.error({ err: error }, 'worker could not start taking jobs'));
}

main().catch(exitOnStartFailure('agent-tts-worker'));
