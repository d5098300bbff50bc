import { isSubmit, isGetJob, setJson, header, errorAnswer, type FaultSpec } from './common.js';

/** Rate limits, idempotency and billing. */
export const LIMIT_AND_BILLING_FAULTS = {
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
} satisfies Record<string, FaultSpec>;
