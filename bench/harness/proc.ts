import { readFileSync, writeFileSync } from 'node:fs';

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM…); undefined when the process is gone or not Linux. */
export function procStatusBytes(pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export const MB = 1024 * 1024;

/** The kernel's USER_HZ: /proc reports CPU times in these ticks (100 on every mainstream Linux). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system, all threads) a process has used so far; undefined when it is gone. */
export function procCpuSeconds(pid: number | 'self'): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may itself contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Samples VmRSS of some processes at a fixed interval until stopped; keeps the peak of each. VmHWM is
 * the kernel's own peak and is exact, but only for the whole life of a process: the samples show the
 * peak over the window that matters.
 */
export class RssSampler<Name extends string = string> {
  private readonly peaks = new Map<string, number>();
  private readonly samples = new Map<string, number[]>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pids: Record<Name, number | 'self'>,
    intervalMs = 200,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  private sample(): void {
    for (const [name, pid] of Object.entries<number | 'self'>(this.pids)) {
      const rss = procStatusBytes(pid, 'VmRSS');
      if (rss === undefined) continue;
      this.peaks.set(name, Math.max(this.peaks.get(name) ?? 0, rss));
      const list = this.samples.get(name) ?? [];
      list.push(rss);
      this.samples.set(name, list);
    }
  }

  /** Stops sampling; peak VmRSS and the number of samples per process. */
  stop(): Record<Name, { peak_rss_bytes: number; samples: number }> {
    clearInterval(this.timer);
    this.sample();
    const figures = (name: string) => ({ peak_rss_bytes: this.peaks.get(name) ?? Number.NaN, samples: this.samples.get(name)?.length ?? 0 });
    // One entry per name the sampler was given: a record of those very names.
    return Object.fromEntries(Object.keys(this.pids).map((name) => [name, figures(name)])) as Record<Name, { peak_rss_bytes: number; samples: number }>;
  }
}

/**
 * Resets the kernel's peak RSS (VmHWM) of this process to its current RSS (Linux ≥ 4.0, writing 5 to
 * clear_refs), so that a later VmHWM is the peak of what ran since. False when not possible.
 */
export function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** CPU seconds (user + system, every thread of this process) since `start` = process.cpuUsage(). */
export function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}
