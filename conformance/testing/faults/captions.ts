import { type FaultSpec, captionFile, errorAnswer, isCaptions, issuedForm, setJson } from './common.js';
import { firstTimings, captionText, setText, acceptCaptionQuery, shiftMillis } from './timings-support.js';

/** Caption files and their URLs (the word-timings extension): stale or public URLs, HEAD, WebVTT and SRT syntax, tampering. */
export const CAPTION_FAULTS = {
  'captions-stale-urls': {
    description: 'hands out, on every poll, the caption URLs of the first answer instead of fresh ones',
    rules: ['timings.url-fresh'],
    change: (_s, a, json) => {
      if (json?.status !== 'completed' || !json.timings || typeof json.job_id !== 'string') return false;
      const first = firstTimings.get(json.job_id);
      if (!first) {
        firstTimings.set(json.job_id, json.timings);
        return false;
      }
      json.timings = first;
      return setJson(a, json);
    },
  },
  'captions-cached-public': {
    description: 'serves caption files with Cache-Control: public, max-age=86400, cached a day past the URL’s expiry',
    rules: ['timings.url-fresh'],
    change: (s, a) => {
      if (!isCaptions(s) || a.status !== 200) return false;
      a.headers['cache-control'] = 'public, max-age=86400';
      return true;
    },
  },
  'captions-head-refused': {
    description: 'answers HEAD of a caption URL 405, where the document answers it as GET without a body',
    rules: ['timings.url-fresh'],
    refuse: (s) => (isCaptions(s) && s.method === 'HEAD' ? errorAnswer(405, 'METHOD_NOT_ALLOWED', 'HEAD is not allowed here.', { allow: 'GET' }) : undefined),
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
      return acceptCaptionQuery(() => true)(s, url, p);
    },
  },
  'captions-audio-query-accepted': {
    description: "serves a caption file under the audio URL's query (caption URLs signed as the audio is)",
    rules: ['timings.url-tampered'],
    rewrite: (s, url, p) => {
      const id = isCaptions(s) ? captionFile(s.path)?.split('.')[0] : undefined;
      if (!id || p.freshAudio.get(id) !== s.query) return false;
      return acceptCaptionQuery(() => true)(s, url, p);
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
