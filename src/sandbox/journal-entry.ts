/** The journal's records: a request as recorded, an entry with its answer and flags, a flag with its request. */

/** A mistake of the client's that the journal flags on a request, with what to do instead. */
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
