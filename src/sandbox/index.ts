import type { Server } from 'node:http';
import type { ConformanceFixturesT } from '../contract/fixtures.js';
import { closeServer, listen } from '../server/http/listen.js';
import type { Logger } from '../server/log.js';
import type { SeedCounts } from '../server/seed.js';
import type { ClockState } from './clock.js';
import type { JournalEntry, JournalFilter } from './journal.js';
import { createSandbox, type SandboxKeys } from './sandbox.js';

export { MAGIC_INPUTS, type MagicInput } from './outcomes.js';
export { SANDBOX_HEADER, type SandboxKeys } from './sandbox.js';
export type { ClockState } from './clock.js';
export type { Flag, JournalEntry, JournalFilter } from './journal.js';

export interface StartSandboxOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** The voice catalog's listener; default 0: any free port. */
  voicesPort?: number;
  /** Settings of the reference server's configuration (README "Configuration"), e.g. `{ RATE_POST_LIMIT: '5' }`. */
  env?: Record<string, string>;
  log?: Logger;
}

export interface RunningSandbox {
  /** The API's origin, e.g. http://127.0.0.1:41234. */
  baseUrl: string;
  /** The voice catalog's origin. */
  voicesUrl: string;
  keys: SandboxKeys;
  clock: {
    advance(seconds: number): Promise<ClockState>;
    set(at: Date | string): Promise<ClockState>;
    freeze(): Promise<ClockState>;
    unfreeze(): Promise<ClockState>;
    reset(): Promise<ClockState>;
    now(): Date;
  };
  journal: { list(filter?: JournalFilter): JournalEntry[]; clear(): void };
  /** Seeds the accounts the conformance suite needs and returns its fixtures (with `clock`). */
  fixtures(counts?: SeedCounts): Promise<ConformanceFixturesT>;
  stop(): Promise<void>;
}

/**
 * Starts a sandbox in this process (no child process), for the tests of client code: the reference
 * server's API over in-memory state, with test keys, a test clock and a request journal.
 *
 * ```ts
 * const sandbox = await startSandbox();
 * // … point the client at sandbox.baseUrl with sandbox.keys.active_pro; sandbox.clock.advance(3) …
 * await sandbox.stop();
 * ```
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  const notReady = () => new Response(null, { status: 503 });
  let api: (req: Request) => Response | Promise<Response> = notReady;
  let voices: (req: Request) => Response | Promise<Response> = notReady;
  const servers: Server[] = [];
  try {
    servers.push(await listen((req) => api(req), options.port ?? 0, host, '--port'));
    servers.push(await listen((req) => voices(req), options.voicesPort ?? 0, host, '--voices-port'));
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const [baseUrl, voicesUrl] = servers.map((s) => `http://${urlHost}:${(s.address() as { port: number }).port}`) as [string, string];
  let core;
  try {
    core = await createSandbox({ baseUrl, voicesUrl, env: options.env, log: options.log });
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
  const { clock, journal } = core;
  api = (req) => core.app.fetch(req);
  voices = (req) => core.voicesApp.fetch(req);
  const after = (move: Promise<void>) => move.then(() => clock.state());
  let stopped = false;
  return {
    baseUrl,
    voicesUrl,
    keys: core.keys,
    clock: {
      advance: (seconds) => after(clock.advance(seconds)),
      set: (at) => after(clock.set(new Date(at).getTime())),
      freeze: () => after(clock.freeze()),
      unfreeze: () => after(clock.unfreeze()),
      reset: () => after(clock.reset()),
      now: () => new Date(clock.now()),
    },
    journal: { list: (filter) => journal.list(filter), clear: () => journal.clear() },
    fixtures: (counts) => core.fixtures(counts),
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map(closeServer));
      await core.close();
    },
  };
}
