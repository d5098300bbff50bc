import type { ClientClock } from './clock.js';
import { abortReason } from './retry.js';

/**
 * Clocks for the clients (typed client, CLI, MCP server) that move a sandbox's test clock instead of
 * waiting: a client told to wait 5 s advances the sandbox clock by 5 s and goes on at once, so a test of
 * polling, Retry-After or a long job takes no real time. Only this module's imports are light (no
 * server code), so the CLI can use `remoteClientClock` without loading the sandbox.
 */

/** The header on every answer of a sandbox (SANDBOX_HEADER of ./sandbox.ts), lower-cased as fetch reads it. */
const SANDBOX_MARK = 'agent-tts-sandbox';

/** What `clientClockFor` needs of a test clock: `RunningSandbox.clock`, or the sandbox's own SandboxClock. */
export interface MovableClock {
  /** The clock's time (a Date, or milliseconds since the epoch). */
  now(): Date | number;
  /** Moves the clock forward; resolves once what the move makes due has run. */
  advance(seconds: number): Promise<unknown>;
}

/**
 * A ClientClock on a sandbox's test clock in this process: `now()` is the sandbox clock's time and
 * `sleep(ms)` advances the sandbox clock by `ms` (resolving once the work that makes due has run, such
 * as a job completing) instead of waiting. An aborted signal rejects with its reason, at once.
 */
export function clientClockFor(clock: MovableClock): ClientClock {
  return {
    now: () => {
      const now = clock.now();
      return typeof now === 'number' ? now : now.getTime();
    },
    sleep: (ms, signal) => advanceUnlessAborted(() => clock.advance(Math.max(0, ms) / 1000), signal),
  };
}

/** Runs `move`, settling as it does, or rejecting with the signal's reason as soon as it aborts. */
function advanceUnlessAborted(move: () => Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal!));
    signal?.addEventListener('abort', onAbort, { once: true });
    move().then(
      () => {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) reject(abortReason(signal));
        else resolve();
      },
      (error: unknown) => {
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Why a remote sandbox clock failed: it could not be reached, it is not a sandbox's clock, or it refused a move. */
export class SandboxClockError extends Error {
  override readonly name = 'SandboxClockError';
  constructor(
    message: string,
    readonly reason: 'unreachable' | 'not-a-sandbox' | 'refused',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface ClockAnswer {
  now: string;
  frozen: boolean;
}

function isClockAnswer(value: unknown): value is ClockAnswer {
  const v = value as Partial<ClockAnswer> | null;
  return typeof v === 'object' && v !== null && typeof v.now === 'string' && typeof v.frozen === 'boolean' && !Number.isNaN(Date.parse(v.now));
}

/** Where `remoteClientClock` finds its clock: an API key makes it the clock that key is on. */
export interface RemoteClockOptions {
  /**
   * The API key the client uses: the clock advanced is the one the sandbox routes that key's requests
   * and jobs to (`GET /sandbox/clocks/mine`), a test clock's for a key of a test clock, so that its
   * jobs become due and the global clock stays put. Without it (and without `clockUrl`), the global clock.
   */
  apiKey?: string;
}

/**
 * A ClientClock on the test clock of a sandbox in another process (`agent-tts-sandbox`), over its HTTP
 * API: `sleep(ms)` is `POST <clock URL> {"advance_seconds": ms / 1000}`, and `now()` is the sandbox
 * clock's time as of its last answer, running on with real time unless the clock is frozen (a move made
 * by someone else shows after this clock's next sleep). Resolves once the clock answered `GET`; rejects
 * with a SandboxClockError saying why when `clockUrl` is not a sandbox's clock (a deployment has none).
 *
 * @param baseUrl the sandbox's API origin (its printed URL)
 * @param clockUrl the clock's URL; default: the clock of `options.apiKey` (`/sandbox/clocks/<id>`, found
 *   with `GET /sandbox/clocks/mine`), or without a key `${baseUrl}/sandbox/clock` (the global clock)
 */
export async function remoteClientClock(baseUrl: string, clockUrl?: string, options: RemoteClockOptions = {}): Promise<ClientClock> {
  const origin = baseUrl.replace(/\/+$/, '');
  const byKey = clockUrl === undefined && options.apiKey !== undefined && options.apiKey !== '';
  let url = clockUrl ?? `${origin}/sandbox/clock`;
  let known = { at: 0, frozen: false, realAt: 0 };
  const learn = (answer: ClockAnswer) => {
    known = { at: Date.parse(answer.now), frozen: answer.frozen, realAt: Date.now() };
  };
  const call = async (init: RequestInit, doing: string): Promise<ClockAnswer & { url?: unknown }> => {
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      if (init.signal?.aborted) throw abortReason(init.signal);
      const why = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      throw new SandboxClockError(`Could not reach the sandbox clock at ${url} to ${doing}: ${why}`, 'unreachable', { cause: error });
    }
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: reported below
    }
    if (response.headers.get(SANDBOX_MARK) !== '1') {
      throw new SandboxClockError(
        `${url} is not a sandbox's test clock (HTTP ${response.status}, no ${SANDBOX_MARK} header): only agent-tts-sandbox has a clock to advance; ` +
          'point it at the URL the sandbox printed.',
        'not-a-sandbox',
      );
    }
    if (!response.ok || !isClockAnswer(body)) {
      const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
      throw new SandboxClockError(
        `The sandbox clock at ${url} refused to ${doing}: HTTP ${response.status}${typeof message === 'string' ? `: ${message}` : ''}`,
        'refused',
      );
    }
    return body;
  };
  // First without the key: a base URL that is not a sandbox is refused before the key is sent to it.
  learn(await call({ method: 'GET' }, 'tell its time'));
  if (byKey) {
    url = `${origin}/sandbox/clocks/mine`;
    const mine = await call({ method: 'GET', headers: { Authorization: `Bearer ${options.apiKey}` } }, "tell the clock of the key's requests");
    if (typeof mine.url !== 'string' || !mine.url.startsWith('/sandbox/clocks/')) {
      throw new SandboxClockError(`The sandbox at ${origin} did not name the clock of the key (GET /sandbox/clocks/mine answered no clock URL).`, 'refused');
    }
    url = `${origin}${mine.url}`;
    learn(mine);
  }
  return {
    now: () => (known.frozen ? known.at : known.at + (Date.now() - known.realAt)),
    sleep: (ms, signal) =>
      advanceUnlessAborted(async () => {
        if (!(ms > 0)) return;
        const seconds = ms / 1000;
        learn(
          await call(
            { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ advance_seconds: seconds }), signal },
            `advance ${seconds} s`,
          ),
        );
      }, signal),
  };
}
