/**
 * Magic inputs: markers in a request's `text` that choose the job's outcome, like a payment API's test
 * card numbers. Markers are words of the text (they count towards its length and duration like any
 * other); an unknown marker, or one with a value out of range, is ignored.
 */

export interface MagicInput {
  marker: string;
  effect: string;
}

export const MAGIC_INPUTS: readonly MagicInput[] = [
  { marker: 'sandbox:inline', effect: 'Completes at once: POST answers 200 with the audio, whatever the length of the text.' },
  {
    marker: 'sandbox:inline=<seconds>',
    effect:
      'Completes after <seconds> (0 < s ≤ 60) of real time, which the POST waits for as the server does: inside the inline wait it answers 200 with a processing_time_ms of about that; longer, it answers 202 when the wait ends. Among several markers it is a sandbox:inline (the last one counts, sandbox:async wins). For a client (or the conformance suite) to see the inline wait hold a job that takes a while.',
  },
  {
    marker: 'sandbox:async=<seconds>',
    effect:
      'Goes asynchronous: POST answers 202 and the job takes <seconds> (0 < s ≤ 86400) of sandbox clock time; progress moves with the clock, and advancing the clock by that much completes it. `sandbox:async` alone is 5 seconds.',
  },
  {
    marker: 'sandbox:provider_error[=<percent>]',
    effect:
      'Fails with TTS_PROVIDER_ERROR (502) after <percent> (0-99, default 50) of its progress; nothing is charged. Inline unless combined with sandbox:async=<seconds>, when it fails at that share of the time.',
  },
  {
    marker: 'sandbox:internal_error[=<percent>]',
    effect:
      'Fails with INTERNAL_ERROR (500) after <percent> (0-99, default 50) of its progress; nothing is charged. Combines with sandbox:async like provider_error.',
  },
  {
    marker: '(several markers)',
    effect:
      'Combine as one timing and at most one failure. Timing: sandbox:async=<seconds> wins over sandbox:inline, in any order; of several markers of one kind, the last valid one counts. Failure: the last valid failure marker counts (sandbox:provider_error or sandbox:internal_error), and it applies to that timing: with sandbox:async=<seconds> the POST answers 202 and the job fails at <percent> of those seconds (sandbox:async=5 sandbox:provider_error fails 2.5 sandbox seconds after submission); with sandbox:inline it fails inline, and without a timing marker as the estimate of the text says (inline when it fits the inline wait, otherwise at that share of its estimated time). A marker whose value is out of range is ignored, as if absent.',
  },
  {
    marker: '(no marker)',
    effect:
      "The reference server's behaviour by estimate: a text whose estimated synthesis time fits the inline wait completes inline; a longer one answers 202 and takes its estimated time on the sandbox clock.",
  },
];

export interface Outcome {
  /** Sandbox seconds the job takes from its creation (0: at once, so inline). */
  seconds: number;
  /** Real seconds the synthesis itself takes (sandbox:inline=<seconds>): the inline wait holds the POST meanwhile. */
  realSeconds?: number;
  /** The job fails instead, once this share of its time and progress has passed. */
  failure?: { code: 'TTS_PROVIDER_ERROR' | 'INTERNAL_ERROR'; atFraction: number };
}

const DEFAULT_ASYNC_SECONDS = 5;
/** The longest real time sandbox:inline=<seconds> may take: the sandbox stays quick. */
const MAX_INLINE_REAL_SECONDS = 60;
const MARKER = /sandbox:(inline|async|provider_error|internal_error)(?:=(\d{1,6}(?:\.\d{1,3})?))?(?![\w=])/gi;

/**
 * The outcome a text asks for. `estimatedWallSeconds` is what the real server would take on it and
 * `inlineWaitSeconds` how long its POST waits: used when no marker sets the timing.
 */
export function outcomeOf(text: string, estimatedWallSeconds: number, inlineWaitSeconds: number): Outcome {
  let inline = false;
  let realSeconds: number | undefined;
  let asyncSeconds: number | undefined;
  let failure: Outcome['failure'];
  for (const m of text.matchAll(MARKER)) {
    const kind = m[1]!.toLowerCase();
    const value = m[2] === undefined ? undefined : Number(m[2]);
    if (kind === 'inline') {
      if (value === undefined) {
        inline = true;
        realSeconds = undefined;
      } else if (value > 0 && value <= MAX_INLINE_REAL_SECONDS) {
        inline = true;
        realSeconds = value;
      }
    } else if (kind === 'async') {
      const seconds = value ?? DEFAULT_ASYNC_SECONDS;
      if (seconds > 0 && seconds <= 86_400) asyncSeconds = seconds;
    } else if (kind === 'provider_error' || kind === 'internal_error') {
      const percent = value ?? 50;
      if (percent < 100) failure = { code: kind === 'provider_error' ? 'TTS_PROVIDER_ERROR' : 'INTERNAL_ERROR', atFraction: percent / 100 };
    }
  }
  const seconds = asyncSeconds ?? (inline || estimatedWallSeconds <= inlineWaitSeconds ? 0 : Math.round(estimatedWallSeconds * 1000) / 1000);
  const outcome: Outcome = failure ? { seconds, failure } : { seconds };
  // Real time only for a job that runs at once: a held job's time is the sandbox clock's.
  if (realSeconds !== undefined && seconds === 0) outcome.realSeconds = realSeconds;
  return outcome;
}

/** Sandbox seconds from a job's creation until it ends (completes or fails). */
export function endSeconds(outcome: Outcome): number {
  return outcome.seconds * (outcome.failure?.atFraction ?? 1);
}
