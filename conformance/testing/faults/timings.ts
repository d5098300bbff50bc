import {
  type Answer,
  type FaultSpec,
  type Json,
  type Seen,
  acceptAsProcessing,
  captionFile,
  errorAnswer,
  isCaptions,
  isGetJob,
  isSubmit,
  issuedForm,
  setJson,
} from './common.js';

/**
 * Word timings and captions (an extension beyond the base API): timings where none were asked for or
 * missing where they were, files that disagree with the text, the audio or each other, and caption URLs
 * that accept what the audio URL refuses.
 */

const EXTENSION_REQUIRED = ['--extensions', 'required'];

/** The timings JSON file of a caption download (its words and cues), when this answer is one. */
const timingsFile = (s: Seen, json: Json) => (isCaptions(s) && Array.isArray(json?.words) && Array.isArray(json?.cues) ? json : undefined);

/** The caption file's text when this answer is one of that media type. */
function captionText(s: Seen, a: Answer, mediaType: string): string | undefined {
  return isCaptions(s) && a.status === 200 && String(a.headers['content-type'] ?? '').startsWith(mediaType) ? a.body.toString('utf8') : undefined;
}

const setText = (a: Answer, text: string) => {
  a.body = Buffer.from(text);
  return true;
};

/** Every URL of `timings` passed through `edit`. */
function editTimingsUrls(json: Json, edit: (url: URL) => void): void {
  for (const field of ['json_url', 'vtt_url', 'srt_url']) {
    if (typeof json.timings[field] !== 'string') continue;
    const url = new URL(json.timings[field]);
    edit(url);
    json.timings[field] = url.toString();
  }
}

/** Swaps in the fresh query of the requested caption file when `accepts` says this query should be accepted. */
function acceptCaptionQuery(accepts: (query: URLSearchParams, fresh: URLSearchParams, s: Seen, file: string) => boolean): FaultSpec['rewrite'] {
  return (s, url, p) => {
    const file = isCaptions(s) ? captionFile(s.path) : undefined;
    const fresh = file ? p.freshCaptions.get(file) : undefined;
    if (!file || !fresh || s.query === fresh || !accepts(new URLSearchParams(s.query), new URLSearchParams(fresh), s, file)) return false;
    url.search = fresh;
    return true;
  };
}

const shiftMillis = (clock: string, ms: number) => {
  const [h, m, rest] = clock.split(':');
  const total = Number(h) * 3_600_000 + Number(m) * 60_000 + Math.round(Number(rest) * 1000) + ms;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(total / 3_600_000))}:${pad(Math.floor(total / 60_000) % 60)}:${pad(Math.floor(total / 1000) % 60)}.${pad(total % 1000, 3)}`;
};

export const TIMINGS_FAULTS = {
  // ── fields present only when asked ──────────────────────────────────────────────────────────────
  'timings-when-not-asked': {
    description: 'adds timings to completed jobs that did not ask for them',
    rules: ['timings.absent-unless-asked'],
    change: (_s, a, json) => {
      if (json?.status !== 'completed' || json.timings || typeof json.audio_url !== 'string') return false;
      const at = (format: string) => json.audio_url.replace('/v1/audio/', '/v1/captions/').replace('.mp3', `.${format}`);
      json.timings = { granularity: 'word', json_url: at('json'), vtt_url: at('vtt'), srt_url: at('srt') };
      return setJson(a, json);
    },
  },
  'timings-only-on-post': {
    description: 'leaves timings off GET of a job that asked for them (present on the POST answer only)',
    rules: ['timings.present-when-asked'],
    change: (s, a, json) => {
      if (!isGetJob(s) || !json?.timings) return false;
      delete json.timings;
      return setJson(a, json);
    },
  },
  'timings-ignored': {
    description: 'ignores timestamps "word" (no timings on any job): not supported, which --extensions required fails',
    rules: ['timings.present-when-asked'],
    args: EXTENSION_REQUIRED,
    change: (_s, a, json) => {
      if (!json?.timings) return false;
      delete json.timings;
      return setJson(a, json);
    },
  },
  'timings-expire-later': {
    description: 'issues caption URLs that expire an hour after audio_url',
    rules: ['timings.present-when-asked'],
    change: (_s, a, json) => {
      if (!json?.timings) return false;
      editTimingsUrls(json, (url) => url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600)));
      return setJson(a, json);
    },
  },
  'timestamps-invalid-accepted': {
    description: 'accepts a timestamps value the document does not define ("sentence") instead of refusing it',
    rules: ['timings.present-when-asked'],
    change: (s, a, json) => {
      if (!isSubmit(s) || a.status !== 400 || s.json?.timestamps === undefined || ['none', 'word'].includes(s.json.timestamps)) return false;
      return acceptAsProcessing(a, json);
    },
  },

  // ── the timings file ────────────────────────────────────────────────────────────────────────────
  'timings-offsets-off-by-one': {
    description: 'gives every word UTF-16 offsets one unit too far',
    rules: ['timings.file-consistent'],
    change: (s, a, json) => {
      const file = timingsFile(s, json);
      if (!file) return false;
      for (const w of file.words) {
        w.utf16_start += 1;
        w.utf16_end += 1;
      }
      return setJson(a, file);
    },
  },
  'timings-code-points-as-utf16': {
    description: 'reports UTF-16 offsets as code-point offsets (wrong after a character outside the BMP)',
    rules: ['timings.file-consistent'],
    change: (s, a, json) => {
      const file = timingsFile(s, json);
      if (!file) return false;
      for (const w of file.words) {
        w.text_start = w.utf16_start;
        w.text_end = w.utf16_end;
      }
      return setJson(a, file);
    },
  },
  'timings-word-dropped': {
    description: 'leaves a word of the text out of the timings',
    rules: ['timings.file-consistent'],
    change: (s, a, json) => {
      const file = timingsFile(s, json);
      if (!file || file.words.length < 3) return false;
      file.words.splice(1, 1);
      return setJson(a, file);
    },
  },
  'timings-starts-swapped': {
    description: 'swaps the times of two words, so starts no longer rise',
    rules: ['timings.file-consistent'],
    change: (s, a, json) => {
      const file = timingsFile(s, json);
      if (!file || file.words.length < 3) return false;
      const [w1, w2] = [file.words[1], file.words[2]];
      [w1.start, w1.end, w2.start, w2.end] = [w2.start, w2.end, w1.start, w1.end];
      return setJson(a, file);
    },
  },
  'timings-duration-differs': {
    description: "reports a duration_seconds a quarter second longer than the job's audio",
    rules: ['timings.file-consistent'],
    change: (s, a, json) => {
      const file = timingsFile(s, json);
      if (!file) return false;
      file.duration_seconds = Math.round((file.duration_seconds + 0.25) * 1000) / 1000;
      return setJson(a, file);
    },
  },
  'timings-last-word-past-end': {
    description: "lets the last word end after the audio's end",
    rules: ['timings.file-consistent'],
    change: (s, a, json) => {
      const file = timingsFile(s, json);
      if (!file || file.words.length === 0) return false;
      file.words.at(-1).end = Math.round((file.duration_seconds + 0.3) * 1000) / 1000;
      return setJson(a, file);
    },
  },
  'timings-schema-broken': {
    description: 'writes the first word’s start as a string',
    rules: ['timings.file-consistent'],
    change: (s, a, json) => {
      const file = timingsFile(s, json);
      if (!file || file.words.length === 0) return false;
      file.words[0].start = String(file.words[0].start);
      return setJson(a, file);
    },
  },
  'timings-cue-off-words': {
    description: 'ends the first cue 50 ms after its last word',
    rules: ['timings.file-consistent'],
    change: (s, a, json) => {
      const file = timingsFile(s, json);
      if (!file || file.cues.length === 0) return false;
      file.cues[0].end = Math.round((file.cues[0].end + 0.05) * 1000) / 1000;
      return setJson(a, file);
    },
  },

  // ── WebVTT and SRT against the JSON file ────────────────────────────────────────────────────────
  'vtt-cue-shifted': {
    description: 'serves WebVTT whose first cue ends 100 ms later than in the JSON file',
    rules: ['timings.captions-match'],
    change: (s, a) => {
      const text = captionText(s, a, 'text/vtt');
      return (
        text !== undefined &&
        setText(
          a,
          text.replace(/--> (\d{2,}:\d{2}:\d{2}\.\d{3})/, (_m, end) => `--> ${shiftMillis(end, 100)}`),
        )
      );
    },
  },
  'vtt-no-header': {
    description: 'serves WebVTT without its WEBVTT header',
    rules: ['timings.captions-match'],
    change: (s, a) => {
      const text = captionText(s, a, 'text/vtt');
      return text !== undefined && setText(a, text.replace(/^\uFEFF?WEBVTT[^\n]*\n+/, ''));
    },
  },
  'vtt-as-text-plain': {
    description: 'serves WebVTT as text/plain',
    rules: ['timings.captions-match'],
    change: (s, a) => {
      if (captionText(s, a, 'text/vtt') === undefined) return false;
      a.headers['content-type'] = 'text/plain; charset=utf-8';
      return true;
    },
  },
  'srt-dot-milliseconds': {
    description: 'writes SRT times with a dot before the milliseconds (WebVTT style), which SubRip players misread',
    rules: ['timings.captions-match'],
    change: (s, a) => {
      const text = captionText(s, a, 'application/x-subrip');
      return text !== undefined && setText(a, text.replace(/(\d{2}:\d{2}:\d{2}),(\d{3})/g, '$1.$2'));
    },
  },

  // ── caption URLs refuse what the audio URL refuses ──────────────────────────────────────────────
  'captions-tampered-accepted': {
    description: 'serves a caption URL whose signature was altered (the signature is not checked)',
    rules: ['timings.url-tampered'],
    rewrite: acceptCaptionQuery((query, fresh, s) => issuedForm(s) && query.get('expires') === fresh.get('expires')),
  },
  'captions-format-swapped-accepted': {
    description: "serves a caption file under the query of another format's URL (the format is not signed)",
    rules: ['timings.url-tampered'],
    rewrite: (s, url, p) => {
      const file = isCaptions(s) ? captionFile(s.path) : undefined;
      const [id] = file?.split('.') ?? [];
      const others = ['json', 'vtt', 'srt'].map((f) => `${id}.${f}`).filter((f) => f !== file);
      if (!file || !others.some((other) => p.freshCaptions.get(other) === s.query)) return false;
      return acceptCaptionQuery(() => true)!(s, url, p);
    },
  },
  'captions-audio-query-accepted': {
    description: "serves a caption file under the audio URL's query (caption URLs signed as the audio is)",
    rules: ['timings.url-tampered'],
    rewrite: (s, url, p) => {
      const id = isCaptions(s) ? captionFile(s.path)?.split('.')[0] : undefined;
      if (!id || p.freshAudio.get(id) !== s.query) return false;
      return acceptCaptionQuery(() => true)!(s, url, p);
    },
  },
  'captions-expiry-extended-accepted': {
    description: 'serves a caption URL whose expiry was moved under the issued signature (the expiry is not signed)',
    rules: ['timings.url-expires'],
    rewrite: acceptCaptionQuery((query, fresh, s) => issuedForm(s) && query.get('sig') === fresh.get('sig')),
  },
  'captions-malformed-as-400': {
    description: 'answers a malformed caption URL with 400 INVALID_REQUEST, where the audio URL answers 404 NOT_FOUND',
    rules: ['timings.url-malformed'],
    refuse: (s) => (isCaptions(s) && !issuedForm(s) ? errorAnswer(400, 'INVALID_REQUEST', 'This caption URL is malformed.') : undefined),
  },
  'captions-malformed-unnamed': {
    description: 'refuses a malformed caption URL without naming the part at fault',
    rules: ['timings.url-malformed'],
    change: (s, a, json) => {
      if (!isCaptions(s) || issuedForm(s) || a.status !== 404 || !json?.error) return false;
      json.error.message = 'This URL is not valid or has expired. GET the job again for fresh URLs.';
      return setJson(a, json);
    },
  },
} satisfies Record<string, FaultSpec>;
