import type { Recorder } from './recorder.js';
import type { Schedule } from './schedule.js';

/** The one progress line: what has happened so far, from the recorder. */
export function progressLine(r: Recorder, schedule: Schedule, elapsedMs: number): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(0)}s`;
  const p95 = r.tta.percentile(95);
  const achieved = elapsedMs > 0 ? r.sent / (Math.min(elapsedMs, Math.max(schedule.totalMs, 1)) / 1000) : 0;
  const scheduled = schedule.rateAt(Math.min(elapsedMs, schedule.totalMs));
  const clock = elapsedMs <= schedule.totalMs ? `${s(elapsedMs)}/${s(schedule.totalMs)}` : `${s(elapsedMs)} (sending done)`;
  return (
    `${clock}  sent ${r.sent} (${achieved.toFixed(2)}/s, now ${scheduled.toFixed(2)}/s due)` +
    `  in flight ${r.inFlight} (polling ${r.polling})  inline ${r.inline}  job ${r.job}  audio ${r.endings.completed}` +
    `  429 ${r.endings.rate_limited}  errors ${r.endings.error}  tta p95 ${p95 === null ? '–' : `${Math.round(p95)}ms`}` +
    `  lag p99 ${Math.round(r.lag.percentile(99) ?? 0)}ms`
  );
}

/**
 * On a terminal: the line redrawn every second. Elsewhere (CI logs): a plain line every 5 s.
 * Off with --quiet.
 */
export class Progress {
  private timer?: ReturnType<typeof setInterval>;
  private drawn = false;
  private readonly tty: boolean;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly enabled: boolean,
    tty?: boolean,
  ) {
    this.tty = tty ?? Boolean(stream.isTTY);
  }

  start(recorder: Recorder, schedule: Schedule, t0: number): void {
    if (!this.enabled) return;
    const draw = () => {
      const line = progressLine(recorder, schedule, performance.now() - t0);
      if (this.tty) {
        const width = this.stream.columns ?? 160;
        this.stream.write(`\r\x1b[2K${line.slice(0, width - 1)}`);
        this.drawn = true;
      } else this.stream.write(`${line}\n`);
    };
    this.timer = setInterval(draw, this.tty ? 1000 : 5000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.tty && this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}
