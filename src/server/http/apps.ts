import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { API_PATH, VOICES_PATH } from '@agent-tts/contract/limits.js';
import type { CatalogVoiceBody } from '@agent-tts/contract/catalog-schemas.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { AppEnv } from './context.js';
import { createApp } from './create-app.js';
import { boundHosts, hostGuard } from './middleware/host-guard.js';
import { registerAudioRoutes } from './routes/audio.js';
import { registerCaptionRoutes } from './routes/captions.js';
import { registerDashboardRoutes } from './routes/dashboard/index.js';
import { registerDocsRoutes } from './routes/docs.js';
import { registerJobRoutes } from './routes/jobs.js';
import { type OpsDeps, registerOpsRoutes } from './routes/ops.js';
import { registerStreamRoutes } from './routes/stream.js';
import { registerVoiceRoutes } from './routes/voices.js';
import type { HttpServices } from './services.js';

export interface ApiAppOptions {
  services: HttpServices;
  log: Logger;
  /** Aborted when the server shuts down: inline waits then answer with what they have. */
  shutdown: AbortSignal;
  /** Also serve /healthz, /readyz and /metrics here (when no OPS_PORT gives them their own listener). */
  withOps: boolean;
  /**
   * What another composition root adds (the sandbox: its mark on every answer, its request journal,
   * its own routes). The server's entry point passes nothing.
   */
  extend?: {
    headers?: Readonly<Record<string, string>>;
    /** Run after the request id and metrics and before CORS, so that they decide preflights too. */
    guards?: MiddlewareHandler<AppEnv>[];
    /** A check of Host of its own, in place of the server's (which checks the dashboard and operations paths only). */
    hostGuard?: MiddlewareHandler<AppEnv>;
    /** Run after the shell's middleware (request id, metrics, CORS) and before every route. */
    middleware?: MiddlewareHandler<AppEnv>[];
    routes?: (app: OpenAPIHono<AppEnv>) => void;
  };
}

/** What a DNS-rebinding page could read on the API listener: the dashboard's pages and the operations endpoints. */
const HOST_CHECKED_PATHS = /^\/(?:dashboard|healthz|readyz|metrics)(?:\/|$)/i;

/**
 * The Host values the server's dashboard and operations endpoints answer, besides the loopback names:
 * PUBLIC_BASE_URL's, the address it is bound to (every interface's on a wildcard address) and
 * ALLOWED_HOSTS (docs/operations.md#host-names).
 */
export function serverHosts(config: Pick<Config, 'publicBaseUrl' | 'host' | 'allowedHosts'>): string[] {
  return [config.publicBaseUrl, ...boundHosts(config.host), ...config.allowedHosts];
}

const HOST_REMEDY = 'add it to ALLOWED_HOSTS (comma-separated names, or name:port)';

/** The API listener: jobs, audio and captions, bound to the contract's routes. */
export function createApiApp({ services, log, shutdown, withOps, extend }: ApiAppOptions): OpenAPIHono<AppEnv> {
  const { config } = services;
  const app = createApp({
    log,
    logRequests: true,
    metrics: services.metrics,
    cors: config.cors,
    headers: extend?.headers,
    // The API itself needs a key or a signed URL, which no rebinding page has; the pages and probes need neither.
    guards: [
      extend?.hostGuard ?? hostGuard({ allowed: serverHosts(config), paths: HOST_CHECKED_PATHS, subject: 'this server', remedy: HOST_REMEDY }),
      ...(extend?.guards ?? []),
    ],
    notFoundHint: `The API is at ${API_PATH}.`,
  });
  for (const middleware of extend?.middleware ?? []) app.use(middleware);
  extend?.routes?.(app);
  if (withOps) registerOpsRoutes(app, opsDepsOf(services, log));
  registerJobRoutes(app, {
    auth: services.auth,
    jobs: services.jobs,
    signer: services.signer,
    publicBaseUrl: config.publicBaseUrl,
    billingUrl: config.billingUrl,
    inlineWaitMs: config.inlineWaitMs,
    maxBodyBytes: config.maxBodyBytes,
    shutdown,
  });
  registerAudioRoutes(app, { files: services.files, log });
  registerStreamRoutes(app, { files: services.files, log });
  registerCaptionRoutes(app, { files: services.files, log });
  // Web pages on the API origin, outside the API contract: the account dashboard and the API reference.
  registerDashboardRoutes(app, { services: services.dashboard, publicBaseUrl: config.publicBaseUrl, log });
  registerDocsRoutes(app, { publicBaseUrl: config.publicBaseUrl });
  return app;
}

export function opsDepsOf(services: HttpServices, log: Logger): OpsDeps {
  return { readiness: services.readiness, metrics: services.metrics, log, engine: services.synthEngine };
}

/** The voice catalog's own listener (its own origin, without authentication). */
export function createVoicesApp(
  voices: readonly CatalogVoiceBody[],
  log: Logger,
  cors: HttpServices['config']['cors'],
  headers?: Readonly<Record<string, string>>,
): OpenAPIHono<AppEnv> {
  const app = createApp({ log, cors, headers, notFoundHint: `The catalog is at ${VOICES_PATH}.` });
  registerVoiceRoutes(app, voices);
  return app;
}

/**
 * An operations listener (OPS_PORT of the API, WORKER_OPS_PORT of a worker): probes and metrics only,
 * to requests whose Host is one `allowedHosts` (serverHosts) or a loopback name.
 */
export function createOpsApp(deps: OpsDeps, allowedHosts: readonly string[]): OpenAPIHono<AppEnv> {
  const app = createApp({
    log: deps.log,
    notFoundHint: 'This listener serves /healthz, /readyz and /metrics only.',
    guards: [hostGuard({ allowed: allowedHosts, subject: 'this operations listener', remedy: HOST_REMEDY })],
  });
  registerOpsRoutes(app, deps);
  return app;
}
