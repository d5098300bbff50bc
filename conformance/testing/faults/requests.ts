import { acceptAsProcessing, isSubmit, st, setJson, errorAnswer, type FaultSpec } from './common.js';

/** Submissions and acceptance at the boundaries of the request rules. */
export const REQUEST_FAULTS = {
  none: { description: 'forwards everything unchanged (the control)', rules: [] },

  // ── submit and acceptance at the boundaries ────────────────────────────────────────────────────
  'count-utf16-units': {
    description: 'counts text length in UTF-16 units: 500,000 code points with one outside the BMP are TEXT_TOO_LONG',
    rules: ['accept.text-max-length'],
    refuse: (s) =>
      isSubmit(s) && typeof s.json?.text === 'string' && s.json.text.length > 500_000
        ? errorAnswer(400, 'TEXT_TOO_LONG', 'text has more than 500000 characters')
        : undefined,
  },
  'max-length-off-by-one': {
    description: 'refuses a text of exactly 500,000 characters (limit checked with ≥)',
    rules: ['accept.text-max-length'],
    refuse: (s) =>
      isSubmit(s) && typeof s.json?.text === 'string' && [...s.json.text].length >= 500_000 ? errorAnswer(400, 'TEXT_TOO_LONG', 'text too long') : undefined,
  },
  'refuse-single-character': {
    description: 'refuses a text of one character as too short',
    rules: ['accept.text-shortest'],
    refuse: (s) =>
      isSubmit(s) && typeof s.json?.text === 'string' && [...s.json.text].length < 2 ? errorAnswer(400, 'INVALID_REQUEST', 'text too short') : undefined,
  },
  'refuse-speed-1.5': {
    description: 'refuses speed 1.5 (upper bound treated as exclusive)',
    rules: ['accept.speed-bounds'],
    refuse: (s) => (isSubmit(s) && s.json?.speed === 1.5 ? errorAnswer(400, 'INVALID_REQUEST', 'speed must be below 1.5') : undefined),
  },
  'refuse-speed-0.5': {
    description: 'refuses speed 0.5 (lower bound treated as exclusive)',
    rules: ['accept.speed-bounds'],
    refuse: (s) => (isSubmit(s) && s.json?.speed === 0.5 ? errorAnswer(400, 'INVALID_REQUEST', 'speed must be above 0.5') : undefined),
  },
  'refuse-st-without-language': {
    description: 'refuses an st_* voice without a language instead of defaulting to en',
    rules: ['accept.supertonic-languages'],
    refuse: (s) =>
      isSubmit(s) && st(s) && s.json.language === undefined ? errorAnswer(400, 'INVALID_REQUEST', 'language is required for this voice') : undefined,
  },
  'refuse-last-language': {
    description: 'refuses the last language code of §4.5 (vi)',
    rules: ['accept.supertonic-languages'],
    refuse: (s) => (isSubmit(s) && s.json?.language === 'vi' ? errorAnswer(400, 'INVALID_REQUEST', 'unsupported language') : undefined),
  },
  'st-default-language-wrong': {
    description: 'reports an st_* job without a language as spoken in German',
    rules: ['accept.supertonic-languages'],
    change: (s, _a, json) => {
      if (!isSubmit(s) || !st(s) || s.json.language !== undefined || json?.audio?.language === undefined) return false;
      json.audio.language = 'de';
      return setJson(_a, json);
    },
  },
  'refuse-kokoro-letter-z': {
    description: 'refuses Kokoro voices of the language letter z',
    rules: ['accept.kokoro-voices'],
    refuse: (s) =>
      isSubmit(s) && typeof s.json?.voice === 'string' && /^z[fm]_/.test(s.json.voice) ? errorAnswer(400, 'INVALID_REQUEST', 'unknown voice') : undefined,
  },
  'invalid-request-as-422': {
    description: 'answers invalid bodies with HTTP 422 instead of 400',
    rules: ['submit.invalid-request', 'errors.body-shape'],
    change: (_s, a, json) => {
      if (a.status !== 400 || json?.error?.code !== 'INVALID_REQUEST') return false;
      a.status = 422;
      return true;
    },
  },
  'over-limit-accepted': {
    description: 'answers a text over the limit as if accepted (HTTP 202 processing)',
    rules: ['submit.text-too-long'],
    change: (_s, a, json) => {
      if (json?.error?.code !== 'TEXT_TOO_LONG') return false;
      return acceptAsProcessing(a, json);
    },
  },
  'unlisted-voice-refused': {
    description:
      "refuses a voice id of the pattern that its catalog does not list (400 INVALID_REQUEST), against §2.3's letter: any id of the pattern is accepted",
    rules: ['accept.unlisted-voice'],
    refuse: (s) =>
      isSubmit(s) && typeof s.json?.voice === 'string' && /^[abefhijpz][fm]_nobody\d*$/.test(s.json.voice)
        ? errorAnswer(400, 'INVALID_REQUEST', `voice "${s.json.voice}" is not offered by this deployment`)
        : undefined,
  },
  'omit-processing-time': {
    description: 'leaves meta.processing_time_ms out of a completed POST answer',
    rules: ['job.processing-time-on-post'],
    change: (s, a, json) => {
      if (!isSubmit(s) || json?.status !== 'completed' || json.meta?.processing_time_ms === undefined) return false;
      delete json.meta.processing_time_ms;
      return setJson(a, json);
    },
  },
  'show-legacy-fields': {
    description: 'shows the legacy audio field expires_at on new completed jobs',
    rules: ['job.legacy-fields-omitted'],
    change: (_s, a, json) => {
      if (json?.status !== 'completed' || !json.audio) return false;
      json.audio.expires_at = new Date(Date.now() + 3_600_000).toISOString();
      return setJson(a, json);
    },
  },
  'billing-remaining-off': {
    description: 'reports monthly_minutes_remaining one minute too high',
    rules: ['job.billing-consistent'],
    change: (_s, a, json) => {
      if (!json?.billing || typeof json.billing.monthly_minutes_remaining !== 'number') return false;
      json.billing.monthly_minutes_remaining += 1;
      return setJson(a, json);
    },
  },
} satisfies Record<string, FaultSpec>;
