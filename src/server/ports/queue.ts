export interface JobQueue {
  enqueue(jobId: string): Promise<void>;
  /** Resolves when the job reaches a final status or the time runs out (the caller reads the store). */
  waitForFinish(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
  /** Jobs by queue state, for metrics (cluster-wide for a shared queue). */
  stats?(): Promise<QueueStats>;
  /** Throws when the queue's backend is unreachable (readiness). */
  ping?(): Promise<void>;
}

export interface QueueStats {
  waiting: number;
  active: number;
  delayed?: number;
  failed?: number;
}

/** What runs a job to its end (the domain's job runner, or that runner instrumented with metrics): what a queue calls. */
export interface JobRun {
  /** False when the job was interrupted (shutdown) and stays processing. */
  run(jobId: string, signal?: AbortSignal): Promise<boolean>;
}
