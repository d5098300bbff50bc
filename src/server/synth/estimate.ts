/**
 * Characters of speech per second at speed 1.0, measured with eSpeak NG on the sentences of
 * sample-texts.ts (silence trimmed, so pauses between sentences are counted separately).
 */
const SPEECH_CHARS_PER_SECOND: Readonly<Record<string, number>> = {
  en: 19.3,
  ar: 11,
  bg: 15.8,
  hr: 17,
  cs: 16.8,
  da: 18.9,
  nl: 17.7,
  et: 15.9,
  fi: 16.8,
  fr: 24.4,
  de: 17,
  el: 17.8,
  hi: 14.4,
  hu: 15.2,
  id: 15.1,
  it: 17.9,
  ja: 8.1,
  ko: 7,
  lv: 16,
  lt: 13.2,
  pl: 15.7,
  pt: 17.4,
  ro: 15.9,
  ru: 19.6,
  sk: 17.8,
  sl: 14,
  es: 17.6,
  sv: 16.2,
  tr: 14.7,
  uk: 14.9,
  vi: 17.2,
  zh: 4.1,
};
const DEFAULT_CHARS_PER_SECOND = 16;
/** Pause per sentence end (eSpeak's own within a chunk, the pipeline's between chunks). */
const SENTENCE_PAUSE_SECONDS = 0.45;
const SENTENCE_END = /[.!?\u2026\u3002\uff01\uff1f\u0964\u061f]+(?=\s|$)|[\u3002\uff01\uff1f]/gu;

/** Before any job has run: a deliberately modest guess of audio seconds produced per wall second. */
const INITIAL_THROUGHPUT_PER_THREAD = { espeak: 60, 'openai-compatible': 5 } as const;
/** Start-up cost of a job: temporary file, first chunk's round trip through the pool. */
const JOB_OVERHEAD_SECONDS = 0.15;
/** Weight of the newest job in the moving averages. */
const SMOOTHING = 0.3;
/** Jobs shorter than this say more about overhead than about throughput. */
const MIN_MEASURED_AUDIO_SECONDS = 20;

function speechCharsPerSecond(language: string | undefined): number {
  const primary = (language ?? 'en').toLowerCase().replace(/-.*$/s, '');
  return SPEECH_CHARS_PER_SECOND[primary] ?? DEFAULT_CHARS_PER_SECOND;
}

/** Audio seconds from text alone, for speech as eSpeak NG speaks it. */
export function baseAudioSeconds(text: string, speed: number, language?: string): number {
  // Code points, with each run of whitespace counted as one (a pause between words, whatever its width).
  const collapsed = text.replace(/\s+/g, ' ').trim();
  const chars = collapsed.length - (collapsed.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
  const sentenceEnds = text.match(SENTENCE_END)?.length ?? 0;
  const seconds = chars / speechCharsPerSecond(language) + Math.max(1, sentenceEnds) * SENTENCE_PAUSE_SECONDS;
  return seconds / Math.min(1.5, Math.max(0.5, speed));
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * Where each of `offsets` (UTF-16 offsets into `text`, ascending) falls in the speech baseAudioSeconds
 * estimates, as a share of it (0–1): the characters and sentence pauses before the offset, counted as
 * baseAudioSeconds counts them (a run of whitespace between two characters as one, a pause after each
 * sentence end). The speed divides both alike, so it plays no part.
 */
export function speechShares(text: string, offsets: readonly number[], language?: string): number[] {
  const perChar = 1 / speechCharsPerSecond(language);
  const total = baseAudioSeconds(text, 1, language);
  const pauseEnds = Array.from(text.matchAll(SENTENCE_END), (m) => m.index + m[0].length);
  let units = 0;
  let pauses = 0;
  let spoken = false;
  let inSpace = false;
  let i = 0;
  return offsets.map((offset) => {
    for (; i < offset && i < text.length; i++) {
      // The second half of a surrogate pair: its code point was counted with the first.
      if (isLowSurrogate(text.charCodeAt(i)) && isHighSurrogate(text.charCodeAt(i - 1))) continue;
      if (/\s/.test(text[i]!)) {
        if (spoken && !inSpace) units++;
        inSpace = true;
      } else {
        units++;
        spoken = true;
        inSpace = false;
      }
    }
    while (pauses < pauseEnds.length && pauseEnds[pauses]! <= offset) pauses++;
    return Math.min(1, (units * perChar + pauses * SENTENCE_PAUSE_SECONDS) / total);
  });
}

/**
 * Estimates that learn from the jobs that ran: the audio estimate is scaled by how the real durations
 * compared with it, and the wall estimate uses the measured throughput, shared among running jobs.
 */
export class Estimator {
  private audioCorrection = 1;
  private throughput: number;
  private running = 0;

  constructor(engine: 'espeak' | 'openai-compatible', threads: number) {
    this.throughput = INITIAL_THROUGHPUT_PER_THREAD[engine] * threads;
  }

  audioSeconds(text: string, speed: number, language?: string): number {
    return baseAudioSeconds(text, speed, language) * this.audioCorrection;
  }

  /** Every running job gets about an equal share of the pool, so a new one waits on their number. */
  wallSeconds(text: string, speed: number, language?: string): number {
    const share = this.throughput / (this.running + 1);
    return JOB_OVERHEAD_SECONDS + this.audioSeconds(text, speed, language) / share;
  }

  jobStarted(): void {
    this.running++;
  }

  jobEnded(): void {
    this.running = Math.max(0, this.running - 1);
  }

  /** Called with a completed job: its text, the estimate it had, and what it really took. */
  record(job: { text: string; speed: number; language?: string; audioSeconds: number; elapsedMs: number; concurrentJobs: number }): void {
    const estimated = baseAudioSeconds(job.text, job.speed, job.language);
    if (estimated > 0 && job.audioSeconds > 0) {
      const ratio = Math.min(3, Math.max(1 / 3, job.audioSeconds / estimated));
      this.audioCorrection += SMOOTHING * (ratio - this.audioCorrection);
    }
    if (job.audioSeconds >= MIN_MEASURED_AUDIO_SECONDS && job.elapsedMs > 0) {
      // A job that shared the pool saw only its share: scale back up to the pool's throughput.
      const measured = (job.audioSeconds / (job.elapsedMs / 1000)) * Math.max(1, job.concurrentJobs);
      this.throughput += SMOOTHING * (measured - this.throughput);
    }
  }

  get runningJobs(): number {
    return this.running;
  }

  /** Current audio seconds produced per wall second by the whole pool. */
  get poolThroughput(): number {
    return this.throughput;
  }
}
