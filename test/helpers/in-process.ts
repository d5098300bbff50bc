import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { PlanId } from '../../src/contract/plans.js';
import { voiceCatalog } from '../../src/server/synth/index.js';
import { composeApi, type ApiServices } from '../../src/server/compose.js';
import { loadConfig } from '../../src/server/config.js';
import { AccountAdmin } from '../../src/server/domain/accounts.js';
import type { Principal } from '../../src/server/domain/auth.js';
import { createApiApp, createOpsApp, createVoicesApp, opsDepsOf } from '../../src/server/http/apps.js';
import type { AppEnv } from '../../src/server/http/context.js';
import { createLogger } from '../../src/server/log.js';

/**
 * The reference server's apps in this process, over the real embedded adapters (SQLite in a fresh
 * data directory, the in-process limiter and queue, one synthesis thread), for `app.request()` tests
 * of handlers and tests of the domain services.
 */
export interface InProcessServer {
  services: ApiServices;
  app: OpenAPIHono<AppEnv>;
  voicesApp: OpenAPIHono<AppEnv>;
  opsApp: OpenAPIHono<AppEnv>;
  admin: AccountAdmin;
  /** A fresh account with one active key; returns the full key. */
  newKey(options?: { plan?: PlanId; subscription?: 'active' | 'inactive' }): Promise<{ key: string; accountId: string }>;
  principal(key: string): Promise<Principal>;
  /** `app.request()` with a key (and JSON body when given). */
  request(method: string, path: string, options?: { key?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

export async function startInProcess(env: Record<string, string> = {}): Promise<InProcessServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-tts-inproc-'));
  // A generous inline wait: these tests are about what is answered, not how fast (the machine may be busy).
  const config = loadConfig({ DATA_DIR: dataDir, SYNTH_THREADS: '1', LOG_LEVEL: 'silent', INLINE_WAIT_MS: '60000', ...env });
  const log = createLogger('silent');
  const services = await composeApi(config, log);
  const shutdown = new AbortController();
  const app = createApiApp({ services, log, shutdown: shutdown.signal, withOps: config.opsPort === undefined });
  const voicesApp = createVoicesApp(voiceCatalog(config.engine, config.upstream), log, config.cors);
  const opsApp = createOpsApp(opsDepsOf(services, log));
  const admin = new AccountAdmin(services.store);
  return {
    services,
    app,
    voicesApp,
    opsApp,
    admin,
    async newKey(options = {}) {
      const account = await admin.createAccount('in-process', options.plan ?? 'ultimate', options.subscription ?? 'active');
      const { key } = await admin.createKey(account.id);
      return { key, accountId: account.id };
    },
    async principal(key) {
      const result = await services.auth.authenticate(`Bearer ${key}`, Date.now());
      if (!result.ok) throw new Error(`key refused: ${result.code}`);
      return result.principal;
    },
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
      shutdown.abort();
      await services.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
