export type TargetStatus = 'pass' | 'miss' | 'not evaluated';

/** One target of the issue, or one behaviour check, with what this run measured. */
export interface TargetResult {
  id: string;
  target: string;
  measured: string;
  status: TargetStatus;
  note?: string;
}

export interface BenchmarkOutput {
  name: 'poll' | 'inline' | 'open-loop' | 'long' | 'synth-engine' | 'synth-mp3' | 'synth-long' | 'store' | 'word-timings' | 'timings-long' | 'stream';
  title: string;
  /** Everything measured and every parameter, for the JSON result. */
  data: Record<string, unknown>;
  /** The benchmark's section of the Markdown result. */
  markdown: string;
  targets: TargetResult[];
}

export interface BenchContext {
  quick: boolean;
  synthThreads: number;
  redisUrl: string;
  /** Set with --profile: servers run under `node --cpu-prof`, profiles land here. */
  profileDir?: string;
  log(message: string): void;
  /** Inline-path capacity measured earlier in the run (completed POSTs per second), for the open loop. */
  capacityPerS?: number;
}

export function status(pass: boolean): TargetStatus {
  return pass ? 'pass' : 'miss';
}

/** A two-column Markdown table of named figures. */
export function figuresTable(figures: Record<string, string | number | undefined>): string {
  return ['| Figure | Value |', '| --- | ---: |', ...Object.entries(figures).map(([name, value]) => `| ${name} | ${value ?? '–'} |`)].join('\n');
}
