import type { Recorder } from './recorder.js';
import type { Schedule } from './schedule.js';

/** The fields of the progress line, most important first. */
function progressFields(r: Recorder, schedule: Schedule, elapsedMs: number): string[] {
  const s = (ms: number) => `${(ms / 1000).toFixed(0)}s`;
  const ms = (v: number | null) => (v === null ? '–' : v >= 10_000 ? `${(v / 1000).toFixed(1)}s` : `${Math.round(v)}ms`);
  const achieved = elapsedMs > 0 ? r.sent / (Math.min(elapsedMs, Math.max(schedule.totalMs, 1)) / 1000) : 0;
  const due = schedule.rateAt(Math.min(elapsedMs, schedule.totalMs));
  const clock = elapsedMs <= schedule.totalMs ? `${s(elapsedMs)}/${s(schedule.totalMs)}` : `${s(elapsedMs)} (sending done)`;
  return [
    clock,
    `sent ${r.sent} at ${achieved.toFixed(2)}/s (due ${due.toFixed(2)}/s)`,
    `inline ${r.inline}`,
    `job ${r.job} (polling ${r.polling})`,
    `audio ${r.endings.completed}`,
    `429 ${r.endings.rate_limited}`,
    `errors ${r.endings.error}`,
    `tta p95 ${ms(r.tta.percentile(95))}`,
    `lag p99 ${ms(r.lag.percentile(99))}`,
  ];
}

/** The fields joined, as many whole ones as fit in `width` columns. */
export function progressLine(r: Recorder, schedule: Schedule, elapsedMs: number, width = Infinity): string {
  let line = '';
  for (const field of progressFields(r, schedule, elapsedMs)) {
    const next = line === '' ? field : `${line}  ${field}`;
    if (next.length > width && line !== '') break;
    line = next;
  }
  return line;
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
      const elapsed = performance.now() - t0;
      if (this.tty) {
        const line = progressLine(recorder, schedule, elapsed, (this.stream.columns ?? 160) - 1);
        this.stream.write(`\r\x1b[2K${line}`);
        this.drawn = true;
      } else this.stream.write(`${progressLine(recorder, schedule, elapsed)}\n`);
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
