import { randomUUID } from 'node:crypto';
import { API, isSubmit, isGetJob, setJson, header, type Json, type FaultSpec } from './common.js';

/** CORS, meta, versioning and errors; reported figures against what was done; and the faults only the generated rules find. */
export const PROTOCOL_FAULTS = {
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

  // ── reported figures against what was done (conformance/rules/figures.ts, rate-limit-figures.ts) ──────
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
    // One random draw: the coverage phase pairs every language with a speed next to each bound (300 draws were needed before it).
    generatedOnly: { args: ['--generate', '1', '--seed', '1'] },
    refuse: (s) =>
      isSubmit(s) && rareCombination(s.json)
        ? { status: 500, headers: { 'content-type': 'text/plain' }, body: Buffer.from('Internal Server Error') }
        : undefined,
  },
  'family-at-bound-500': {
    description: 'answers a submission with a Mandarin voice (z…) at the slowest speed, 0.5, with a bare 500',
    rules: ['generated.requests'],
    // One random draw: the coverage phase meets every voice family at each bound.
    generatedOnly: { args: ['--generate', '1', '--seed', '3'] },
    refuse: (s) =>
      isSubmit(s) && typeof s.json?.voice === 'string' && s.json.voice.startsWith('z') && s.json.speed === 0.5
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
