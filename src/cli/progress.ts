import type { ProgressEvent, RetryEvent } from '../client/types.js';
import type { Output } from './output.js';

export function formatSeconds(ms: number): string {
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

function describe(event: ProgressEvent, elapsedMs: number): string {
  const percent = event.percent !== undefined ? ` ${Math.round(event.percent)}%` : '';
  return `job ${event.jobId}: ${event.status}${percent}, ${formatSeconds(elapsedMs)} elapsed`;
}

/**
 * Progress of a long job on stderr. On a terminal: one line redrawn every second, so the elapsed
 * time moves between polls. Elsewhere (a log, a CI job): a plain line per answer from the service,
 * without control characters.
 */
export class ProgressDisplay {
  private last?: ProgressEvent;
  private lastAt = 0;
  private ticker?: ReturnType<typeof setInterval>;
  private drawn = false;

  constructor(
    private readonly output: Output,
    private readonly enabled: boolean,
  ) {}

  private get tty(): boolean {
    return this.output.stderrIsTty;
  }

  update = (event: ProgressEvent): void => {
    if (!this.enabled) return;
    this.last = event;
    this.lastAt = Date.now();
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

  stop(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
    if (this.tty && this.drawn) {
      this.clearLine();
    }
  }

  private draw(): void {
    if (!this.last || !this.tty) return;
    const elapsed = this.last.elapsedMs + (Date.now() - this.lastAt);
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
