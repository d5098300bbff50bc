import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultSynthesisRequest } from '../harness/direct-pipeline.js';
import type { LongJobFigures } from '../harness/long-job.js';
import { runNode } from '../harness/node-process.js';
import { type BenchContext, type BenchmarkOutput, figuresTable, status } from '../harness/report-types.js';
import { median, round } from '../harness/stats.js';

/**
 * What word timings cost a long job: the `synth-long` text (500,000 characters) through the pipeline
 * alone, without and with `timestamps: "word"`, in alternating rounds (without, with, with, without,
 * twice) so that drift of a shared machine weighs on both alike. Each round is a process of its own
 * (harness/long-job.ts: warm pool, then the job), so that each starts from the same memory: in one
 * process, every job inherits the heap the one before left (measured: 231, 270, 325, 337 MB before
 * four rounds). Wall time, CPU time of the process (every thread), peak RSS (VmHWM reset before the job,
 * and VmRSS sampled every 200 ms).
 */

type Mode = LongJobFigures['mode'];
type Round = LongJobFigures;

const LONG_JOB = join(fileURLToPath(new URL('../harness/', import.meta.url)), 'long-job.js');

async function runRound(ctx: BenchContext, chars: number, mode: Mode): Promise<Round> {
  const { code, stdout, stderr } = await runNode(LONG_JOB, [String(chars), mode, String(ctx.synthThreads)], {}, { timeoutMs: 1_800_000 });
  if (code !== 0) throw new Error(`the ${mode} round failed (exit ${code}): ${stderr.trim().split('\n').slice(-5).join(' ')}`);
  const round_ = JSON.parse(stdout.trim().split('\n').at(-1)!) as Round;
  ctx.log(`  ${mode}: ${round_.wall_s} s wall, ${round_.cpu_s} s CPU, peak ${round_.peak_rss_mb} MB${round_.words ? `, ${round_.words} words` : ''}`);
  return round_;
}

/** Medians of a mode's rounds: a round slowed by other work on the machine moves the mean, not the median. */
function summary(rounds: readonly Round[], mode: Mode) {
  const of = rounds.filter((r) => r.mode === mode);
  return {
    wall_s: round(median(of.map((r) => r.wall_s)), 1),
    cpu_s: round(median(of.map((r) => r.cpu_s)), 1),
    peak_rss_mb: round(median(of.map((r) => r.peak_rss_mb)), 1),
    peak_growth_mb: round(median(of.map((r) => r.peak_rss_mb - r.rss_before_mb)), 1),
  };
}

export async function runTimingsLong(ctx: BenchContext): Promise<BenchmarkOutput> {
  const chars = ctx.quick ? 20_000 : 500_000;
  // Peak RSS differs by tens of MB between identical rounds (garbage collection timing), hence four each.
  const order: Mode[] = ctx.quick ? ['none', 'word'] : ['none', 'word', 'word', 'none', 'none', 'word', 'word', 'none'];
  const request = defaultSynthesisRequest('');
  ctx.log(`timings-long: ${chars.toLocaleString('en')} characters without and with word timings (${order.join(', ')}), ${ctx.synthThreads} threads`);
  const rounds: Round[] = [];
  for (const mode of order) rounds.push(await runRound(ctx, chars, mode));
  const none = summary(rounds, 'none');
  const word = summary(rounds, 'word');
  const timeRatio = word.wall_s / none.wall_s;
  const cpuRatio = word.cpu_s / none.cpu_s;
  const rssRatio = word.peak_rss_mb / none.peak_rss_mb;
  const withWords = rounds.find((r) => r.words !== undefined);
  const figures = {
    characters: chars,
    'rounds (in order)': order.join(', '),
    'audio (s)': rounds[0]!.audio_s,
    'words timed': withWords?.words,
    'words as JSON (bytes)': withWords?.words_json_bytes,
    'wall time (s), without / with timings (median)': `${none.wall_s} / ${word.wall_s} (${round((timeRatio - 1) * 100, 1)}%)`,
    'CPU time (s), every thread, without / with (median)': `${none.cpu_s} / ${word.cpu_s} (${round((cpuRatio - 1) * 100, 1)}%)`,
    'peak RSS (MB), without / with (median)': `${none.peak_rss_mb} / ${word.peak_rss_mb} (${round((rssRatio - 1) * 100, 1)}%)`,
    'peak growth over the RSS before the job (MB), without / with (median)': `${none.peak_growth_mb} / ${word.peak_growth_mb}`,
  };
  const perRound = ['| Round | Timings | Wall (s) | CPU (s) | RSS before (MB) | Peak RSS (MB) |', '| ---: | --- | ---: | ---: | ---: | ---: |'];
  for (const [i, r] of rounds.entries()) perRound.push(`| ${i + 1} | ${r.mode} | ${r.wall_s} | ${r.cpu_s} | ${r.rss_before_mb} | ${r.peak_rss_mb} |`);
  const markdown = [
    `${chars.toLocaleString('en')} characters of prose (the \`synth-long\` text), voice ${request.voice}, speed ${request.speed}, through \`createSynthesizer({ threads: ${ctx.synthThreads} })\` + \`synthesizeToFile\`, ` +
      'without and with `timestamps: "word"` in alternating rounds, each in a process of its own (`harness/long-job.ts`) on a pool warmed by a one-sentence job. ' +
      'Peak RSS: the whole process (synthesis threads included), the larger of VmHWM reset just before the job and VmRSS sampled every 200 ms. ' +
      '"Words as JSON": the result\'s `words` serialized, about what the timings file holds before its cues.',
    '',
    figuresTable(figures),
    '',
    perRound.join('\n'),
  ].join('\n');
  return {
    name: 'timings-long',
    title: `Word timings on a long job: ${chars.toLocaleString('en')} characters with and without`,
    data: { chars, order, rounds, none, word, time_ratio: round(timeRatio, 3), cpu_ratio: round(cpuRatio, 3), rss_ratio: round(rssRatio, 3) },
    markdown,
    targets: [
      {
        id: 'timings-long-time',
        target: 'a 500,000-character job with word timings takes at most 10% longer than without',
        measured: `${word.wall_s} s against ${none.wall_s} s (${round((timeRatio - 1) * 100, 1)}%; CPU ${round((cpuRatio - 1) * 100, 1)}%)`,
        status: ctx.quick ? 'not evaluated' : status(timeRatio <= 1.1),
      },
      {
        id: 'timings-long-memory',
        target: 'and its peak RSS is at most 10% higher',
        measured: `${word.peak_rss_mb} MB against ${none.peak_rss_mb} MB (${round((rssRatio - 1) * 100, 1)}%)`,
        status: ctx.quick ? 'not evaluated' : status(rssRatio <= 1.1),
      },
    ],
  };
}
