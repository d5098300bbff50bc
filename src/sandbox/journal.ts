import { API_KEY_PATTERN } from '@agent-tts/contract/limits.js';
import type { Clock } from '@agent-tts/server';
import { ClientMistakes } from './client-mistakes.js';
import type { Flag, FlaggedRequest, JournalEntry, RecordedRequest } from './journal-entry.js';
import { journalBody, redact, redactRecord } from './journal-body.js';
import type { JournalFilter } from './public.js';

/** Entries kept; the oldest leave first. */
export const JOURNAL_SIZE = 1_000;

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
