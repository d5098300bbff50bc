import type { OpenAPIHono } from '@hono/zod-openapi';
import { type ApiServices, type ComposeOptions, composeApi } from './compose.js';
import { type Config, loadConfig } from './config.js';
import { type ApiAppOptions, createApiApp, createVoicesApp } from './http/apps.js';
import type { AppEnv } from './http/context.js';
import { createLogger, type Logger } from './log.js';
import { voiceCatalog } from './synth/catalog.js';

/**
 * What an embedder adds to the API app: headers on every answer, guards, middleware and routes of its own.
 * @public (the package's "." export)
 */
export type ApiExtension = NonNullable<ApiAppOptions['extend']>;

export interface CreateApiOptions extends ComposeOptions {
  /**
   * The settings, as the server's environment variables (docs/configuration.md), checked as at start:
   * a bad one throws ConfigError naming the variable. Default: the process's environment. Ignored when
   * `config` is given.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** A configuration already loaded (loadConfig), e.g. to change a field before the parts are assembled. */
  config?: Config;
  /** Default: a logger at LOG_LEVEL on standard output. */
  log?: Logger;
  /** Serve /healthz, /readyz and /metrics on the API app. Default: when OPS_PORT does not give them a listener of their own. */
  withOps?: boolean;
  /** When it is aborted (and at close()), inline waits answer at once with what they have. */
  shutdown?: AbortSignal;
  /**
   * What the embedder adds to the API app, made once the services are assembled (so that it can use
   * the store, the clock and the configuration). Its `headers` go on the voice catalog's answers too.
   */
  extend?: (services: ApiServices) => ApiExtension | Promise<ApiExtension>;
}

/** An assembled API: its two apps (serve their `fetch`, or call `request()` in a test), its services and its lifecycle. */
export interface Api {
  /** The API listener's app: jobs, audio, captions, the dashboard, /docs (and the probes with `withOps`). */
  app: OpenAPIHono<AppEnv>;
  /** The voice catalog's app, served on an origin of its own (PUBLIC_VOICES_URL). */
  voicesApp: OpenAPIHono<AppEnv>;
  services: ApiServices;
  config: Config;
  log: Logger;
  /** Ends inline waits, lets running jobs finish within SHUTDOWN_GRACE_MS, and closes the store, queue and synthesizer. */
  close(): Promise<void>;
}

/**
 * The reference server's API, assembled as `agent-tts-server` assembles it (compose.ts, http/apps.ts),
 * without listening: the embedding API of the package. The parts of ComposeOptions replace the
 * configured ones (the sandbox passes its clock, in-memory store and instant synthesizer).
 */
export async function createApi(options: CreateApiOptions = {}): Promise<Api> {
  const config = options.config ?? loadConfig(options.env === undefined ? undefined : { ...options.env });
  const log = options.log ?? createLogger(config.logLevel, 'agent-tts');
  const services = await composeApi(config, log, options);
  const stop = new AbortController();
  const shutdown = options.shutdown ? AbortSignal.any([options.shutdown, stop.signal]) : stop.signal;
  try {
    const extend = await options.extend?.(services);
    const app = createApiApp({ services, log, shutdown, withOps: options.withOps ?? config.opsPort === undefined, extend });
    const voicesApp = createVoicesApp(voiceCatalog(config.engine, config.upstream), log, config.cors, extend?.headers);
    let closed: Promise<void> | undefined;
    return {
      app,
      voicesApp,
      services,
      config,
      log,
      close() {
        stop.abort();
        closed ??= services.close();
        return closed;
      },
    };
  } catch (error) {
    await services.close().catch(() => undefined);
    throw error;
  }
}
