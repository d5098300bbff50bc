import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { ADMIN_MAIN, freePort } from '@agent-tts/bench/harness/server-process.js';
import { runNode } from '@agent-tts/bench/harness/node-process.js';
import type { ConformanceFixturesT } from '../../src/contract/fixtures.js';
import type { PlanId } from '../../src/contract/plans.js';
import { voiceCatalog } from '../../src/server/synth/index.js';
import { InstantSynthesizer } from '../../src/sandbox/synthesizer.js';
import { composeApi, type ApiServices, type ComposeOptions } from '../../src/server/compose.js';
import { type Config, loadConfig } from '../../src/server/config.js';
import { AccountAdmin } from '../../src/server/domain/accounts.js';
import type { Principal } from '../../src/server/domain/auth.js';
import { createApiApp, createOpsApp, createVoicesApp, opsDepsOf, serverHosts } from '../../src/server/http/apps.js';
import type { AppEnv } from '../../src/server/http/context.js';
import { closeServer, listen as listenOn } from '../../src/server/http/listen.js';
import { pollFastPath } from '../../src/server/http/poll-fast-path.js';
import { createLogger, type Logger } from '../../src/server/log.js';
import { seed, writeFixtures } from '../../src/server/seed.js';
import { registerInProcess } from './http.js';
import { redisBackendEnv } from './server.js';

/**
 * The reference server's apps in this process, over the real embedded adapters (SQLite in a fresh
 * data directory, the in-process limiter and queue, one synthesis thread), for `app.request()` tests
 * of handlers and tests of the domain services.
 */
export interface InProcessServer {
  services: ApiServices;
  config: Config;
  app: OpenAPIHono<AppEnv>;
  voicesApp: OpenAPIHono<AppEnv>;
  opsApp: OpenAPIHono<AppEnv>;
  admin: AccountAdmin;
  /** The logger the apps write to. */
  log: Logger;
  dataDir: string;
  /**
   * The server's public base URL (PUBLIC_BASE_URL). The helpers of test/helpers/http.ts send requests
   * to it through `app.request()`, not over the network (see `registerInProcess`).
   */
  baseUrl: string;
  /** A fresh account with one active key; returns the full key. */
  newKey(options?: { plan?: PlanId; subscription?: 'active' | 'inactive' }): Promise<{ key: string; accountId: string }>;
  principal(key: string): Promise<Principal>;
  /** The accounts and keys `admin seed` makes, as the conformance fixtures. */
  seed(): Promise<ConformanceFixturesT>;
  /** `app.request()` with a key (and JSON body when given). */
  request(method: string, path: string, options?: { key?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

export async function startInProcess(env: Record<string, string> = {}): Promise<InProcessServer> {
  // A generous inline wait: these tests are about what is answered, not how fast (the machine may be busy).
  return compose({ SYNTH_THREADS: '1', LOG_LEVEL: 'silent', INLINE_WAIT_MS: '60000', ...env }, () => createLogger('silent'));
}

async function compose(
  env: Record<string, string>,
  logger: (config: Config) => Logger,
  parts: (config: Config) => ComposeOptions = () => ({}),
): Promise<InProcessServer> {
  const dataDir = env.DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'agent-tts-inproc-')));
  const config = loadConfig({ DATA_DIR: dataDir, ...env });
  const log = logger(config);
  const services = await composeApi(config, log, parts(config));
  const shutdown = new AbortController();
  const app = createApiApp({ services, log, shutdown: shutdown.signal, withOps: config.opsPort === undefined });
  const voicesApp = createVoicesApp(voiceCatalog(config.engine, config.upstream), log, config.cors);
  const opsApp = createOpsApp(opsDepsOf(services, log), serverHosts(config));
  return inProcessHandle({ services, config, app, voicesApp, opsApp, log, dataDir }, 'in-process', async () => {
    shutdown.abort();
    await services.close();
    if (!env.DATA_DIR) await rm(dataDir, { recursive: true, force: true });
  });
}

/**
 * The handle of an API assembled in this process (the whole app, or createTestServices' lighter one):
 * keys on new accounts named `accountName`, requests through `app.request()`, its base URL answered in
 * process; `close` runs after the base URL is let go.
 */
export function inProcessHandle(
  parts: Pick<InProcessServer, 'services' | 'config' | 'app' | 'voicesApp' | 'opsApp' | 'log' | 'dataDir'>,
  accountName: string,
  close: () => Promise<void>,
): InProcessServer {
  const { services, config, app } = parts;
  const admin = new AccountAdmin(services.store);
  const unregister = registerInProcess(config.publicBaseUrl, app);
  return {
    ...parts,
    admin,
    baseUrl: config.publicBaseUrl,
    async newKey(options = {}) {
      const account = await admin.createAccount(accountName, options.plan ?? 'ultimate', options.subscription ?? 'active');
      const { key } = await admin.createKey(account.id);
      return { key, accountId: account.id };
    },
    async principal(key) {
      const result = await services.auth.authenticate(`Bearer ${key}`, Date.now());
      if (!result.ok) throw new Error(`key refused: ${result.code}`);
      return result.principal;
    },
    seed: () => seed(services.store, services.audio, config),
    request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      return Promise.resolve(app.request(path, { method, headers, body }));
    },
    async close() {
      unregister();
      await close();
    },
  };
}

/** A logger of the server's kind (level, redaction) whose lines are kept in memory instead of stdout. */
function capturingLogger(level: string, lines: string[]): Logger {
  return createLogger(level, undefined, { destination: { write: (line) => void lines.push(line) } });
}

/** What `startServer` gives of a spawned server, for a server in this process. */
export interface SeededServer {
  /** The API's base URL (as `startServer`'s `baseUrl`). */
  baseUrl: string;
  fixtures: ConformanceFixturesT;
  fixturesPath: string;
  dataDir: string;
  /** The settings it runs with, as a process would have had them. */
  env: Record<string, string>;
  inProcess: InProcessServer;
  /** Everything the server logged so far (JSON log lines). */
  logs(): string;
  /** Runs the admin CLI against this server's store. */
  admin(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

/** The reference server listening in this process on TCP ports, as a spawned one does. */
export interface ListeningServer extends SeededServer {
  url: string;
  port: number;
  voicesUrl: string;
  voicesPort: number;
}

/** Which store and queue: as `startServer`, the embedded mode unless TEST_BACKEND=redis (vitest.redis.config.ts). */
interface ServerOptions {
  seed?: boolean;
  backend?: 'embedded' | 'redis';
  /**
   * `instant`: the sandbox's instant synthesizer (silent MP3 frames, no worker pool, no eSpeak) in place
   * of the configured engine, the store and queue staying the real ones (SQLite, or Redis): for the HTTP
   * tests whose subject is not the audio itself. Default: the configured engine (real eSpeak).
   */
  synth?: 'engine' | 'instant';
}

/** What `options.synth` replaces of the composition. */
function composeParts(options: ServerOptions): (config: Config) => ComposeOptions {
  if (options.synth !== 'instant') return () => ({});
  return (config) => ({ synth: new InstantSynthesizer(config.inlineWaitMs / 1000, config.synthThreads ?? 1) });
}

/**
 * The environment `startServer` gives a spawned server (bench/harness/server-process.ts), Redis
 * settings of its own in the distributed mode, `env` winning.
 */
function serverEnv(env: Record<string, string>, options: ServerOptions): Record<string, string> {
  return {
    ...((options.backend ?? process.env.TEST_BACKEND) === 'redis' ? redisBackendEnv() : {}),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SYNTH_THREADS: '1',
    CORS_ORIGINS: 'https://app.example.com',
    CORS_PREVIEW_PATTERN: 'https://*.preview.example.com',
    ...env,
  };
}

/**
 * Composes the server with `settings` (a data directory of its own unless DATA_DIR is set), its log
 * kept in memory, the synthesizer `options.synth` names, and seeds it unless `options.seed` is false;
 * `serve` starts whatever listens and returns how to stop it, which `close` does first.
 */
async function seeded(
  settings: Record<string, string>,
  options: ServerOptions,
  serve: (server: InProcessServer) => Promise<() => Promise<void>>,
): Promise<SeededServer> {
  const ownDir = settings.DATA_DIR === undefined;
  const dataDir = settings.DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'agent-tts-test-')));
  const env = { ...settings, DATA_DIR: dataDir };
  const lines: string[] = [];
  const server = await compose(env, (config) => capturingLogger(config.logLevel, lines), composeParts(options));
  let stop: () => Promise<void> = async () => undefined;
  const close = async () => {
    await stop();
    await server.close();
    if (ownDir) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await warmUp(server);
    stop = await serve(server);
    const fixturesPath = join(dataDir, 'fixtures.json');
    let fixtures = {} as ConformanceFixturesT;
    if (options.seed !== false) {
      fixtures = await server.seed();
      await writeFixtures(fixturesPath, fixtures);
    }
    return {
      baseUrl: server.baseUrl,
      fixtures,
      fixturesPath,
      dataDir,
      env,
      inProcess: server,
      logs: () => lines.join(''),
      admin: (args, input) => runNode(ADMIN_MAIN, args, env, { input }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Waits for one job of an account of its own to finish: the speech engine's threads warm up at start
 * (seconds, more on a busy machine), which a spawned server does while its seeding process starts, and
 * the first jobs of a test must fit the inline wait as they do there.
 */
async function warmUp(server: InProcessServer): Promise<void> {
  if (server.config.engine !== 'espeak') return;
  const { key } = await server.newKey();
  const res = await server.request('POST', '/v1/agent-tts', { key, body: { text: 'Warming up.' } });
  const { job_id: jobId } = (await res.json()) as { job_id?: string };
  const deadline = Date.now() + 120_000;
  while (jobId && (await server.services.store.getJob(jobId))?.status === 'processing' && Date.now() < deadline) await sleep(100);
}

let virtualHosts = 0;

/**
 * The reference server in this process under a public base URL of its own
 * (`http://in-process-<n>.test`), with the environment and the seeding of `startServer`, listening
 * nowhere: for the HTTP behaviour tests, which talk to it with the helpers of test/helpers/http.ts
 * (`call`, `postJob`, …, routed to `app.request()`) as they would to a server on a port.
 */
export function startInProcessHttp(env: Record<string, string> = {}, options: ServerOptions = {}): Promise<SeededServer> {
  virtualHosts += 1;
  const settings = serverEnv({ PUBLIC_BASE_URL: `http://in-process-${virtualHosts}.test`, ...env }, options);
  return seeded(settings, options, async () => async () => undefined);
}

/**
 * The reference server in this process, listening on free loopback ports as `agent-tts-server` does
 * (src/server/entry/server.ts: the API app on PORT with its poll answered ahead of it, the voices app
 * on VOICES_PORT, the ops app on OPS_PORT when set, each through src/server/http/listen.ts), with the
 * environment `startServer` gives a spawned server and its seeding (unless `seed: false`). For tests
 * whose subject is another process (the CLI, the clients, a browser, the conformance suite) that need
 * only a server to talk to.
 */
export async function listen(env: Record<string, string> = {}, options: ServerOptions = {}): Promise<ListeningServer> {
  const settings = serverEnv({ PORT: String(await freePort()), VOICES_PORT: String(await freePort()), ...env }, options);
  const server = await seeded(settings, options, async ({ app, voicesApp, opsApp, config, services, log }) => {
    const servers: Server[] = [];
    // The tests are over when this runs: connections still open (a request left half-sent, a client's
    // keep-alive) are cut rather than waited out for the server's header and keep-alive timeouts.
    const stop = async () => {
      const closed = servers.map(closeServer);
      for (const s of servers) s.closeAllConnections();
      await Promise.all(closed);
    };
    try {
      servers.push(await listenOn(app.fetch, config.port, config.host, 'PORT', { ahead: pollFastPath(services, log) }));
      servers.push(await listenOn(voicesApp.fetch, config.voicesPort, config.host, 'VOICES_PORT'));
      if (config.opsPort !== undefined) servers.push(await listenOn(opsApp.fetch, config.opsPort, config.host, 'OPS_PORT'));
      await services.resumeInterrupted();
    } catch (error) {
      await stop();
      throw error;
    }
    return stop;
  });
  const { config } = server.inProcess;
  const url = `http://127.0.0.1:${config.port}`;
  return { ...server, url, baseUrl: url, port: config.port, voicesUrl: `http://127.0.0.1:${config.voicesPort}`, voicesPort: config.voicesPort };
}
