/** Shared by the synthesis benchmarks: machine facts, the command line, and writing results. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), import.meta.url.includes('/dist/') ? '../..' : '..');

export interface Machine {
  cores: number;
  cpu: string;
  memoryGiB: number;
  node: string;
  platform: string;
}

export function machine(): Machine {
  return {
    cores: availableParallelism(),
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** The command that ran this benchmark, as it would be typed from the repository root. */
export function command(): string {
  const script = relative(repoRoot, process.argv[1] ?? '');
  const args = process.argv.slice(2).join(' ');
  const runner = script.endsWith('.ts') ? 'npx tsx' : 'node';
  return `${runner} ${script}${args ? ` ${args}` : ''}`;
}

/** Peak resident set of the whole process (all threads) so far, from the kernel. */
export async function peakRssBytes(): Promise<number | undefined> {
  try {
    const status = await readFile('/proc/self/status', 'utf8');
    const kib = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
    return kib ? Number(kib) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** 1-minute load average: figures measured on a busy machine are lower than it can do. */
export const load = () => round(loadavg()[0] ?? 0, 2);

export function printHeader(title: string): void {
  const m = machine();
  console.log(`# ${title}`);
  console.log(`command: ${command()}`);
  console.log(`machine: ${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}; load average ${load()}`);
}

/** CPU seconds this process has used (all threads) since `since`. */
export function cpuSeconds(since?: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

/** Writes bench/results/synth-<name>.json and .md (a table of the figures plus notes). */
export async function writeResults(name: string, title: string, figures: Record<string, unknown>, notes: string[] = []): Promise<void> {
  const dir = join(repoRoot, 'bench', 'results');
  await mkdir(dir, { recursive: true });
  const record = { benchmark: name, date: new Date().toISOString(), command: command(), machine: machine(), figures, notes };
  await writeFile(join(dir, `synth-${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
  const m = record.machine;
  const rows = Object.entries(figures).map(([key, value]) => `| ${key} | ${typeof value === 'object' ? JSON.stringify(value) : String(value)} |`);
  const md = [
    `# ${title}`,
    '',
    `- Command: \`${record.command}\``,
    `- Date: ${record.date}`,
    `- Machine: ${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.platform}`,
    '',
    '| Figure | Value |',
    '| --- | --- |',
    ...rows,
    ...(notes.length ? ['', ...notes.map((n) => `- ${n}`)] : []),
    '',
  ].join('\n');
  await writeFile(join(dir, `synth-${name}.md`), md);
  console.log(`results: bench/results/synth-${name}.md, bench/results/synth-${name}.json`);
}

/**
 * Ordinary English prose of at least `chars` characters: a fixed set of varied sentences, cycled with
 * a running paragraph number so that consecutive chunks differ.
 */
export function englishProse(chars: number): string {
  const sentences = [
    'The morning train was late again, so the platform filled with people reading, talking and checking their watches.',
    'A small dog wandered between the benches, looking hopefully at anyone holding a sandwich.',
    'When the announcement finally came, it said only that the delay was due to circumstances beyond anyone’s control.',
    'Nobody believed it, but nobody complained either; complaining had never made a train arrive sooner.',
    'At twenty past eight the lights of the engine appeared around the bend, and a tired cheer went up.',
    'Inside, the carriages were warm and smelled faintly of coffee and rain-soaked coats.',
    'An old man by the window unfolded a map of the coast and traced a route with his finger.',
    'He had walked that path forty years ago, he told the student beside him, before the road was built.',
    'The student listened politely, then asked whether the lighthouse at the end was still standing.',
    'It was, the old man said, although the keeper had been replaced by a machine that never slept.',
    'Outside, the fields gave way to low hills, and the hills to a grey line of sea.',
    'By the time they reached the last station, the rain had stopped and the clouds were breaking apart.',
  ];
  const paragraphs: string[] = [];
  let length = 0;
  for (let n = 1; length < chars; n++) {
    const paragraph = `Part ${n}. ${sentences.slice(n % 5).concat(sentences.slice(0, n % 5)).join(' ')}`;
    paragraphs.push(paragraph);
    length += paragraph.length + 2;
  }
  return paragraphs.join('\n\n').slice(0, chars);
}
