import type { JobQueue, StoreConnection } from '../ports/index.js';
import type { AudioStorage } from './job-files.js';

export interface ReadinessDeps {
  store: Pick<StoreConnection, 'ping'>;
  queue?: Pick<JobQueue, 'ping'>;
  audio?: Pick<AudioStorage, 'ping'>;
}

/**
 * The backends a process depends on, under the names /readyz reports: the store always, the queue
 * when it can be asked, the audio storage when the process has one. Each check throws when its
 * backend cannot be used (outageOf in errors.ts tells a timeout from a refusal).
 */
export class Readiness {
  constructor(private readonly deps: ReadinessDeps) {}

  checks(): Record<string, () => Promise<void>> {
    const { store, queue, audio } = this.deps;
    const checks: Record<string, () => Promise<void>> = { store: () => store.ping() };
    const pingQueue = queue?.ping?.bind(queue);
    if (pingQueue) checks.queue = () => pingQueue();
    if (audio) checks.audio_storage = () => audio.ping();
    return checks;
  }
}
