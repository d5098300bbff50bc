import type { MiddlewareHandler } from 'hono';
import { asksForNewIdempotencyKey, NEW_IDEMPOTENCY_KEY_PHRASE } from '@agent-tts/contract/errors.js';
import { API_KEY_PATTERN, API_PATH } from '@agent-tts/contract/limits.js';
import type { AppEnv } from '@agent-tts/server/http/context.js';
import type { Clock } from '@agent-tts/server/ports/index.js';

/** Texts longer than this are cut in the journal (`text_truncated: true`, `text_length` the full length). */
const JOURNAL_TEXT_CHARS = 200;
/** A JSON body nested deeper than this is shown as text (`raw`), as a body that is not JSON. */
const JOURNAL_JSON_DEPTH = 100;
/** Entries kept; the oldest leave first. */
export const JOURNAL_SIZE = 1_000;
/** A POST resent without an Idempotency-Key this soon (sandbox seconds) after the same POST counts as a retry. */
const RETRY_WINDOW_SECONDS = 30;

export interface Flag {
  code:
    | 'POLLED_TOO_SOON'
    | 'RETRIED_BEFORE_RETRY_AFTER'
    | 'RETRY_WITHOUT_IDEMPOTENCY_KEY'
    | 'IDEMPOTENCY_KEY_REUSED_AFTER_NEW_KEY_ASKED'
    | 'IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY'
    /** Not the client's: the sandbox's answer broke the OpenAPI document (with validation on). */
    | 'RESPONSE_VIOLATES_DOCUMENT';
  message: string;
}

/** One flag with the request that earned it, as `flagged()` and GET /sandbox/requests/flags list them. */
export interface FlaggedRequest {
  id: number;
  at: string;
  method: string;
  path: string;
  code: Flag['code'];
  message: string;
}

export interface JournalEntry {
  id: number;
  /** Time of the request on its clock (`clock`). */
  at: string;
  /** The id of the clock the request was on: `global`, or a test clock's `clk_…` (its key's clock). */
  clock: string;
  method: string;
  path: string;
  query: Record<string, string>;
  /**
   * Request headers; Authorization shows only the key's public part (`Bearer tts_<public_id>`). A full
   * key anywhere else in the entry (query, path, another header, a cookie, the body) is shown the same way.
   */
  headers: Record<string, string>;
  /** The API key's public part, when the request had a well-formed one. */
  key?: string;
  /** The JSON body as sent (text cut to JOURNAL_TEXT_CHARS); absent when the API read none. */
  body?: unknown;
  response: {
    status: number;
    error_code?: string;
    job_id?: string;
    retry_after_seconds?: number;
    retry_after_header?: number;
    /** The answer carried `Idempotent-Replayed: true`: it is an earlier job of the same Idempotency-Key. */
    replayed?: true;
  };
  flags: Flag[];
}

export interface JournalFilter {
  method?: string;
  path?: string;
  status?: number;
  key?: string;
  /** Entries at or after this sandbox time (ISO 8601). */
  since?: string;
  /** Entries of requests on this clock (`global` or a test clock's id). */
  clock?: string;
}

/**
 * What clients sent the sandbox and what they got, with the mistakes that can be seen from here
 * flagged on the entry that made them. Requests to /sandbox itself are not recorded.
 */
export class Journal {
  private entries: JournalEntry[] = [];
  private nextId = 1;
  /** Per key and job: when the job was last reported processing, and the retry_after_seconds given. */
  private readonly pollAdvice = new Map<string, { at: number; seconds: number }>();
  /** Per key and bucket (post/get): until when the last 429 asked the client to wait. */
  private readonly blockedUntil = new Map<string, number>();
  /** Per key: the last POST without an Idempotency-Key (its body, time and whether it failed). */
  private readonly lastPost = new Map<string, { body: string; at: number; failed: boolean }>();
  /**
   * Per key and Idempotency-Key bound to a job: the body it was first sent with, its job, and the entry
   * whose answer asked for a new Idempotency-Key (the job failed), if one did.
   */
  private readonly idempotencyKeys = new Map<string, { body: string; jobId: string; newKeyAskedBy?: number }>();
  /** Per key and job: the Idempotency-Key that made it. */
  private readonly jobKeys = new Map<string, string>();
  /** The entry of each request journalMiddleware recorded, while the request lives (flagAnswer finds it). */
  private readonly byRequest = new WeakMap<Request, JournalEntry>();

  /** `clock`: the time of the request being recorded; `clockId`: the id of its clock. */
  constructor(
    private readonly clock: Clock,
    private readonly clockId: () => string = () => 'global',
  ) {}

  list(filter: JournalFilter = {}): JournalEntry[] {
    const since = filter.since === undefined ? undefined : Date.parse(filter.since);
    const key = filter.key?.replace(/^tts_/, '');
    return this.entries.filter(
      (e) =>
        (filter.method === undefined || e.method === filter.method.toUpperCase()) &&
        (filter.path === undefined || e.path === filter.path) &&
        (filter.status === undefined || e.response.status === filter.status) &&
        (key === undefined || e.key === `tts_${key}`) &&
        (filter.clock === undefined || e.clock === filter.clock) &&
        (since === undefined || Date.parse(e.at) >= since),
    );
  }

  /** How many entries the filter keeps. */
  count(filter: JournalFilter = {}): number {
    return this.list(filter).length;
  }

  /** Every flag of the entries the filter keeps, oldest first, with the request that earned it. */
  flagged(filter: JournalFilter = {}): FlaggedRequest[] {
    return this.list(filter).flatMap((e) => e.flags.map((f) => ({ id: e.id, at: e.at, method: e.method, path: e.path, code: f.code, message: f.message })));
  }

  /** Remembers the entry recorded for a request, so that a flag found once its answer is complete lands on it. */
  bind(request: Request, entry: JournalEntry): void {
    this.byRequest.set(request, entry);
  }

  /**
   * Adds a flag about the answer to `request` to its entry, or records the request with it when it has
   * none (the voice catalog's listener keeps no journal of its own).
   */
  flagAnswer(request: Request, status: number, flag: Flag): JournalEntry {
    let entry = this.byRequest.get(request);
    if (!entry) {
      const url = new URL(request.url);
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      entry = this.record({ method: request.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers }, { status });
      this.byRequest.set(request, entry);
    }
    entry.flags.push(flag);
    return entry;
  }

  clear(): void {
    this.entries = [];
    this.idempotencyKeys.clear();
    this.jobKeys.clear();
    this.pollAdvice.clear();
    this.blockedUntil.clear();
    this.lastPost.clear();
  }

  /**
   * Records one exchange and returns its entry (with its flags). `errorMessage` is the message of the
   * answer's error (an error body, or a failed job's), when it had one.
   */
  record(
    request: { method: string; path: string; query: Record<string, string>; headers: Record<string, string>; bodyText?: string },
    response: JournalEntry['response'],
    errorMessage?: string,
  ): JournalEntry {
    const now = this.clock.now();
    const headers = { ...request.headers };
    const auth = headers.authorization;
    const parsed = auth ? API_KEY_PATTERN.exec(auth.replace(/^Bearer\s+/i, '').trim()) : null;
    const key = parsed ? `tts_${parsed[1]}` : undefined;
    if (auth !== undefined) headers.authorization = key ? `Bearer ${key}` : '(not a well-formed key; not shown)';
    const id = this.nextId++;
    const flags = key ? [...this.flags(key, request, response, now), ...this.idempotencyFlags(key, id, request, response, errorMessage)] : [];
    const entry: JournalEntry = {
      id,
      at: new Date(now).toISOString(),
      clock: this.clockId(),
      method: redact(request.method),
      path: redact(request.path),
      query: redactRecord(request.query),
      headers: redactRecord(headers),
      ...(key ? { key } : {}),
      ...(request.bodyText === undefined ? {} : { body: journalBody(request.bodyText) }),
      response,
      flags,
    };
    this.entries.push(entry);
    if (this.entries.length > JOURNAL_SIZE) this.entries.splice(0, this.entries.length - JOURNAL_SIZE);
    return entry;
  }

  private flags(
    key: string,
    request: { method: string; path: string; query: Record<string, string>; headers: Record<string, string>; bodyText?: string },
    response: JournalEntry['response'],
    now: number,
  ): Flag[] {
    if (request.path !== API_PATH) return [];
    const flags: Flag[] = [];
    const bucket = `${key} ${request.method === 'POST' ? 'post' : 'get'}`;
    const blocked = this.blockedUntil.get(bucket);
    if (blocked !== undefined && now < blocked) {
      flags.push({
        code: 'RETRIED_BEFORE_RETRY_AFTER',
        message: `Sent ${((blocked - now) / 1000).toFixed(1)} s before the Retry-After of the last 429 on this key's ${request.method} bucket elapsed; wait Retry-After seconds before retrying.`,
      });
    }
    if (response.status === 429 && response.retry_after_header !== undefined) this.blockedUntil.set(bucket, now + response.retry_after_header * 1000);

    if (request.method === 'GET' && request.query.id) {
      const advice = this.pollAdvice.get(`${key} ${request.query.id.toLowerCase()}`);
      if (advice && now < advice.at + advice.seconds * 1000) {
        flags.push({
          code: 'POLLED_TOO_SOON',
          message: `Polled ${((now - advice.at) / 1000).toFixed(1)} s after being told retry_after_seconds: ${advice.seconds}; wait that long between polls.`,
        });
      }
    }
    if (response.job_id && response.retry_after_seconds !== undefined) {
      this.pollAdvice.set(`${key} ${response.job_id}`, { at: now, seconds: response.retry_after_seconds });
    }

    if (request.method === 'POST' && request.bodyText !== undefined) {
      const hasKey = Object.keys(request.headers).includes('idempotency-key');
      const last = this.lastPost.get(key);
      if (!hasKey && last && last.body === request.bodyText && (last.failed || now - last.at < RETRY_WINDOW_SECONDS * 1000)) {
        flags.push({
          code: 'RETRY_WITHOUT_IDEMPOTENCY_KEY',
          message: `The same POST was sent ${((now - last.at) / 1000).toFixed(1)} s earlier${last.failed ? ' and failed' : ''}; a retry without an Idempotency-Key can create (and charge) a second job. Send one Idempotency-Key per logical submission.`,
        });
      }
      if (!hasKey) this.lastPost.set(key, { body: request.bodyText, at: now, failed: response.status >= 400 });
      else this.lastPost.delete(key);
    }
    return flags;
  }

  /**
   * Mistakes with Idempotency-Keys: reusing one after an answer asked for a new one (docs/api-rules.md#idempotency
   * rule 5: the service replays the failed job instead of trying again), and reusing one for a different body
   * (the service replays the key's first job: the key alone decides).
   */
  private idempotencyFlags(
    key: string,
    id: number,
    request: { method: string; path: string; query: Record<string, string>; headers: Record<string, string>; bodyText?: string },
    response: JournalEntry['response'],
    errorMessage: string | undefined,
  ): Flag[] {
    if (request.path !== API_PATH) return [];
    const asksNewKey = errorMessage !== undefined && asksForNewIdempotencyKey(errorMessage);
    if (request.method === 'GET') {
      // A poll that reports the job failed, asking for a new key: the key that made the job is spent.
      const idem = response.job_id ? this.jobKeys.get(`${key} ${response.job_id}`) : undefined;
      const bound = idem === undefined ? undefined : this.idempotencyKeys.get(`${key} ${idem}`);
      if (bound && asksNewKey) bound.newKeyAskedBy ??= id;
      return [];
    }
    const idem = request.method === 'POST' ? request.headers['idempotency-key'] : undefined;
    if (idem === undefined || request.bodyText === undefined) return [];
    const flags: Flag[] = [];
    const bound = this.idempotencyKeys.get(`${key} ${idem}`);
    const shown = JSON.stringify(idem.length > 80 ? `${idem.slice(0, 80)}…` : idem);
    if (bound?.newKeyAskedBy !== undefined) {
      flags.push({
        code: 'IDEMPOTENCY_KEY_REUSED_AFTER_NEW_KEY_ASKED',
        message:
          `Idempotency-Key ${shown} was sent again after the answer to request #${bound.newKeyAskedBy} asked for a ${NEW_IDEMPOTENCY_KEY_PHRASE} ` +
          `(job ${bound.jobId} failed): the service answers with that failed job instead of trying again. Retry with a fresh key.`,
      });
    }
    if (bound && canonicalBody(request.bodyText) !== bound.body) {
      flags.push({
        code: 'IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY',
        message:
          `Idempotency-Key ${shown} was first sent with a different body (job ${bound.jobId}); the service answers with that job, not this request's text. ` +
          'Send one key per logical submission: a different text needs a new key.',
      });
    }
    // A key is bound by the answer that names its job (docs/api-rules.md#idempotency: a refused request binds nothing).
    if (!bound && response.job_id) {
      this.idempotencyKeys.set(`${key} ${idem}`, {
        body: canonicalBody(request.bodyText),
        jobId: response.job_id,
        ...(asksNewKey ? { newKeyAskedBy: id } : {}),
      });
      this.jobKeys.set(`${key} ${response.job_id}`, idem);
    } else if (bound && asksNewKey) bound.newKeyAskedBy ??= id;
    return flags;
  }
}

/** A JSON body written with its object keys sorted, so that the same body sent twice compares equal; any other text as it is. */
function canonicalBody(text: string): string {
  if (nestingDepth(text) > JOURNAL_JSON_DEPTH) return text;
  try {
    return JSON.stringify(JSON.parse(text), (_name, value: unknown) =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : value,
    );
  } catch {
    return text;
  }
}

/**
 * A full API key (`tts_<public_id>_<secret>`) in a text, with its underscores as written or
 * percent-encoded (a query string, a Referer, a cookie), in any letter case: the journal shows it as
 * `tts_<public_id>`, as it shows the Authorization header.
 */
const FULL_KEY = /tts(?:_|%5f)([0-9a-f]{8})(?:_|%5f)[0-9a-f]+/gi;

const redact = (text: string) => text.replace(FULL_KEY, 'tts_$1');
const redactRecord = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).map(([name, value]) => [redact(name), redact(value)]));

/**
 * The body as the journal shows it: JSON parsed, a long `text` cut (`text_length` is the length sent),
 * full keys cut to their public part. Keys are cut in the text before it is parsed (a walk of the parsed
 * value would recurse as deep as the JSON nests); one written with JSON escapes (`tts\u005f…`) shows
 * once parsed, and is cut in the parsed value written out again.
 */
function journalBody(text: string): unknown {
  const asRaw = () => {
    const raw = redact(text);
    return raw.length > JOURNAL_TEXT_CHARS ? { raw: raw.slice(0, JOURNAL_TEXT_CHARS), raw_truncated: true, raw_length: text.length } : { raw };
  };
  // Nested deeper than JSON.stringify can write out: shown as text, as a body that is not JSON.
  if (nestingDepth(text) > JOURNAL_JSON_DEPTH) return asRaw();
  let sent: unknown;
  try {
    sent = JSON.parse(text);
  } catch {
    return asRaw();
  }
  const redacted = redact(text);
  let body: unknown = redacted === text ? sent : JSON.parse(redacted);
  const written = JSON.stringify(body);
  const cut = redact(written);
  if (cut !== written) body = JSON.parse(cut);
  if (body && typeof body === 'object' && typeof (body as { text?: unknown }).text === 'string') {
    const t = (body as { text: string }).text;
    const length = (sent as { text?: unknown }).text;
    if (t.length > JOURNAL_TEXT_CHARS)
      return { ...body, text: t.slice(0, JOURNAL_TEXT_CHARS), text_truncated: true, text_length: typeof length === 'string' ? length.length : t.length };
  }
  return body;
}

/** How deep the arrays and objects of a JSON text nest (brackets inside strings do not count). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

const isSandboxPath = (path: string) => path === '/sandbox' || path.startsWith('/sandbox/');

/**
 * Records a request the HTTP parser refused before the app saw it (a malformed request line or
 * headers; answered 400 INVALID_REQUEST by the listener), with the method, path and query of its
 * request line when that could be read (empty otherwise).
 */
export function journalClientError(journal: Journal, requestLine: string | undefined): void {
  const line = /^([A-Za-z]{1,16}) (\S{1,8192}) HTTP\/\d\.\d$/.exec(requestLine ?? '');
  const target = line?.[2] ?? '';
  const queryAt = target.indexOf('?');
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  if (isSandboxPath(path)) return;
  const query = queryAt === -1 ? {} : Object.fromEntries(new URLSearchParams(target.slice(queryAt + 1)));
  journal.record({ method: line?.[1]?.toUpperCase() ?? '', path, query, headers: {} }, { status: 400, error_code: 'INVALID_REQUEST' });
}

/** Records every API exchange (not /sandbox ones) once it is answered. */
export function journalMiddleware(journal: Journal): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (isSandboxPath(c.req.path)) return;
    const res = c.res;
    const response: JournalEntry['response'] = { status: res.status };
    let errorMessage: string | undefined;
    if ((res.headers.get('content-type') ?? '').includes('application/json')) {
      const body = (await res
        .clone()
        .json()
        .catch(() => undefined)) as
        | { job_id?: string; retry_after_seconds?: number; status?: string; error?: { code?: string; message?: unknown; details?: { job_id?: string } } }
        | undefined;
      if (body?.error?.code) response.error_code = body.error.code;
      if (typeof body?.error?.message === 'string') errorMessage = body.error.message;
      const jobId = body?.job_id ?? body?.error?.details?.job_id;
      if (jobId) response.job_id = jobId;
      if (body?.status === 'processing' && typeof body.retry_after_seconds === 'number') response.retry_after_seconds = body.retry_after_seconds;
    }
    const retryAfter = res.headers.get('retry-after');
    if (retryAfter !== null && /^\d+$/.test(retryAfter)) response.retry_after_header = Number(retryAfter);
    if (res.headers.get('idempotent-replayed') === 'true') response.replayed = true;
    const cached = (c.req.bodyCache as { text?: Promise<string> }).text;
    const entry = journal.record(
      {
        method: c.req.method,
        path: c.req.path,
        query: c.req.query(),
        headers: c.req.header(),
        bodyText: cached ? await cached.catch(() => undefined) : undefined,
      },
      response,
      errorMessage,
    );
    journal.bind(c.req.raw, entry);
  };
}
