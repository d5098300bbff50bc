import { systemClock, type ClientClock } from '../clock.js';
import type { ProgressEvent, RetryEvent } from '../types.js';
import type { Output } from './output.js';

export function formatSeconds(ms: number): string {
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** `1 POST per minute`, `30 GET per 60 s`: the bucket a 429 reported, from its RateLimit-Policy header. */
function describeBucket(event: RetryEvent): string {
  const method = event.error.rateLimit?.policy.name.toUpperCase() ?? event.method;
  const policy = event.error.rateLimit?.policy;
  if (!policy) return `too many ${method} requests`;
  const w = policy.windowSeconds;
  const per = w === undefined ? '' : w === 60 ? ' per minute' : w === 3600 ? ' per hour' : ` per ${w} s`;
  return `${policy.quota} ${method}${per}`;
}

/** A 429: the wait is announced, with its cause and how long, never sat out in silence. */
function isRateLimited(event: RetryEvent): boolean {
  return event.error.code === 'RATE_LIMITED' || event.error.status === 429;
}

/**
 * `rate limited: 1 POST per minute for this key; retrying in 57 s (Retry-After)…`, or on the sandbox's
 * clock (`--sandbox-clock`), where nothing is waited for: `…; advancing the sandbox clock 57 s (Retry-After)`.
 */
function describeRateLimitWait(event: RetryEvent, onSandboxClock: boolean): string {
  const seconds = Math.max(1, Math.round(event.delayMs / 1000));
  const why = event.error.retryAfterSeconds !== undefined ? ' (Retry-After)' : '';
  const next = onSandboxClock ? `advancing the sandbox clock ${seconds} s${why} and retrying` : `retrying in ${seconds} s${why}…`;
  return `rate limited: ${describeBucket(event)} for this key; ${next}`;
}

/**
 * How to avoid the wait: printed once per run, under the first rate-limited wait. To a sandbox (its
 * answers say so) it names the sandbox's own ways (its clock, its other test keys), not the sandbox.
 */
function rateLimitAdvice(event: RetryEvent): string {
  if (event.error.sandbox) {
    return (
      '  This is the sandbox: add --sandbox-clock to move its clock instead of waiting (a key is refilled at once), ' +
      'or use another of the test keys it printed at start (limits are per key).'
    );
  }
  const variable = (event.error.rateLimit?.policy.name ?? event.method.toLowerCase()) === 'get' ? 'RATE_GET_LIMIT' : 'RATE_POST_LIMIT';
  return (
    '  Limits are per key, and an account has one active key. To explore without waiting: the sandbox ' +
    `(agent-tts-sandbox: several test keys, and a test clock that refills a key at once), or a local server started with ${variable}=100 ` +
    '(README, "First request in one minute").'
  );
}

function describe(event: ProgressEvent, elapsedMs: number): string {
  const percent = event.percent !== undefined ? ` ${Math.round(event.percent)}%` : '';
  return `job ${event.jobId}: ${event.status}${percent}, ${formatSeconds(elapsedMs)} elapsed`;
}

/**
 * Progress of a long job on stderr. On a terminal: one line redrawn every second, so the elapsed
 * time moves between polls. Elsewhere (a log, a CI job): a plain line per answer from the service,
 * without control characters. Times shown (elapsed, a countdown) are on the command's clock; the
 * redraw itself is paced in real time.
 */
export class ProgressDisplay {
  private last?: ProgressEvent;
  private lastAt = 0;
  private ticker?: ReturnType<typeof setInterval>;
  private drawn = false;
  /** A rate-limited wait being counted down on the terminal: when it ends. */
  private waitUntil?: number;
  private waitTicker?: ReturnType<typeof setInterval>;
  private advised = false;

  constructor(
    private readonly output: Output,
    private readonly enabled: boolean,
    private readonly clock: ClientClock = systemClock,
    /** The waits advance a sandbox's clock (`--sandbox-clock`): nothing is waited out in real time. */
    private readonly onSandboxClock = false,
  ) {}

  private get tty(): boolean {
    return this.output.stderrIsTty;
  }

  update = (event: ProgressEvent): void => {
    if (!this.enabled) return;
    this.endWait(); // an answer came: any rate-limited wait is over
    this.last = event;
    this.lastAt = this.clock.now();
    if (event.status === 'completed' && event.polls === 0) return; // finished inline: nothing to show
    if (this.tty) {
      if (event.status === 'completed') {
        this.stop();
        this.output.err(describe(event, event.elapsedMs));
        return;
      }
      this.draw();
      if (!this.ticker) {
        this.ticker = setInterval(() => this.draw(), 1000);
        this.ticker.unref();
      }
    } else {
      const next = event.nextPollMs !== undefined ? `, next check in ${formatSeconds(event.nextPollMs)}` : '';
      this.output.err(`${describe(event, event.elapsedMs)}${next}`);
    }
  };

  /** Retries are worth a line of their own: they explain a pause. */
  retry = (event: RetryEvent): void => {
    if (!this.enabled) return;
    this.clearLine();
    if (isRateLimited(event)) {
      this.rateLimited(event);
      return;
    }
    const why = event.error.code === 'NETWORK_ERROR' ? event.error.message : `${event.error.code}: ${event.error.message}`;
    const key = event.method === 'POST' && event.error.needsNewIdempotencyKey ? ' with a new Idempotency-Key' : '';
    this.output.err(`${why} — retrying${key} in ${formatSeconds(event.delayMs)} (attempt ${event.attempt + 1})`);
    if (this.last) this.draw();
  };

  note(line: string): void {
    if (!this.enabled) return;
    this.clearLine();
    this.output.err(line);
  }

  /**
   * A 429 being waited out: one line saying which limit and for how long, and once per run how to
   * avoid it. On a terminal, a countdown below it, redrawn every second until the retry goes out.
   */
  private rateLimited(event: RetryEvent): void {
    this.output.err(describeRateLimitWait(event, this.onSandboxClock));
    // On the sandbox's clock the wait costs nothing: no advice how to avoid it, no countdown.
    if (this.onSandboxClock) return;
    if (!this.advised) {
      this.advised = true;
      this.output.err(rateLimitAdvice(event));
    }
    if (!this.tty) return;
    this.endWait();
    this.waitUntil = this.clock.now() + event.delayMs;
    this.draw();
    this.waitTicker = setInterval(() => {
      if (this.clock.now() >= (this.waitUntil ?? 0)) {
        this.endWait();
        this.clearLine();
        if (this.last) this.draw();
      } else {
        this.draw();
      }
    }, 1000);
    this.waitTicker.unref();
  }

  private endWait(): void {
    if (this.waitTicker) clearInterval(this.waitTicker);
    this.waitTicker = undefined;
    this.waitUntil = undefined;
  }

  stop(): void {
    this.endWait();
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
    if (this.tty && this.drawn) {
      this.clearLine();
    }
  }

  private draw(): void {
    if (!this.tty) return;
    if (this.waitUntil !== undefined) {
      const left = Math.max(0, Math.ceil((this.waitUntil - this.clock.now()) / 1000));
      this.output.errRaw(`\r\x1b[2K  retrying in ${left} s…`);
      this.drawn = true;
      return;
    }
    if (!this.last) return;
    const elapsed = this.last.elapsedMs + (this.clock.now() - this.lastAt);
    this.output.errRaw(`\r\x1b[2K${describe(this.last, this.last.status === 'completed' ? this.last.elapsedMs : elapsed)}`);
    this.drawn = true;
  }

  private clearLine(): void {
    if (this.tty && this.drawn) {
      this.output.errRaw('\r\x1b[2K');
      this.drawn = false;
    }
  }
}
