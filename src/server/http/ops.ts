import type { Hono, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { withTimeout } from '../distributed/timeout.js';
import type { Logger } from '../log.js';
import type { JobQueue, QueueStats, Store } from '../ports.js';
import { type AppContext, type AppEnv, sendError, sendJson } from './context.js';
import { ApiError } from './errors.js';

/** Probes give up after this, so a readiness check answers even when a backend hangs. */
const PROBE_TIMEOUT_MS = 3_000;

/**
 * The Prometheus metrics of one process. Request metrics exist where HTTP is served; job metrics where
 * jobs run (the API with local workers, or a worker process on its own listener); queue depth is read
 * from the queue at scrape time, so every instance reports the same cluster-wide figure.
 */
export interface OpsMetrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  jobDuration: Histogram<'outcome'>;
  jobsFinished: Counter<'outcome'>;
  jobFailures: Counter<'code'>;
  /** Registers where the queue depth comes from (once per process). */
  observeQueue(stats: () => Promise<QueueStats>): void;
}

export function createOpsMetrics(): OpsMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'agent_tts_' });
  let queueStats: (() => Promise<QueueStats>) | undefined;
  new Gauge({
    name: 'agent_tts_queue_jobs',
    help: 'Synthesis jobs in the queue, by state (cluster-wide in distributed mode).',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      if (!queueStats) return;
      // An unreachable queue leaves the last figures rather than failing the whole scrape.
      const stats = await withTimeout(queueStats(), PROBE_TIMEOUT_MS, 'queue stats').catch(() => undefined);
      if (!stats) return;
      for (const [state, count] of Object.entries(stats)) if (count !== undefined) this.set({ state }, count);
    },
  });
  return {
    registry,
    httpRequests: new Counter({
      name: 'agent_tts_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'agent_tts_http_request_duration_seconds',
      help: 'Time to answer HTTP requests (inline waits included), by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
      registers: [registry],
    }),
    jobDuration: new Histogram({
      name: 'agent_tts_job_duration_seconds',
      help: 'Wall time of synthesis jobs run in this process, by outcome.',
      labelNames: ['outcome'],
      buckets: [0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers: [registry],
    }),
    jobsFinished: new Counter({
      name: 'agent_tts_jobs_finished_total',
      help: 'Synthesis jobs run in this process, by outcome (completed, failed, interrupted by shutdown).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    jobFailures: new Counter({
      name: 'agent_tts_job_failures_total',
      help: 'Synthesis jobs that failed in this process, by error code.',
      labelNames: ['code'],
      registers: [registry],
    }),
    observeQueue(stats) {
      queueStats = stats;
    },
  };
}

export interface JobRun {
  /** As JobRunner.run: false when the job was interrupted (shutdown) and stays processing. */
  run(jobId: string, signal?: AbortSignal): Promise<boolean>;
}

/**
 * Counts and times the jobs a runner runs. The outcome is read back from the store: a run that found
 * its job already settled (a duplicate delivery) is not counted as a job.
 */
export function instrumentRunner(runner: JobRun, store: Store, metrics: OpsMetrics): JobRun {
  return {
    async run(jobId, signal) {
      const started = Date.now();
      const ended = await runner.run(jobId, signal);
      const seconds = (Date.now() - started) / 1000;
      if (!ended) {
        metrics.jobsFinished.inc({ outcome: 'interrupted' });
        return false;
      }
      const job = await store.getJob(jobId).catch(() => undefined);
      if (!job || job.completedAt === undefined || job.completedAt < started) return true;
      const outcome = job.status === 'completed' ? 'completed' : 'failed';
      metrics.jobsFinished.inc({ outcome });
      metrics.jobDuration.observe({ outcome }, seconds);
      if (outcome === 'failed') metrics.jobFailures.inc({ code: job.errorCode ?? 'INTERNAL_ERROR' });
      return true;
    },
  };
}

/** Counts every answer by its route pattern (never the raw path: ids would explode the label space). */
function httpMetrics(metrics: OpsMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const pattern = routePath(c, -1);
      const route = pattern === '*' || pattern === '/*' || pattern === '' ? 'unmatched' : pattern;
      const labels = { method: c.req.method, route, status: String(c.res.status) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}

export interface OpsDeps {
  store: Store;
  log: Logger;
  /** Present when the app is given the services (main passes them along with the app's own deps). */
  queue?: Pick<JobQueue, 'ping'>;
  metrics?: OpsMetrics;
}

async function probe(check: () => Promise<void>, what: string): Promise<string> {
  try {
    await withTimeout(check(), PROBE_TIMEOUT_MS, what);
    return 'ok';
  } catch (error) {
    return `unreachable: ${error instanceof Error && error.message ? error.message : (error as Error)?.name ?? 'error'}`;
  }
}

/** Readiness: the store and the queue answer. Shared by the API and the worker's ops listener. */
export async function readiness(deps: Pick<OpsDeps, 'store' | 'queue'>): Promise<{ ready: boolean; checks: Record<string, string> }> {
  const queue = deps.queue;
  const [store, queueCheck] = await Promise.all([
    probe(() => deps.store.ping(), 'store'),
    queue?.ping ? probe(() => queue.ping!(), 'queue') : Promise.resolve('ok'),
  ]);
  const checks = { store, queue: queueCheck };
  return { ready: store === 'ok' && queueCheck === 'ok', checks };
}

/**
 * Operations routes on an app: `/healthz` (the process answers), `/readyz` (store and queue
 * reachable; 503 otherwise, with the spec's error body and code INTERNAL_ERROR, since the spec has no
 * 503 code), `/metrics` (Prometheus text), and the request metrics middleware. Call it before the
 * app's routes, so the middleware wraps them. Keep these paths off the public internet (proxy rule).
 */
export function mountOps(app: Hono<AppEnv>, deps: OpsDeps): void {
  const { metrics, log } = deps;
  const started = Date.now();
  if (metrics) app.use(httpMetrics(metrics));

  app.get('/healthz', (c) => sendJson(c, 200, { success: true, status: 'ok', uptime_seconds: Math.round((Date.now() - started) / 1000) }));

  app.get('/readyz', async (c) => {
    const { ready, checks } = await readiness(deps);
    if (ready) return sendJson(c, 200, { success: true, status: 'ready', checks });
    log.warn({ request_id: c.get('requestId'), checks }, 'not ready');
    return sendError(
      c as AppContext,
      new ApiError('INTERNAL_ERROR', 'The service is not ready: a backend it needs is unreachable. Retry with backoff.', { checks }, {}, 503),
    );
  });

  app.get('/metrics', async (c) => {
    if (!metrics) return sendError(c as AppContext, new ApiError('NOT_FOUND', 'Metrics are not enabled in this process.'));
    c.header('Content-Type', metrics.registry.contentType);
    return c.body(await metrics.registry.metrics(), 200);
  });
}
