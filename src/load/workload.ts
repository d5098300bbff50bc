import { defined } from './defined.js';
import { codePointLength } from '../contract/limits.js';
import type { MixEntry } from './flag-values.js';

/** Everyday prose with numbers and punctuation, so the deployment's text splitting sees real sentences. */
export const PROSE_SENTENCES = [
  'The weather was mild this morning, so we walked to the market and bought fresh bread, apples and a little cheese.',
  'On the way back we stopped at the library, where the new catalogue lists more than 4,000 titles.',
  'Maria asked whether the train to the coast still leaves at 7:45, or whether the timetable changed in March.',
  'Nobody answered at first; then the conductor said that the earlier service had been cancelled for repairs.',
  'We decided to take the bus instead, which was slower but cheaper, and it stopped in every village along the river.',
  'By noon the sun was high, the fields were bright yellow, and the children counted twenty-three windmills!',
  'Is there anything better than a long lunch in the shade of an old oak tree?',
  'After lunch, the guide explained how the bridge was built in 1887, and why it was painted green every ten years.',
  "The museum closes at five o'clock, so we hurried through the rooms of maps, clocks and ship models.",
  'In the evening it rained briefly, and the streets smelled of wet stone and bread from the bakery on the corner.',
];

/**
 * A text of exactly `chars` characters (ASCII, so characters are code points), starting with the
 * submission's number so no two texts are the same, and ending with a full stop where it is cut.
 */
export function textOfLength(chars: number, n: number): string {
  const head = `Request ${n}. `;
  const parts: string[] = [head];
  let total = head.length;
  for (let i = n % PROSE_SENTENCES.length; total < chars; i++) {
    const sentence = defined(PROSE_SENTENCES[i % PROSE_SENTENCES.length], `sentence ${i % PROSE_SENTENCES.length} of the prose`);
    const separator = total === head.length ? '' : ' ';
    parts.push(separator + sentence);
    total += separator.length + sentence.length;
  }
  let text = parts.join('').slice(0, chars);
  if (chars >= 2 && !/[.!?]$/.test(text)) text = `${text.slice(0, -1).replace(/\s$/, 'a')}.`;
  if (codePointLength(text) !== chars) throw new Error(`text of ${chars} characters came out at ${codePointLength(text)}`);
  return text;
}

/** mulberry32: a small seeded generator, so the same --seed draws the same sequence of classes. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Submission {
  n: number;
  textClass: string;
  chars: number;
  /** Whether it asks for word timings (`timestamps: "word"` in the body). */
  asksTimings: boolean;
  body: { text: string; voice: string; speed: number; language?: string; timestamps?: 'word' };
}

/**
 * Whether submission `n` is one of the `share` that ask for timings: spread evenly (submission n asks
 * when the count of askers up to it steps up), so any stretch of the run holds about that share.
 */
export function asksTimings(n: number, share: number): boolean {
  return Math.floor((n + 1) * share + 1e-9) > Math.floor(n * share + 1e-9);
}

/** Draws each submission's text class by weight (seeded), its voice and speed in turn, and whether it asks for timings. */
export class Workload {
  private readonly random: () => number;
  private readonly totalWeight: number;

  constructor(
    private readonly mix: readonly MixEntry[],
    private readonly voices: readonly string[],
    private readonly speeds: readonly number[],
    private readonly language: string | undefined,
    seed: number,
    private readonly timingsShare = 0,
  ) {
    this.random = seededRandom(seed);
    this.totalWeight = mix.reduce((sum, e) => sum + e.weight, 0);
  }

  next(n: number): Submission {
    let pick = this.random() * this.totalWeight;
    let entry = defined(
      this.mix.find((e) => e.weight > 0),
      'a class of the mix with a weight above 0',
    );
    for (const e of this.mix) {
      if (e.weight <= 0) continue;
      if (pick < e.weight) {
        entry = e;
        break;
      }
      pick -= e.weight;
    }
    const body: Submission['body'] = {
      text: textOfLength(entry.chars, n),
      voice: defined(this.voices[n % this.voices.length], `voice ${n % this.voices.length} of the workload`),
      speed: defined(this.speeds[Math.floor(n / this.voices.length) % this.speeds.length], 'a speed of the workload'),
    };
    if (this.language !== undefined) body.language = this.language;
    const timings = asksTimings(n, this.timingsShare);
    if (timings) body.timestamps = 'word';
    return { n, textClass: entry.name, chars: entry.chars, asksTimings: timings, body };
  }
}
