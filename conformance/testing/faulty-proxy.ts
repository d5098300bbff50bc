import { randomUUID } from 'node:crypto';
import { type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';

/**
 * The suite's self-test: a proxy in front of a conforming deployment that breaks one behaviour at a
 * time. Each fault names the rules that must catch it (run with --only); a fault no rule fails is a
 * blind spot of the suite. Faults change answers (or answer in the deployment's place) the way a
 * non-conforming deployment would: refusing valid boundary values, wrong statuses, header syntax,
 * and interactions between rules (a replay that consumes quota, a Retry-After that lies).
 */
// biome-ignore lint/suspicious/noExplicitAny: the proxy rewrites answers of any shape field by field
type Json = any;

interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

interface Seen {
  method: string;
  path: string;
  /** The query, with its "?". */
  query: string;
  idempotencyKey?: string;
  rawLength: number;
  /** The first bytes of the request body, as Latin-1. */
  rawStart: string;
  /** The request body as JSON, when it was JSON. */
  json?: Json;
  auth: string;
  origin?: string;
}

interface FaultSpec {
  description: string;
  /** The rules that must catch it: at least one of them fails. */
  rules: string[];
  /** Answers in the deployment's place (the request is not forwarded), or undefined to forward. */
  refuse?: (seen: Seen, proxy: FaultyProxy) => Answer | undefined;
  /** Changes the deployment's answer; returns whether it changed anything. */
  change?: (seen: Seen, answer: Answer, json: Json | undefined, proxy: FaultyProxy) => boolean;
  /** Rewrites the request before it is forwarded; returns whether it changed anything. */
  rewrite?: (seen: Seen, url: URL, proxy: FaultyProxy) => boolean;
  /**
   * Only the generated rules can find it: the hand-written rules never send what sets it off. Its
   * self-test (test/conformance-generated-self-test.test.ts) runs the generated group with `args`,
   * and the hand-written catalog, through it.
   */
  generatedOnly?: { args: string[] };
}

const API = '/v1/agent-tts';
const isAudio = (s: Seen) => s.path.startsWith('/v1/audio/');
/** Whether an audio URL's query is of the issued form: expires of 1–12 digits, sig of 43 base64url characters. */
const issuedForm = (s: Seen) => {
  const query = new URLSearchParams(s.query);
  return /^\d{1,12}$/.test(query.get('expires') ?? '') && /^[A-Za-z0-9_-]{43}$/.test(query.get('sig') ?? '');
};
const isSubmit = (s: Seen) => s.method === 'POST' && s.path === API;
const isGetJob = (s: Seen) => s.method === 'GET' && s.path === API;
const st = (s: Seen) => typeof s.json?.voice === 'string' && s.json.voice.startsWith('st_');

function errorAnswer(status: number, code: string, message: string, headers: Record<string, string> = {}): Answer {
  const requestId = randomUUID();
  const body = { success: false, error: { code, message }, meta: { request_id: requestId, api_version: '2026-04' } };
  return { status, headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...headers }, body: Buffer.from(JSON.stringify(body)) };
}

const setJson = (answer: Answer, json: Json) => {
  answer.body = Buffer.from(JSON.stringify(json));
  return true;
};

const header = (answer: Answer, name: string) => {
  const v = answer.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

export const FAULTS = {
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
      a.status = 202;
      return setJson(a, {
        success: true,
        status: 'processing',
        job_id: randomUUID(),
        status_url: `${API}?id=${randomUUID()}`,
        retry_after_seconds: 5,
        meta: json.meta,
      });
    },
  },
  'unlisted-voice-accepted': {
    description: 'accepts a voice of the right form that its catalog does not list (HTTP 202 processing), as if it would speak it in another voice',
    rules: ['voices.unlisted-refused'],
    change: (s, a, json) => {
      // Only a body whose one fault can be its voice: a text, a voice of the right form, nothing else.
      const { text, voice, ...rest } = s.json ?? {};
      const onlyTheVoice = typeof text === 'string' && text.trim() !== '' && Object.keys(rest).length === 0;
      if (
        !isSubmit(s) ||
        !onlyTheVoice ||
        typeof voice !== 'string' ||
        !/^[abefhijpz][fm]_[a-z][a-z0-9]{0,31}$/.test(voice) ||
        json?.error?.code !== 'INVALID_REQUEST'
      )
        return false;
      a.status = 202;
      return setJson(a, {
        success: true,
        status: 'processing',
        job_id: randomUUID(),
        status_url: `${API}?id=${randomUUID()}`,
        retry_after_seconds: 5,
        meta: json.meta,
      });
    },
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

  // ── rate limits ────────────────────────────────────────────────────────────────────────────────
  'drop-retry-after': {
    description: 'answers 429 without Retry-After',
    rules: ['rate-limit.post', 'rate-limit.get'],
    change: (_s, a) => {
      if (!('retry-after' in a.headers)) return false;
      delete a.headers['retry-after'];
      return true;
    },
  },
  'retry-after-zero': {
    description: 'sends Retry-After: 0 on 429',
    rules: ['rate-limit.post', 'rate-limit.get'],
    change: (_s, a) => {
      if (a.status !== 429) return false;
      a.headers['retry-after'] = '0';
      return true;
    },
  },
  'retry-after-too-short': {
    description: 'tells the client to come back after 1 s, before the bucket has room',
    rules: ['rate-limit.retry-after-honest'],
    change: (_s, a) => {
      if (a.status !== 429 || header(a, 'retry-after') === '1') return false;
      a.headers['retry-after'] = '1';
      return true;
    },
  },
  'rate-limit-as-400': {
    description: 'turns every 429 into a 400',
    rules: ['rate-limit.post', 'rate-limit.get', 'errors.body-shape'],
    change: (_s, a) => {
      if (a.status !== 429) return false;
      a.status = 400;
      return true;
    },
  },
  'ratelimit-draft-07': {
    description: 'sends the rate-limit headers in the draft-07 syntax (limit=1, remaining=0, reset=60)',
    rules: ['rate-limit.headers', 'openapi.submit-tts'],
    change: (_s, a) => {
      const policy = header(a, 'ratelimit-policy');
      const state = header(a, 'ratelimit');
      if (!policy || !state) return false;
      const q = /q=(\d+)/.exec(policy)?.[1];
      const w = /w=(\d+)/.exec(policy)?.[1];
      const r = /r=(\d+)/.exec(state)?.[1];
      const t = /t=(\d+)/.exec(state)?.[1];
      a.headers['ratelimit-policy'] = `${q};w=${w}`;
      a.headers.ratelimit = `limit=${q}, remaining=${r}, reset=${t}`;
      return true;
    },
  },
  'ratelimit-token-name': {
    description: 'names the policy with a Token instead of a String (post;q=1;w=60)',
    rules: ['rate-limit.headers'],
    change: (_s, a) => {
      const policy = header(a, 'ratelimit-policy');
      if (!policy) return false;
      a.headers['ratelimit-policy'] = policy.replace(/"(\w+)"/g, '$1');
      return true;
    },
  },
  'ratelimit-wrong-policy': {
    description: 'reports the "post" policy on GET answers',
    rules: ['rate-limit.headers'],
    change: (s, a) => {
      const policy = header(a, 'ratelimit-policy');
      if (s.method !== 'GET' || !policy) return false;
      a.headers['ratelimit-policy'] = policy.replace('"get"', '"post"');
      a.headers.ratelimit = String(header(a, 'ratelimit')).replace('"get"', '"post"');
      return true;
    },
  },
  'ratelimit-remaining-on-429': {
    description: 'a 429 claims requests remain (RateLimit r=1)',
    rules: ['rate-limit.post'],
    change: (_s, a) => {
      const state = header(a, 'ratelimit');
      if (a.status !== 429 || !state) return false;
      a.headers.ratelimit = state.replace(/r=\d+/, 'r=1');
      return true;
    },
  },
  'shared-buckets': {
    description: "refuses a GET with 429 while the key's POST bucket is exhausted (one bucket for both)",
    rules: ['rate-limit.separate-buckets'],
    refuse: (s, p) => (isGetJob(s) && p.postLimited.has(s.auth) ? errorAnswer(429, 'RATE_LIMITED', 'Too many requests', { 'retry-after': '4' }) : undefined),
    change: (s, a, _json, p) => {
      if (isSubmit(s) && a.status === 429) p.postLimited.add(s.auth);
      return false;
    },
  },

  // ── idempotency and billing ────────────────────────────────────────────────────────────────────
  'double-charge-replay': {
    description: 'adds a minute to billing.monthly_minutes_used on every idempotent replay',
    rules: ['idempotency.same-key-same-job'],
    change: (_s, a, json) => {
      if (a.headers['idempotent-replayed'] !== 'true' || !json?.billing) return false;
      json.billing.monthly_minutes_used += 1;
      json.billing.monthly_minutes_remaining = Math.max(0, json.billing.monthly_minutes_remaining - 1);
      return setJson(a, json);
    },
  },
  'replay-consumes-quota': {
    description: 'answers a replay (same Idempotency-Key) with 429, as a server that rate-limits before it looks up the key',
    rules: ['idempotency.same-key-same-job', 'idempotency.retry-after-transport-failure'],
    change: (_s, a) => {
      if (a.headers['idempotent-replayed'] !== 'true') return false;
      Object.assign(a, errorAnswer(429, 'RATE_LIMITED', 'Too many requests', { 'retry-after': '4' }));
      return true;
    },
  },
  'replay-header-dropped': {
    description: 'leaves Idempotent-Replayed off replays',
    rules: ['idempotency.same-key-same-job', 'idempotency.retry-after-transport-failure'],
    change: (_s, a) => {
      if (a.headers['idempotent-replayed'] !== 'true') return false;
      delete a.headers['idempotent-replayed'];
      return true;
    },
  },
  'keys-shared-across-accounts': {
    description: "answers a second account's POST with the first account's job when the Idempotency-Key repeats",
    rules: ['idempotency.per-account'],
    change: (s, a, json, p) => {
      const key = s.idempotencyKey;
      if (!isSubmit(s) || !json?.job_id) return false;
      const seen = key !== undefined ? p.jobsByIdempotencyKey.get(key) : undefined;
      if (seen && seen.auth !== s.auth) {
        a.headers['idempotent-replayed'] = 'true';
        return setJson(a, { ...seen.json, meta: json.meta });
      }
      if (key !== undefined) p.jobsByIdempotencyKey.set(key, { auth: s.auth, json });
      return false;
    },
  },

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
      if (a.status !== 404 || s.path.startsWith(API) || isAudio(s)) return false;
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

  // ── CORS, meta, versioning, errors ─────────────────────────────────────────────────────────────
  'cors-grants-any-origin': {
    description: 'grants CORS to any origin (Access-Control-Allow-Origin: *)',
    rules: ['cors.denied-origin'],
    change: (s, a) => {
      if (!s.origin) return false;
      a.headers['access-control-allow-origin'] = '*';
      return true;
    },
  },
  'cors-no-expose': {
    description: 'exposes no headers to browsers (Access-Control-Expose-Headers left off)',
    rules: ['cors.simple-allowed'],
    change: (_s, a) => {
      if (!('access-control-expose-headers' in a.headers)) return false;
      delete a.headers['access-control-expose-headers'];
      return true;
    },
  },
  'omit-api-version': {
    description: 'removes meta.api_version from every JSON body',
    rules: ['versioning.api-version-everywhere', 'errors.body-shape'],
    change: (_s, a, json) => {
      if (!json?.meta || !('api_version' in json.meta)) return false;
      delete json.meta.api_version;
      return setJson(a, json);
    },
  },
  'request-id-mismatch': {
    description: 'sends an X-Request-Id other than meta.request_id',
    rules: ['meta.request-id'],
    change: (_s, a, json) => {
      if (!json?.meta?.request_id) return false;
      a.headers['x-request-id'] = randomUUID();
      return true;
    },
  },
  'request-id-repeated': {
    description: 'repeats one meta.request_id (and X-Request-Id) on every answer',
    rules: ['meta.request-id-fresh'],
    change: (_s, a, json) => {
      if (!json?.meta?.request_id) return false;
      json.meta.request_id = '11111111-1111-4111-8111-111111111111';
      a.headers['x-request-id'] = json.meta.request_id;
      return setJson(a, json);
    },
  },
  'hostile-input-500': {
    description: 'answers a body nested 10,000 deep with a bare 500',
    rules: ['errors.internal-error'],
    refuse: (s) =>
      s.method === 'POST' && s.path === API && s.rawLength > 20_000 && s.rawStart.startsWith('{"text":[[[')
        ? { status: 500, headers: { 'content-type': 'text/plain' }, body: Buffer.from('Internal Server Error') }
        : undefined,
  },

  // ── reported figures against what was done (conformance/rules/figures.ts) ─────────────────────────
  'inline-wait-one-second': {
    description: 'answers 202 processing for any job that took more than a second, as a deployment whose inline wait is one second (replays still answer 200)',
    rules: ['submit.inline-within-wait'],
    change: (s, a, json) => {
      if (
        !isSubmit(s) ||
        a.status !== 200 ||
        json?.status !== 'completed' ||
        a.headers['idempotent-replayed'] === 'true' ||
        !(json.meta?.processing_time_ms > 1_000)
      )
        return false;
      a.status = 202;
      const meta = { request_id: json.meta.request_id, api_version: json.meta.api_version };
      return setJson(a, { success: true, status: 'processing', job_id: json.job_id, status_url: `${API}?id=${json.job_id}`, retry_after_seconds: 1, meta });
    },
  },
  'usage-used-understated': {
    description: 'reports details.used of USAGE_LIMIT_EXCEEDED five minutes short of what the account used',
    rules: ['usage.details-agree'],
    change: (_s, a, json) => {
      if (json?.error?.code !== 'USAGE_LIMIT_EXCEEDED' || typeof json.error.details?.used !== 'number') return false;
      json.error.details.used = Math.max(0, json.error.details.used - 5);
      return setJson(a, json);
    },
  },
  'ratelimit-remaining-stuck': {
    description: 'RateLimit on admitted GETs always reports the whole quota but one remaining (r never counts down)',
    rules: ['rate-limit.remaining-counts'],
    change: (s, a) => {
      const quota = /"get";q=(\d+)/.exec(String(header(a, 'ratelimit-policy') ?? ''))?.[1];
      const state = header(a, 'ratelimit');
      if (!isGetJob(s) || a.status !== 200 || !quota || !state) return false;
      a.headers.ratelimit = state.replace(/r=\d+/, `r=${Number(quota) - 1}`);
      return true;
    },
  },
  'get-retry-after-three-windows': {
    description: 'a GET refused with 429 is told to wait three windows (Retry-After and RateLimit t alike)',
    rules: ['rate-limit.remaining-counts'],
    change: (s, a) => {
      const window = /"get";q=\d+;w=(\d+)/.exec(String(header(a, 'ratelimit-policy') ?? ''))?.[1];
      if (!isGetJob(s) || a.status !== 429 || !window) return false;
      const wait = String(3 * Number(window));
      a.headers['retry-after'] = wait;
      if (header(a, 'ratelimit')) a.headers.ratelimit = String(header(a, 'ratelimit')).replace(/t=\d+/, `t=${wait}`);
      return true;
    },
  },

  // ── found only by the generated rules (conformance/generated/) ─────────────────────────────────
  'rare-combination-500': {
    description: 'answers a submission asking for German (de) at a speed above 1 and below 1.5 with a bare 500',
    rules: ['generated.requests'],
    generatedOnly: { args: ['--generate', '300', '--seed', '7'] },
    refuse: (s) =>
      isSubmit(s) && rareCombination(s.json)
        ? { status: 500, headers: { 'content-type': 'text/plain' }, body: Buffer.from('Internal Server Error') }
        : undefined,
  },
  'header-missing-on-one-status': {
    description: 'leaves X-Request-Id off the 400 answer to an Idempotency-Key with a character outside ASCII',
    rules: ['generated.requests'],
    generatedOnly: { args: ['--generate', '100', '--seed', '7'] },
    change: (s, a) => {
      if (!isSubmit(s) || a.status !== 400 || !/\P{ASCII}/u.test(s.idempotencyKey ?? '') || !('x-request-id' in a.headers)) return false;
      delete a.headers['x-request-id'];
      return true;
    },
  },
  'schema-drift-on-one-path': {
    description: 'GET of a completed job spoken slower than 0.8 (but not at 0.5) reports audio.speed as a string',
    rules: ['generated.links'],
    generatedOnly: { args: ['--generate', '90', '--seed', '7'] },
    change: (s, a, json) => {
      const speed = json?.audio?.speed;
      if (!isGetJob(s) || json?.status !== 'completed' || typeof speed !== 'number' || !(speed > 0.5 && speed < 0.8)) return false;
      json.audio.speed = String(speed);
      return setJson(a, json);
    },
  },
} satisfies Record<string, FaultSpec>;

/** The field combination of the fault rare-combination-500. */
function rareCombination(json: Json): boolean {
  return json?.language === 'de' && typeof json.speed === 'number' && json.speed > 1 && json.speed < 1.5;
}

export type Fault = keyof typeof FAULTS | 'generated-only';

/** The faults only the generated rules can find. */
export const GENERATED_ONLY_FAULTS = (Object.keys(FAULTS) as (keyof typeof FAULTS)[]).filter((f) => 'generatedOnly' in FAULTS[f]);

/** Several faults at once (the fault `generated-only`: every one the hand-written rules must not see). */
function combined(specs: FaultSpec[]): FaultSpec {
  return {
    description: specs.map((s) => s.description).join('; '),
    rules: specs.flatMap((s) => s.rules),
    refuse: (seen, proxy) => specs.reduce<Answer | undefined>((answer, s) => answer ?? s.refuse?.(seen, proxy), undefined),
    change: (seen, answer, json, proxy) => specs.reduce((changed, s) => (s.change?.(seen, answer, json, proxy) ?? false) || changed, false),
  };
}

export class FaultyProxy {
  private server?: Server;
  private origin = '';
  /** The last completed job seen, per Authorization header: what the leak fault serves to others. */
  readonly completedJobs = new Map<string, Json>();
  /** The query of the newest audio_url seen per job: what the expiry fault swaps in. */
  readonly freshAudio = new Map<string, string>();
  readonly postLimited = new Set<string>();
  readonly jobsByIdempotencyKey = new Map<string, { auth: string; json: Json }>();
  /** `Bearer <revoked key>`, for the fault that answers it differently. */
  revokedAuth?: string;
  stripRange = false;
  /** How many answers the fault changed: a fault that changed nothing proves nothing. */
  injected = 0;

  constructor(
    private readonly upstream: string,
    readonly fault: Fault,
    options: { revokedKey?: string } = {},
  ) {
    if (options.revokedKey) this.revokedAuth = `Bearer ${options.revokedKey}`;
  }

  get spec(): FaultSpec {
    if (this.fault === 'generated-only') return combined(GENERATED_ONLY_FAULTS.map((f) => FAULTS[f]));
    return FAULTS[this.fault];
  }

  async listen(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this.origin;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const raw = await readAll(req);
      const url = new URL(req.url ?? '/', this.upstream);
      let json: Json;
      if (/json/.test(String(req.headers['content-type'] ?? ''))) {
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          json = undefined;
        }
      }
      const seen: Seen = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.search,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        json,
        auth: String(req.headers.authorization ?? ''),
        origin: req.headers.origin,
        rawLength: raw.length,
        rawStart: raw.subarray(0, 16).toString('latin1'),
      };
      const spec: FaultSpec = this.spec;
      let answer = spec.refuse?.(seen, this);
      if (answer) this.injected++;
      else {
        if (spec.rewrite?.(seen, url, this)) this.injected++;
        const headers: IncomingHttpHeaders = { ...req.headers, host: new URL(this.upstream).host };
        if (this.stripRange) delete headers.range;
        answer = await this.forward(req.method ?? 'GET', url, headers, raw);
        const body = parseJson(answer);
        this.observe(seen, body);
        if (spec.change?.(seen, answer, body, this)) this.injected++;
      }
      // audio_url and the fixtures point at the deployment: make the client come back through here.
      if (/json/.test(String(answer.headers['content-type'] ?? ''))) {
        answer.body = Buffer.from(answer.body.toString('utf8').split(this.upstream).join(this.origin));
      }
      const out: Record<string, string | string[]> = { ...answer.headers, 'content-length': String(answer.body.length) };
      delete out['transfer-encoding'];
      res.writeHead(answer.status, out).end(answer.body);
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`faulty proxy: ${(error as Error).message}`);
    }
  }

  private observe(seen: Seen, json: Json): void {
    if (json?.status === 'completed') {
      this.completedJobs.set(seen.auth, json);
      if (typeof json.audio_url === 'string') {
        const u = new URL(json.audio_url);
        const id = /([0-9a-f-]{36})\.mp3$/.exec(u.pathname)?.[1];
        if (id) this.freshAudio.set(id, u.search);
      }
    }
  }

  private forward(method: string, target: URL, headers: IncomingHttpHeaders, body: Buffer): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const upstream = request(target, { method, headers }, (res) => {
        readAll(res).then((data) => {
          const out: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = v;
          resolve({ status: res.statusCode ?? 502, headers: out, body: data });
        }, reject);
      });
      upstream.on('error', reject);
      upstream.end(body);
    });
  }
}

function parseJson(answer: Answer): Json | undefined {
  if (!/json/.test(String(answer.headers['content-type'] ?? ''))) return undefined;
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}
