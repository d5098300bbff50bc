/**
 * Benchmarks of the paths that matter, each against a baseline measured in the same run (the machine
 * is shared and noisy, so only ratios and same-run differences mean anything). See bench/README.md.
 *
 *   npm run bench                         full run (12 to 60 minutes, by machine), writes bench/results/<date>-full.{md,json}
 *   npm run bench -- --quick              4.5 to 6 minutes, checks that every benchmark still runs
 *   npm run bench -- --only poll,inline   a selection: poll | inline | open-loop | long | synth-engine |
 *                                         synth-mp3 | synth-long | store | word-timings | timings-long | stream,
 *                                         or synth for the three synth-*, timings for the two timings ones
 *   npm run bench -- --profile            servers under `node --cpu-prof`, hot functions in the result
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { renameOldFlags } from '@agent-tts/contract/flag-names.js';
import { runInline } from './benchmarks/inline.js';
import { runLong } from './benchmarks/long.js';
import { runOpenLoop } from './benchmarks/open-loop.js';
import { runPoll } from './benchmarks/poll.js';
import { runSynthEngine } from './benchmarks/synth-engine.js';
import { runSynthLong } from './benchmarks/synth-long.js';
import { runSynthMp3 } from './benchmarks/synth-mp3.js';
import { runStore } from './benchmarks/store.js';
import { runStream } from './benchmarks/stream.js';
import { runTimingsLong } from './benchmarks/timings-long.js';
import { runWordTimings } from './benchmarks/word-timings.js';
import { describeMachine, type MachineInfo } from './harness/machine.js';
import { BENCH_ROOT } from './harness/agent-server.js';
import type { BenchContext, BenchmarkOutput, TargetResult } from './harness/report-types.js';
import { round } from './harness/stats.js';

const BENCHMARKS = {
  poll: runPoll,
  inline: runInline,
  'open-loop': runOpenLoop,
  long: runLong,
  'synth-engine': runSynthEngine,
  'synth-mp3': runSynthMp3,
  'synth-long': runSynthLong,
  store: runStore,
  'word-timings': runWordTimings,
  'timings-long': runTimingsLong,
  stream: runStream,
} as const;
type BenchmarkName = keyof typeof BENCHMARKS;
const NAMES = Object.keys(BENCHMARKS) as BenchmarkName[];
/** Names that select several benchmarks at once. */
const GROUPS: Record<string, BenchmarkName[]> = { synth: ['synth-engine', 'synth-mp3', 'synth-long'], timings: ['word-timings', 'timings-long'] };

const HELP = `Usage: npm run bench -- [--quick] [--only ${[...NAMES, ...Object.keys(GROUPS)].join('|')}[,…]] [--label <name>] [--note <text>] [--profile]
                           [--threads <n>] [--redis-url <url>] [--out-dir <dir>]

  --quick        short runs (4.5 to 6 minutes in all): checks that the benchmarks still run; figures are
                 indicative and targets are not evaluated
  --only         run only these benchmarks (comma-separated or repeated); synth = the three synth-*,
                 timings = word-timings and timings-long
  --label        name of the result files: bench/results/<date>-<label>.{md,json}
                 (default: full or quick, plus the selection and "profile")
  --note         a sentence for the result files, e.g. what else ran on the machine meanwhile
  --profile      run the servers under node --cpu-prof and put their hottest functions in the result
  --threads      synthesis threads of the server and of the direct pipeline (default: available cores)
  --redis-url    Redis for the poll benchmark's Redis mode (default: $BENCH_REDIS_URL or redis://127.0.0.1:6379)
  --out-dir      where the result files go (default: bench/results); formerly --results-dir, still read`;

interface RunResult {
  label: string;
  date: string;
  started_at: string;
  duration_s: number;
  command: string;
  invoked_as?: string;
  quick: boolean;
  note?: string;
  machine: MachineInfo;
  loadavg_at_end: number[];
  settings: { synth_threads: number; redis_url: string; profile: boolean; benchmarks: BenchmarkName[] };
  targets: TargetResult[];
  benchmarks: Record<string, BenchmarkOutput['data']>;
  errors: { benchmark: string; error: string }[];
}

function parseCli(argv: string[]) {
  const { values } = parseArgs({
    args: renameOldFlags(argv, { 'results-dir': 'out-dir' }, (line) => process.stderr.write(`bench: ${line}\n`)),
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string', multiple: true },
      label: { type: 'string' },
      note: { type: 'string' },
      profile: { type: 'boolean', default: false },
      threads: { type: 'string' },
      'redis-url': { type: 'string' },
      'out-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const selected = (values.only ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const name of selected) {
    if (!(NAMES as string[]).includes(name) && !GROUPS[name])
      throw new Error(`--only: unknown benchmark "${name}"; one of ${[...NAMES, ...Object.keys(GROUPS)].join(', ')}`);
  }
  const wanted = new Set(selected.flatMap((name) => GROUPS[name] ?? [name]));
  const threads = values.threads === undefined ? availableParallelism() : Number(values.threads);
  if (!Number.isInteger(threads) || threads < 1 || threads > 64) throw new Error('--threads must be a whole number from 1 to 64');
  if (values.label !== undefined && !/^[a-z0-9][a-z0-9._-]*$/i.test(values.label)) throw new Error('--label: letters, digits, ".", "_" and "-" only');
  return {
    help: values.help,
    quick: values.quick,
    profile: values.profile,
    threads,
    benchmarks: selected.length ? NAMES.filter((n) => wanted.has(n)) : NAMES,
    /** The selection as given (a group by its name), for the label. */
    selected: [...new Set(selected)],
    label: values.label,
    note: values.note,
    redisUrl: values['redis-url'] ?? process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    resultsDir: resolve(values['out-dir'] ?? join(BENCH_ROOT, 'results')),
  };
}

function localDate(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function targetsTable(targets: TargetResult[]): string {
  if (targets.length === 0) return 'No target was measured in this run.';
  return [
    '| Target | Measured | Result |',
    '| --- | --- | --- |',
    ...targets.map((t) => `| ${t.target} | ${t.measured} | **${t.status}**${t.note ? ` (${t.note})` : ''} |`),
  ].join('\n');
}

function markdown(run: RunResult, outputs: BenchmarkOutput[]): string {
  const m = run.machine;
  const lines = [
    `# Benchmark results: ${run.date}, ${run.label}`,
    '',
    `- Command: \`${run.invoked_as ?? run.command}\`${run.invoked_as ? ` (\`${run.command}\`)` : ''}`,
    `- Machine: ${m.cores} cores, ${m.cpu_model}, ${(m.memory_total_mb / 1024).toFixed(1)} GB memory, ${m.os}, Node ${m.node}`,
    `- Load average (1/5/15 min) at start ${m.loadavg_at_start.join(' / ')}, at end ${run.loadavg_at_end.join(' / ')}: the machine is shared, so every figure is read against a baseline of the same run.`,
    `- ${run.quick ? '**Quick run**: short measurements to check that the benchmarks run; figures are indicative only and targets are not evaluated.' : 'Full run.'} ` +
      `Synthesis threads: ${run.settings.synth_threads}. Started ${run.started_at}, took ${run.duration_s} s.`,
    ...(run.note ? [`- Note: ${run.note}`] : []),
    '',
    '## Targets',
    '',
    targetsTable(run.targets),
  ];
  for (const output of outputs) {
    const load = output.data.machine_load_1m as { start: number; end: number };
    lines.push(
      '',
      `## ${output.title}`,
      '',
      output.markdown,
      '',
      `Load average (1 min) of the machine when this benchmark started and ended: ${load.start} / ${load.end}.`,
    );
  }
  if (run.errors.length) {
    lines.push('', '## Errors', '', ...run.errors.map((e) => `- **${e.benchmark}** did not complete: ${e.error.split('\n').join(' ')}`));
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<number> {
  const cli = parseCli(process.argv.slice(2));
  if (cli.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const startedAt = new Date();
  const t0 = performance.now();
  const label = cli.label ?? [cli.quick ? 'quick' : 'full', ...cli.selected, ...(cli.profile ? ['profile'] : [])].join('-');
  const machine = describeMachine();
  const log = (message: string) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
  const ctx: BenchContext = {
    quick: cli.quick,
    synthThreads: cli.threads,
    redisUrl: cli.redisUrl,
    profileDir: cli.profile ? await mkdtemp(join(tmpdir(), 'agent-tts-bench-profiles-')) : undefined,
    log,
  };
  log(`${label}: ${cli.benchmarks.join(', ')} on ${machine.cores} cores (${machine.cpu_model}), Node ${machine.node}`);

  const outputs: BenchmarkOutput[] = [];
  const errors: RunResult['errors'] = [];
  for (const name of cli.benchmarks) {
    try {
      const loadStart = round(loadavg()[0] ?? Number.NaN, 2);
      const output = await BENCHMARKS[name](ctx);
      // What else ran on the machine meanwhile: the first thing to look at when a figure jumps.
      output.data.machine_load_1m = { start: loadStart, end: round(loadavg()[0] ?? Number.NaN, 2) };
      outputs.push(output);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`${name} failed: ${message}`);
      errors.push({ benchmark: name, error: message });
    }
  }

  // Quoted where the shell needs it, so the command can be run again as written.
  const args = process.argv
    .slice(2)
    .map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`))
    .join(' ');
  const event = process.env.npm_lifecycle_event;
  const run: RunResult = {
    label,
    date: localDate(startedAt),
    started_at: startedAt.toISOString(),
    duration_s: round((performance.now() - t0) / 1000, 0),
    command: `node bench/dist/run.js${args ? ` ${args}` : ''}`,
    invoked_as: event?.startsWith('bench') ? `npm run ${event}${args ? ` -- ${args}` : ''}` : undefined,
    quick: cli.quick,
    note: cli.note,
    machine,
    loadavg_at_end: loadavg().map((x) => round(x, 2)),
    settings: { synth_threads: cli.threads, redis_url: cli.redisUrl, profile: cli.profile, benchmarks: cli.benchmarks },
    targets: outputs.flatMap((o) => o.targets),
    benchmarks: Object.fromEntries(outputs.map((o) => [o.name, o.data])),
    errors,
  };
  await mkdir(cli.resultsDir, { recursive: true });
  const base = join(cli.resultsDir, `${run.date}-${label}`);
  await writeFile(`${base}.json`, `${JSON.stringify(run, null, 2)}\n`);
  await writeFile(`${base}.md`, markdown(run, outputs));
  log(`wrote ${relative(process.cwd(), base)}.md and .json in ${run.duration_s} s`);
  for (const t of run.targets) log(`  ${t.status.padEnd(13)} ${t.target}: ${t.measured}`);
  if (ctx.profileDir) log(`CPU profiles kept in ${ctx.profileDir}`);
  return errors.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
