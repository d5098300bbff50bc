import type { Config } from '../config.js';
import type { Authenticator } from '../domain/auth.js';
import type { JobService } from '../domain/jobs.js';
import type { AudioUrlSigner } from '../domain/signing.js';
import type { OpsMetrics } from '../metrics.js';
import type { AudioStorage, Clock, JobQueue, RateLimiter, Store } from '../ports/index.js';

/**
 * What the HTTP layer needs of an assembled API process: the settings its routes read, the domain
 * services and the ports they answer from. A composition root (compose.ts's ApiServices, the
 * sandbox's) provides it; the HTTP layer never imports one.
 */
export interface HttpServices {
  config: Pick<Config, 'cors' | 'publicBaseUrl' | 'billingUrl' | 'inlineWaitMs' | 'maxBodyBytes' | 'plans'>;
  clock: Clock;
  store: Store;
  audio: AudioStorage;
  limiter: RateLimiter;
  queue: JobQueue;
  jobs: JobService;
  auth: Authenticator;
  signer: AudioUrlSigner;
  metrics: OpsMetrics;
}
