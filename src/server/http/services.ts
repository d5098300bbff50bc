import type { Config } from '../config.js';
import type { Authenticator } from '../domain/auth.js';
import type { DashboardServices } from '../domain/dashboard-services.js';
import type { JobService } from '../domain/jobs.js';
import type { Readiness } from '../domain/readiness.js';
import type { SignedFiles } from '../domain/signed-files.js';
import type { AudioUrlSigner } from '../domain/signing.js';
import type { OpsMetrics } from '../metrics.js';

/** The speech engine a process synthesizes with, as /readyz names it. */
export interface EngineInfo {
  name: string;
  detail?: string;
}

/**
 * What the HTTP layer needs of an assembled API process: the settings its routes read and the domain
 * services they answer from (never a port: the domain stands between them). A composition root
 * (compose.ts's ApiServices, the sandbox's) provides it; the HTTP layer never imports one.
 */
export interface HttpServices {
  config: Pick<Config, 'cors' | 'publicBaseUrl' | 'billingUrl' | 'inlineWaitMs' | 'maxBodyBytes' | 'host' | 'allowedHosts'>;
  jobs: JobService;
  auth: Authenticator;
  signer: AudioUrlSigner;
  /** What a signed URL of the audio or the captions opens. */
  files: SignedFiles;
  dashboard: DashboardServices;
  /** The backends /readyz asks. */
  readiness: Readiness;
  metrics: OpsMetrics;
  /** The engine this process synthesizes with, when it runs jobs (named by /readyz). */
  synthEngine?: EngineInfo;
}
