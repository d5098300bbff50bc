import { join } from 'node:path';
import { FileSpool } from './adapters/file-spool.js';
import { LocalBlobStorage, SHARED_PART_STALE_MS } from './adapters/local-blob-storage.js';
import { LocalLiveAudioFiles } from './adapters/live-audio-files.js';
import { LocalJobQueue } from './adapters/local-queue.js';
import { MemoryRateLimiter } from './adapters/memory-rate-limiter.js';
import type { RedisBackends } from './adapters/redis/index.js';
import type { SynthesisWorker } from './adapters/redis/synthesis-worker.js';
import { SqliteStore } from './adapters/sqlite-store.js';
import { defaultSqliteDriver } from './adapters/sqlite-driver.js';
import type { Config } from './config.js';
import { ConfigError } from './config/error.js';
import { createSynth, estimateOnly, speechRequests } from './synthesis-setup.js';
import { importOptionalPart } from './optional-parts.js';
import type { HttpServices } from './http/services.js';
import { redactText } from './redact.js';
import { Authenticator } from './domain/auth.js';
import { dashboardServices } from './domain/dashboard-services.js';
import { type AudioStorage, JobFiles } from './domain/job-files.js';
import { JobRunner, type JobRunnerOptions } from './domain/job-runner.js';
import { JobService } from './domain/jobs.js';
import { KeyUsageRecorder } from './domain/key-usage.js';
import { LiveAudio } from './domain/live-audio.js';
import { Readiness } from './domain/readiness.js';
import { SignedFiles } from './domain/signed-files.js';
import { AudioUrlSigner } from './domain/signing.js';
import type { Logger } from './log.js';
import { createOpsMetrics, instrumentRunner, type OpsMetrics } from './metrics.js';
import {
  type BlobStorage,
  type Clock,
  type JobQueue,
  type JobRun,
  type RateLimiter,
  type Store,
  type SynthesisEngineInfo,
  type SynthesisEstimator,
  type Synthesizer,
  systemClock,
} from './ports/index.js';

/**
 * The one assembly of ports into services, for every process kind: the API (embedded or distributed),
 * the synthesis worker and the admin CLI. Which adapters a process gets follows from the configuration
 * alone (REDIS_URL), so every kind sees the same store and the same audio.
 */

/** The state every process kind shares: the store and the audio storage. */
export interface Storage {
  store: Store;
  audio: AudioStorage;
  /** Present in the distributed mode. */
  redis?: RedisBackends;
  /** The blob storage under `audio`, in the distributed mode: where runs publish their audio as segments for stream listeners elsewhere. */
  segments?: BlobStorage;
  close(): Promise<void>;
}

export async function openStorage(config: Config, log: Logger, processName: string, options: { cacheReads?: boolean } = {}): Promise<Storage> {
  // Checked before any other backend is opened: a store that cannot be used is a configuration error.
  const objectStore = config.s3 ? await openObjectStore(config.s3) : undefined;
  if (config.redisUrl) {
    const { openRedisBackends } = await importOptionalPart('distributed', () => import('./adapters/redis/index.js'));
    // loadConfig reads the distributed settings whenever REDIS_URL is set.
    const redis = openRedisBackends(config, config.distributed!, log, processName, options);
    // Every process of the deployment writes to the one audio directory: a run that lost its queue
    // lock may still be writing its own partial file, so leftovers count as such only once stale.
    const blobs = objectStore ?? new LocalBlobStorage(join(config.dataDir, 'audio'), SHARED_PART_STALE_MS);
    return { store: redis.store, audio: new JobFiles(blobs), redis, segments: blobs, close: () => redis.close() };
  }
  // Node.js 20 and 22 store through better-sqlite3, an optional part: its absence is said at once.
  // (A specifier in a variable: the package has no types, and only whether it loads matters here.)
  const sqliteDriver: string = defaultSqliteDriver();
  if (sqliteDriver === 'better-sqlite3') await importOptionalPart('sqlite', () => import(sqliteDriver));
  const store = new SqliteStore(join(config.dataDir, 'agent-tts.sqlite'));
  return { store, audio: new JobFiles(objectStore ?? new LocalBlobStorage(join(config.dataDir, 'audio'))), close: () => store.close() };
}

/** The S3 adapter, once the bucket answers (HeadBucket); otherwise a ConfigError naming endpoint and bucket. */
async function openObjectStore(s3: NonNullable<Config['s3']>): Promise<BlobStorage> {
  const [{ S3BlobStorage }, { createS3Client }] = await importOptionalPart('s3', () =>
    Promise.all([import('./adapters/s3-blob-storage.js'), import('./adapters/s3/client.js')]),
  );
  const client = createS3Client(s3);
  const audio = new S3BlobStorage({ client, bucket: s3.bucket, prefix: s3.prefix, requestTimeoutMs: s3.requestTimeoutMs });
  try {
    await audio.ping();
  } catch (error) {
    client.destroy();
    const where = s3.endpoint ?? `the AWS endpoint of region ${s3.region}`;
    throw new ConfigError(
      `AUDIO_STORE: the bucket "${s3.bucket}" at ${where} cannot be used (${redactText((error as Error).message)}); check AUDIO_STORE, S3_ENDPOINT, S3_REGION, S3_FORCE_PATH_STYLE and the credentials`,
    );
  }
  return audio;
}

/**
 * How a process's job runner outlives an outage of the audio store: with an object store, a spool
 * under DATA_DIR (files a dead process left are swept at start) and the outage budget.
 */
function runnerOptions(config: Config, log: Logger): JobRunnerOptions {
  if (!config.s3) return {};
  const spool = new FileSpool(join(config.dataDir, 'spool'));
  spool.sweep().catch((error: unknown) => log.warn({ err: error }, 'old spool files not removed'));
  return { spool, outage: { budgetMs: config.audioStoreOutageBudgetMs } };
}

/** The live files of the jobs this process runs, under DATA_DIR (files a dead process left are swept at start). */
function liveFiles(config: Config, log: Logger): LocalLiveAudioFiles {
  const files = new LocalLiveAudioFiles(join(config.dataDir, 'live'));
  files.sweep().catch((error: unknown) => log.warn({ err: error }, 'old live audio files not removed'));
  return files;
}

/**
 * What another composition root (the sandbox) replaces when it assembles an embedded API process; the
 * server's own entry points pass none. Ignored parts of the distributed mode: the Redis adapters keep
 * the server's time.
 */
export interface ComposeOptions {
  /** The time of every time-dependent rule (default: the system clock). */
  clock?: Clock;
  /** Synthesis instead of the engine the configuration names (no worker pool is started). */
  synth?: Synthesizer;
  /** The store and audio storage, instead of those under DATA_DIR. */
  storage?: Storage;
  /** Wraps the in-process queue (e.g. to hold jobs until a test clock reaches them). */
  wrapQueue?: (queue: JobQueue) => JobQueue;
  /** Wraps the job runner the in-process queue runs (e.g. to run each job on its account's test clock). */
  wrapRunner?: (runner: JobRun) => JobRun;
  /** The in-process rate limiter, instead of a MemoryRateLimiter on `clock`. */
  limiter?: RateLimiter;
}

/** An assembled API process: what its HTTP layer needs (HttpServices), the full configuration, and its lifecycle. */
export interface ApiServices extends HttpServices {
  config: Config;
  /** The ports under the services, for the composition roots and tests that reach past them (the sandbox's test clocks). */
  clock: Clock;
  store: Store;
  audio: AudioStorage;
  limiter: RateLimiter;
  queue: JobQueue;
  /** Queues again the jobs a previous run left processing (a crash or a shutdown). */
  resumeInterrupted(): Promise<number>;
  close(): Promise<void>;
}

/**
 * An API process. Embedded: SQLite, in-process rate limiter and queue, synthesis on worker threads.
 * Distributed: Redis store, limiter and BullMQ queue; synthesis in this process too unless
 * LOCAL_WORKERS=false, in which case it only estimates (for usage reservations and retry_after_seconds),
 * assuming workers sized like this machine (or SYNTH_THREADS).
 */
export async function composeApi(config: Config, log: Logger, options: ComposeOptions = {}): Promise<ApiServices> {
  const clock = options.clock ?? systemClock;
  // The request path reads keys, accounts, jobs and usage on every request: cached, with invalidation.
  const storage = options.storage ?? (await openStorage(config, log, 'agent-tts-api', { cacheReads: true }));
  const { store, audio, redis, segments } = storage;
  const metrics = createOpsMetrics();
  const runsJobs = !redis || config.localWorkers;
  const synth = runsJobs ? (options.synth ?? (await createSynth(config))) : undefined;
  const estimator: SynthesisEstimator = synth ?? estimateOnly(config);
  // The audio of the jobs this process runs streams from live files; in the distributed mode it is also
  // published as segments, and the jobs other processes run are read from theirs (live-audio.ts).
  const live = new LiveAudio({ store, audio, segments }, synth ? { files: liveFiles(config, log), log } : undefined);
  const runner = synth ? new JobRunner(store, audio, synth, log, clock, { ...runnerOptions(config, log), live, segments }) : undefined;
  const limiter: RateLimiter = redis ? redis.limiter() : (options.limiter ?? new MemoryRateLimiter(() => clock.now()));

  const { queue, worker, resumeInterrupted } = jobQueueOf(storage, runner, metrics, config, log, options);
  const stats = queue.stats?.bind(queue);
  if (stats) metrics.observeQueue(stats);

  const keyUsage = new KeyUsageRecorder(store);
  const jobs = new JobService({
    store,
    queue,
    limiter,
    audio,
    estimator,
    requests: speechRequests(config),
    rateLimits: config.rateLimits,
    clock,
    // Live progress sharpens retry_after_seconds for the jobs this process runs; others are
    // estimated from the progress their workers write to the store.
    live: runner?.live,
  });
  const signer = new AudioUrlSigner(config.urlSigningSecret, config.audioUrlTtlSeconds);
  const { plans, publicBaseUrl, billingUrl } = config;
  return {
    config,
    ...(synth?.engine && { synthEngine: synth.engine }),
    clock,
    store,
    audio,
    limiter,
    queue,
    jobs,
    auth: new Authenticator(store, plans, keyUsage, clock),
    signer,
    files: new SignedFiles({ store, audio, signer, clock, live }),
    dashboard: dashboardServices({ store, plans, signer, publicBaseUrl, billingUrl, clock, limiter }),
    readiness: new Readiness({ store, queue, audio }),
    metrics,
    resumeInterrupted,
    async close() {
      // A local worker finishes its jobs within the grace, then hands the rest back to the queue.
      await worker?.close(config.shutdownGraceMs);
      await queue.close();
      await keyUsage.close().catch(() => undefined);
      await synth?.close();
      await limiter.close();
      await storage.close();
    },
  };
}

/**
 * The API process's job queue: the shared BullMQ queue (with this process's worker, when it runs jobs)
 * in the distributed mode, or the in-process queue running `runner`; and how each queues again the
 * jobs a previous run left processing.
 */
function jobQueueOf(
  storage: Storage,
  runner: JobRunner | undefined,
  metrics: OpsMetrics,
  config: Config,
  log: Logger,
  options: ComposeOptions,
): { queue: JobQueue; worker?: SynthesisWorker; resumeInterrupted: () => Promise<number> } {
  const { store, redis } = storage;
  if (redis) {
    const shared = redis.queue();
    const worker = runner ? redis.worker(instrumentRunner(runner, store, metrics), config.jobConcurrency) : undefined;
    const resumeInterrupted = () => {
      // The shared queue reconciles itself with the store; Redis may not answer yet, and then the
      // periodic sweep does it once it does.
      shared.startReconciling();
      return shared.reconcile().catch((error: unknown) => {
        log.warn({ err: error }, 'queue reconcile at start failed; the periodic sweep retries');
        return 0;
      });
    };
    return { queue: shared, worker, resumeInterrupted };
  }
  const instrumented = instrumentRunner(runner!, store, metrics);
  const run = options.wrapRunner ? options.wrapRunner(instrumented) : instrumented;
  const local = options.wrapQueue ? options.wrapQueue(new LocalJobQueue(run, config.jobConcurrency, log)) : new LocalJobQueue(run, config.jobConcurrency, log);
  return {
    queue: local,
    resumeInterrupted: async () => {
      const ids = await store.listProcessingJobIds();
      for (const id of ids) await local.enqueue(id);
      return ids.length;
    },
  };
}

export interface WorkerServices {
  /** The engine this worker's jobs speak with. */
  synthEngine?: SynthesisEngineInfo;
  store: Store;
  audio: AudioStorage;
  metrics: OpsMetrics;
  worker: SynthesisWorker;
  close(): Promise<void>;
}

/** A synthesis worker process of the distributed mode: takes jobs from the shared queue. */
export async function composeWorker(config: Config, log: Logger): Promise<WorkerServices> {
  const storage = await openStorage(config, log, 'agent-tts-worker');
  const { store, audio, redis, segments } = storage;
  if (!redis) throw new Error('a worker needs REDIS_URL');
  const synth = await createSynth(config);
  const metrics = createOpsMetrics();
  const worker = redis.worker(
    instrumentRunner(new JobRunner(store, audio, synth, log, systemClock, { ...runnerOptions(config, log), segments }), store, metrics),
    config.jobConcurrency,
  );
  return {
    ...(synth.engine && { synthEngine: synth.engine }),
    store,
    audio,
    metrics,
    worker,
    async close() {
      await worker.close(config.shutdownGraceMs);
      await synth.close();
      await storage.close();
    },
  };
}
