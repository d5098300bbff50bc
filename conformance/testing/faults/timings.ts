import { type FaultSpec, type Json, acceptAsProcessing, header, isGetJob, isSubmit, setJson } from './common.js';
import { EXTENSION_REQUIRED, timingsFile, captionText, setText, editTimingsUrls } from './timings-support.js';

/**
 * Word timings and captions (an extension beyond the base API): timings where none were asked for or
 * missing where they were, files that disagree with the text, the audio or each other, and caption URLs
 * that accept what the audio URL refuses.
 */

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

  // ── the times against the sound of the MP3 ─────────────────────────────────────────────────────
  'timings-early': {
    description: "counts times from the first sound instead of the MP3's start (its leading silence and the encoder's delay left out): every time 0.25 s early",
    rules: ['timings.match-audio'],
    change: (s, a, json) => {
      const file = timingsFile(s, json);
      if (!file) return false;
      const early = (t: number) => Math.max(0, Math.round((t - 0.25) * 1000) / 1000);
      for (const item of [...file.words, ...file.cues]) [item.start, item.end] = [early(item.start), early(item.end)];
      return setJson(a, file);
    },
  },
  'timings-fast': {
    description: 'gives times for another speed than the one spoken: every time four fifths of the real one',
    rules: ['timings.match-audio'],
    change: (s, a, json) => {
      const file = timingsFile(s, json);
      if (!file) return false;
      const fast = (t: number) => Math.round(t * 800) / 1000;
      for (const item of [...file.words, ...file.cues]) [item.start, item.end] = [fast(item.start), fast(item.end)];
      return setJson(a, file);
    },
  },

  // ── cues as documented, and WebVTT without markup ───────────────────────────────────────────────
  'cue-punctuation-dropped': {
    description: 'cuts cue text at the last word, leaving out the punctuation that follows it',
    rules: ['timings.cues-as-documented'],
    change: (s, a, json) => {
      const file = timingsFile(s, json);
      if (!file) return false;
      for (const cue of file.cues) cue.text = cue.text.replace(/[^\p{L}\p{N}\p{Extended_Pictographic}]+$/u, '');
      return setJson(a, file);
    },
  },
  'cues-one-per-sentence': {
    description: 'makes one cue of each sentence, however long (past 42 characters and 8 words)',
    rules: ['timings.cues-as-documented'],
    change: (s, a, json) => {
      const file = timingsFile(s, json);
      if (!file || file.cues.length < 2) return false;
      const merged: Json[] = [];
      for (const cue of file.cues) {
        const last = merged.at(-1);
        if (last && !/[.!?]$/.test(last.text)) Object.assign(last, { end: cue.end, text: `${last.text} ${cue.text}` });
        else merged.push({ ...cue });
      }
      if (merged.length === file.cues.length) return false;
      file.cues = merged;
      return setJson(a, file);
    },
  },
  'vtt-markup-unescaped': {
    description: 'writes &, < and > into WebVTT cue text as they are, so that <b> in the text reads as markup',
    rules: ['timings.cues-as-documented'],
    change: (s, a) => {
      const text = captionText(s, a, 'text/vtt');
      return text !== undefined && /&(?:amp|lt|gt);/.test(text) && setText(a, text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
    },
  },

  // ── where timings appear, what they cost, and how fresh their URLs are ─────────────────────────
  'timings-dropped-on-replay': {
    description: 'leaves timings off the answer to a replayed POST (same Idempotency-Key) of a job that asked for them',
    rules: ['timings.present-when-asked'],
    change: (s, a, json) => {
      if (!isSubmit(s) || header(a, 'idempotent-replayed') !== 'true' || !json?.timings) return false;
      delete json.timings;
      return setJson(a, json);
    },
  },
  'timings-surcharge': {
    description: 'charges half a minute more for a job that asked for timings',
    rules: ['timings.asking-costs-nothing'],
    change: (_s, a, json) => {
      if (json?.status !== 'completed' || !json.timings || typeof json.billing?.monthly_minutes_used !== 'number') return false;
      json.billing.monthly_minutes_used = Math.round((json.billing.monthly_minutes_used + 0.5) * 100) / 100;
      json.billing.monthly_minutes_remaining = Math.max(0, Math.round((json.billing.monthly_minutes_remaining - 0.5) * 100) / 100);
      return setJson(a, json);
    },
  },
} satisfies Record<string, FaultSpec>;
