import { randomUUID } from 'node:crypto';
import { API, isAudio, isCaptions, issuedForm, isGetJob, setJson, errorAnswer, type FaultSpec } from './common.js';

/** Failed jobs, audio URLs, authentication, usage, not found and legacy jobs. */
export const JOB_AUDIO_AUTH_FAULTS = {
  // ── failed jobs and provider errors ────────────────────────────────────────────────────────────
  'failed-job-success-true': {
    description: 'answers GET of a failed job with success true',
    rules: ['job.failed-status'],
    change: (s, a, json) => {
      if (!isGetJob(s) || json?.status !== 'failed') return false;
      json.success = true;
      return setJson(a, json);
    },
  },
  'failed-job-as-500': {
    description: 'answers GET of a failed job with HTTP 500 and the error body',
    rules: ['job.failed-status'],
    change: (s, a, json) => {
      if (!isGetJob(s) || json?.status !== 'failed') return false;
      Object.assign(a, errorAnswer(500, 'INTERNAL_ERROR', 'The job failed.'));
      return true;
    },
  },
  'failed-code-internal': {
    description: 'reports a speech-engine failure as INTERNAL_ERROR',
    rules: ['errors.tts-provider-error'],
    change: (_s, a, json) => {
      if (json?.error?.code !== 'TTS_PROVIDER_ERROR') return false;
      json.error.code = 'INTERNAL_ERROR';
      return setJson(a, json);
    },
  },
  'failed-message-no-new-key': {
    description: "a failed job's message no longer asks for a new Idempotency-Key",
    rules: ['idempotency.failed-job-new-key'],
    change: (_s, a, json) => {
      if (json?.status !== 'failed' || typeof json.error?.message !== 'string') return false;
      json.error.message = 'The speech engine failed on this job.';
      return setJson(a, json);
    },
  },

  // ── audio ──────────────────────────────────────────────────────────────────────────────────────
  'audio-head-not-allowed': {
    description: 'answers HEAD of an audio URL 405, as if only GET were allowed',
    rules: ['audio.head'],
    refuse: (s) => (isAudio(s) && s.method === 'HEAD' ? { status: 405, headers: { allow: 'GET' }, body: Buffer.alloc(0) } : undefined),
  },
  'audio-head-length-zero': {
    description: 'answers HEAD of an audio URL with Content-Length: 0, the length of the body it did not send',
    rules: ['audio.head'],
    change: (s, a) => {
      if (!isAudio(s) || s.method !== 'HEAD' || a.status !== 200) return false;
      a.headers['content-length'] = '0';
      return true;
    },
  },
  'audio-404-as-403': {
    description: 'answers invalid audio URLs with 403 INVALID_KEY (the status the table gives that code is 401)',
    rules: ['audio.tampered-signature', 'audio.expired-url', 'errors.body-shape'],
    change: (s, a, json) => {
      if (!isAudio(s) || a.status !== 404) return false;
      Object.assign(a, errorAnswer(403, 'INVALID_KEY', json?.error?.message ?? 'invalid'));
      return true;
    },
  },
  'audio-expiry-ignored': {
    description: 'serves an audio URL whose expiry has passed (its signature is still checked)',
    rules: ['audio.expired-url'],
    rewrite: (s, url, p) => {
      if (!isAudio(s)) return false;
      const id = /([0-9a-f-]{36})\.mp3$/.exec(url.pathname)?.[1];
      const expires = Number(url.searchParams.get('expires'));
      const fresh = id ? p.freshAudio.get(id) : undefined;
      if (!fresh || !(expires * 1000 < Date.now())) return false;
      url.search = fresh;
      return true;
    },
  },
  'audio-expired-says-so': {
    description: 'tells an expired audio URL apart from a tampered one in its message',
    rules: ['audio.expired-url'],
    rewrite: () => false,
    change: (s, a, json) => {
      if (!isAudio(s) || a.status !== 404 || !json?.error) return false;
      const expires = Number(new URLSearchParams(s.query).get('expires'));
      if (!(expires * 1000 < Date.now())) return false;
      json.error.message = 'This audio URL has expired.';
      return setJson(a, json);
    },
  },
  'audio-malformed-as-400': {
    description:
      'answers a malformed or cut-short audio URL with 400 INVALID_REQUEST, where the docs say 404 NOT_FOUND (a client that refetches on 404 never recovers)',
    rules: ['audio-url.malformed', 'audio-url.cut-short'],
    refuse: (s) => (isAudio(s) && !issuedForm(s) ? errorAnswer(400, 'INVALID_REQUEST', 'This audio URL is malformed.') : undefined),
  },
  'audio-tampered-as-500': {
    description: 'answers an audio URL of the issued form whose signature does not match with 500 INTERNAL_ERROR',
    rules: ['audio-url.not-valid-alike'],
    change: (s, a, json) => {
      if (!isAudio(s) || !issuedForm(s) || a.status !== 404 || json?.error?.code !== 'NOT_FOUND') return false;
      Object.assign(a, errorAnswer(500, 'INTERNAL_ERROR', 'Internal server error. Retry with backoff.'));
      return true;
    },
  },
  'range-ignored': {
    description: 'ignores Range and answers the whole file with 200',
    rules: ['audio.range'],
    rewrite: (s, _url, p) => {
      if (!isAudio(s)) return false;
      p.stripRange = true;
      return true;
    },
  },

  // ── authentication ─────────────────────────────────────────────────────────────────────────────
  'missing-auth-as-403': {
    description: 'answers a request without Authorization with 403',
    rules: ['auth.missing-header'],
    change: (s, a) => {
      if (s.auth !== '' || a.status !== 401) return false;
      a.status = 403;
      return true;
    },
  },
  'no-www-authenticate': {
    description: 'leaves WWW-Authenticate off 401 answers',
    rules: ['auth.missing-header', 'auth.unknown-key'],
    change: (_s, a) => {
      if (!('www-authenticate' in a.headers)) return false;
      delete a.headers['www-authenticate'];
      return true;
    },
  },
  'revoked-as-inactive': {
    description: 'answers a revoked key with 403 INACTIVE_SUBSCRIPTION',
    rules: ['auth.revoked-key'],
    change: (s, a, _json, p) => {
      if (a.status !== 401 || s.auth !== p.revokedAuth) return false;
      Object.assign(a, errorAnswer(403, 'INACTIVE_SUBSCRIPTION', 'inactive'));
      return true;
    },
  },

  // ── usage, not found, legacy ───────────────────────────────────────────────────────────────────
  'usage-details-missing': {
    description: 'leaves error.details off USAGE_LIMIT_EXCEEDED',
    rules: ['usage.limit-exceeded'],
    change: (_s, a, json) => {
      if (json?.error?.code !== 'USAGE_LIMIT_EXCEEDED') return false;
      delete json.error.details;
      return setJson(a, json);
    },
  },
  'leak-other-account-job': {
    description: 'answers a GET that should be 404 with a job of another account (HTTP 200)',
    rules: ['not-found.unknown-id', 'not-found.other-account'],
    change: (s, a, json, p) => {
      if (!isGetJob(s) || a.status !== 404) return false;
      const foreign = [...p.completedJobs].find(([owner]) => owner !== s.auth)?.[1];
      const requestId = randomUUID();
      a.status = 200;
      a.headers['x-request-id'] = requestId;
      return setJson(a, foreign ? { ...foreign, meta: { ...foreign.meta, request_id: requestId } } : json);
    },
  },
  'malformed-id-as-404': {
    description: 'answers GET with an id that is not a UUID with 404 NOT_FOUND',
    rules: ['get.malformed-id'],
    change: (s, a, json) => {
      if (!isGetJob(s) || a.status !== 400 || json?.error?.code !== 'INVALID_REQUEST') return false;
      json.error.code = 'NOT_FOUND';
      a.status = 404;
      return setJson(a, json);
    },
  },
  'legacy-expired-as-404': {
    description: 'answers a legacy job whose audio was deleted with 404 NOT_FOUND',
    rules: ['legacy.file-expired'],
    change: (_s, a, json) => {
      if (json?.status !== 'expired') return false;
      Object.assign(a, errorAnswer(404, 'NOT_FOUND', 'No such job.'));
      return true;
    },
  },
  'unknown-path-html': {
    description: 'answers unknown routes with an HTML 404 page',
    rules: ['routes.unknown-path'],
    change: (s, a) => {
      if (a.status !== 404 || s.path.startsWith(API) || isAudio(s) || isCaptions(s)) return false;
      a.headers['content-type'] = 'text/html';
      a.body = Buffer.from('<h1>Not Found</h1>');
      return true;
    },
  },
  'wrong-method-no-allow': {
    description: 'leaves Allow off 405 answers',
    rules: ['routes.wrong-method'],
    change: (_s, a) => {
      if (a.status !== 405 || !('allow' in a.headers)) return false;
      delete a.headers.allow;
      return true;
    },
  },
} satisfies Record<string, FaultSpec>;
