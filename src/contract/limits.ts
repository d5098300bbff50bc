/** The limits of docs/api-rules.md#limits and the version label of §9, as data. */
export const API_VERSION = '2026-04';
export const API_PATH = '/v1/agent-tts';
export const AUDIO_PATH_PREFIX = '/v1/audio/';
/** Where a job's timings are served: `<prefix><job_id>.<json|vtt|srt>` (an extension beyond the base API). */
export const CAPTIONS_PATH_PREFIX = '/v1/captions/';
/** Where a job's audio is streamed while it is made: `<prefix><job_id>.mp3` (an extension beyond the base API). */
export const STREAM_PATH_PREFIX = '/v1/stream/';
export const VOICES_PATH = '/api/v1/voices';

export const LIMITS = {
  /** Characters counted as Unicode code points. */
  textMinChars: 1,
  textMaxChars: 500_000,
  speedMin: 0.5,
  speedMax: 1.5,
  speedDefault: 1.2,
  /** Requests per rolling window, per API key, in separate buckets. */
  postPerMinute: 1,
  getPerMinute: 30,
  rateWindowSeconds: 60,
  inlineWaitSeconds: 10,
  activeKeysPerAccount: 1,
  retryAfterMinSeconds: 1,
  retryAfterMaxSeconds: 30,
  idempotencyKeyMaxLength: 255,
} as const;

/** Idempotency-Key: 1–255 printable ASCII characters (docs/api-rules.md). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

/** API key `tts_<8 hex public id>_<48 hex secret>` (docs/api-rules.md#keys, docs/api-rules.md). */
export const KEY_PREFIX = 'tts';
export const API_KEY_PATTERN = /^tts_([0-9a-f]{8})_([0-9a-f]{48})$/;
export const DISPLAY_KEY_PATTERN = /^tts_[0-9a-f]{8}$/;

/** Counts Unicode code points without allocating (a lone surrogate counts as one). */
export function codePointLength(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** Redacts anything that looks like an API key to its display form `tts_<public_id>`. */
export function redactKeys(text: string): string {
  // No word boundary before it: a key glued to other text (`x_tts_…`, `footts_…`) is redacted too.
  return text.replace(/tts_([0-9a-fA-F]{8})_[0-9a-zA-Z]+/g, 'tts_$1');
}
