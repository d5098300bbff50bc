import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { JobRun, QueueStats, Store } from './ports/index.js';
import { PROBE_TIMEOUT_MS, withTimeout } from './timeout.js';

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
