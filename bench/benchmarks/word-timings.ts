import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timingsProblems } from '@agent-tts/contract/captions.js';
import { LIMITS } from '@agent-tts/contract/limits.js';
import type { WordTimingBody } from '@agent-tts/contract/timing-schemas.js';
import type { Synthesizer } from '@agent-tts/server';
import { createSynthesizer, synthesizeToFile } from '@agent-tts/server/synth';
import { decodeMp3, energyOnsets, onsetAtOrAfter, soundEnd } from '../harness/decoded-audio.js';
import { type BenchContext, type BenchmarkOutput, status } from '../harness/report-types.js';
import { median, round } from '../harness/stats.js';
import { TIMING_TEXTS, textOfLength } from '../harness/timing-texts.js';

/**
 * How close word timings are to the MP3 a player hears: for each script, a long text synthesized with
 * `timestamps: "word"` by the real pipeline, the MP3 decoded (mpg123), and every word that follows a
 * pause mark of the text (sentence or clause punctuation, where eSpeak pauses) compared with the first
 * energy onset from 50 ms before its start on. Also the last word's end against the end of the sound,
 * and the contract's checks (timingsProblems).
 */

const TOLERANCE_MS = 50;
/**
 * Punctuation after which eSpeak pauses, so that a word following it starts after silence: a mark and a
 * space (not "7:45" or "4,000", read in one breath), or a CJK mark.
 */
const PAUSE_MARK = /[.,;:!?\u2026]\s|[\u3001\u3002\uff01\uff1f\uff0c]/u;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN;
}

/** Signed errors (ms, onset − start) of the words that follow a pause mark (and of the first word). */
function pausedWordErrors(text: string, words: readonly WordTimingBody[], onsets: readonly number[]): number[] {
  const errors: number[] = [];
  words.forEach((w, i) => {
    const gap = i === 0 ? '. ' : text.slice(words[i - 1]!.utf16_end, w.utf16_start);
    if (!PAUSE_MARK.test(gap)) return;
    const onset = onsetAtOrAfter(onsets, w.start - TOLERANCE_MS / 1000);
    errors.push(onset === undefined ? Number.POSITIVE_INFINITY : (onset - w.start) * 1000);
  });
  return errors;
}

async function measureLanguage(synth: Synthesizer, dir: string, spec: (typeof TIMING_TEXTS)[number], chars: number) {
  const text = textOfLength(spec.sentences, spec.language, chars);
  const out = join(dir, `${spec.language}.mp3`);
  const started = performance.now();
  const result = await synthesizeToFile(synth, { text, voice: spec.voice, language: spec.language, speed: LIMITS.speedDefault, timestamps: 'word' }, out);
  const wallS = (performance.now() - started) / 1000;
  const words = result.words ?? [];
  const audio = await decodeMp3(out);
  await rm(out);
  const errors = pausedWordErrors(text, words, energyOnsets(audio));
  const absolute = errors.map(Math.abs);
  const lastEndMs = (words.at(-1)!.end - soundEnd(audio)) * 1000;
  return {
    language: spec.language,
    script: spec.script,
    voice: spec.voice,
    characters: text.length,
    chunks: result.chunks,
    audio_s: round(result.durationSeconds, 1),
    synthesis_wall_s: round(wallS, 1),
    words: words.length,
    words_after_pause: errors.length,
    median_abs_ms: round(median(absolute), 1),
    p95_abs_ms: round(percentile(absolute, 95), 1),
    max_abs_ms: round(Math.max(...absolute), 1),
    within_50ms_percent: round((absolute.filter((e) => e <= TOLERANCE_MS).length / absolute.length) * 100, 2),
    median_signed_ms: round(median(errors), 1),
    last_end_minus_sound_end_ms: round(lastEndMs, 1),
    problems: timingsProblems(text, { words, duration_seconds: result.durationSeconds }, spec.language),
  };
}

type LanguageResult = Awaited<ReturnType<typeof measureLanguage>>;

function table(rows: readonly LanguageResult[]): string {
  const head = [
    '| Language (script) | Characters | Chunks | Audio (s) | Words | After a pause | Median | p95 | Max | Within 50 ms | Median signed | Last end − sound end | Problems |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const body = rows.map(
    (r) =>
      `| ${r.language} (${r.script}) | ${r.characters} | ${r.chunks} | ${r.audio_s} | ${r.words} | ${r.words_after_pause} | ${r.median_abs_ms} ms | ${r.p95_abs_ms} ms | ${r.max_abs_ms} ms | ${r.within_50ms_percent}% | ${r.median_signed_ms} ms | ${r.last_end_minus_sound_end_ms} ms | ${r.problems.length} |`,
  );
  return [...head, ...body].join('\n');
}

export async function runWordTimings(ctx: BenchContext): Promise<BenchmarkOutput> {
  const chars = ctx.quick ? 2_000 : 20_000;
  ctx.log(`word-timings: ${TIMING_TEXTS.length} languages, about ${chars.toLocaleString('en')} characters each`);
  const dir = await mkdtemp(join(tmpdir(), 'agent-tts-bench-timings-'));
  const synth = createSynthesizer({ threads: ctx.synthThreads });
  const rows: LanguageResult[] = [];
  try {
    for (const spec of TIMING_TEXTS) {
      const row = await measureLanguage(synth, dir, spec, chars);
      ctx.log(
        `  ${row.language}: ${row.words_after_pause} words after a pause, median ${row.median_abs_ms} ms, p95 ${row.p95_abs_ms} ms, max ${row.max_abs_ms} ms`,
      );
      rows.push(row);
    }
  } finally {
    await synth.close();
    await rm(dir, { recursive: true, force: true });
  }
  const worst = Math.max(...rows.map((r) => r.max_abs_ms));
  const worstEnd = Math.max(...rows.map((r) => Math.abs(r.last_end_minus_sound_end_ms)));
  const problems = rows.reduce((n, r) => n + r.problems.length, 0);
  const markdown = [
    `Texts of about ${chars.toLocaleString('en')} characters per language (everyday sentences cycled, \`bench/harness/timing-texts.ts\`), ` +
      `speed ${LIMITS.speedDefault}, through \`createSynthesizer\` + \`synthesizeToFile\` with \`timestamps: "word"\`; the MP3 decoded by mpg123. ` +
      'For each word after a pause mark of the text (`.,;:!?…` and a space, or `、。！？，`; and the first word): |start − onset|, the onset being the first 5 ms frame at or above −40 dBFS ' +
      'after 30 ms below it, from 50 ms before the start on. Signed: onset − start (positive: the word is stamped early). ' +
      'Last end − sound end: the last word’s end against the end of the last 5 ms at or above −60 dBFS. Problems: `timingsProblems` of the contract.',
    '',
    table(rows),
  ].join('\n');
  return {
    name: 'word-timings',
    title: 'Word timings against the decoded MP3',
    data: { chars_per_language: chars, speed: LIMITS.speedDefault, languages: rows },
    markdown,
    targets: [
      {
        id: 'word-timings-onset',
        target: 'every word after a pause starts within 50 ms of the audio’s onset; the last ends within 50 ms of the sound’s end; no problem',
        measured: `max |start − onset| ${worst} ms, max |last end − sound end| ${round(worstEnd, 1)} ms, ${problems} problems (${rows.map((r) => r.language).join(', ')})`,
        status: ctx.quick ? 'not evaluated' : status(worst <= TOLERANCE_MS && worstEnd <= TOLERANCE_MS && problems === 0),
      },
    ],
  };
}
