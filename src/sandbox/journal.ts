import { API_KEY_PATTERN } from '@agent-tts/contract/limits.js';
import type { Clock } from '@agent-tts/server/ports/index.js';
import { ClientMistakes, type Flag } from './client-mistakes.js';
import { journalBody, redact, redactRecord } from './journal-body.js';

export type { Flag } from './client-mistakes.js';
export { journalClientError, journalMiddleware } from './journal-middleware.js';

/** Entries kept; the oldest leave first. */
export const JOURNAL_SIZE = 1_000;

/** One flag with the request that earned it, as `flagged()` and GET /sandbox/requests/flags list them. */
export interface FlaggedRequest {
  id: number;
  at: string;
  method: string;
  path: string;
  code: Flag['code'];
  message: string;
}
/** A request as the journal records it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  bodyText?: string;
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
  /** What earlier requests tell about the mistakes of later ones. */
  private readonly mistakes = new ClientMistakes();
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
    this.mistakes.clear();
  }

  /**
   * Records one exchange and returns its entry (with its flags). `errorMessage` is the message of the
   * answer's error (an error body, or a failed job's), when it had one.
   */
  record(request: RecordedRequest, response: JournalEntry['response'], errorMessage?: string): JournalEntry {
    const now = this.clock.now();
    const headers = { ...request.headers };
    const auth = headers.authorization;
    const parsed = auth ? API_KEY_PATTERN.exec(auth.replace(/^Bearer\s+/i, '').trim()) : null;
    const key = parsed ? `tts_${parsed[1]}` : undefined;
    if (auth !== undefined) headers.authorization = key ? `Bearer ${key}` : '(not a well-formed key; not shown)';
    const id = this.nextId++;
    const flags = key ? this.mistakes.flagsOf(key, id, request, response, errorMessage, now) : [];
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
}
