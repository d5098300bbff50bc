/** One HTTP request and what came back, as recorded for assertions and for the report. */
export interface Exchange {
  seq: number;
  /** The rule (or shared scenario) that sent it. */
  owner: string;
  label?: string;
  startedAt: string;
  ms: number;
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body?: string;
  };
  response?: {
    status: number;
    /** Lower-case names; repeated headers joined with ", ". */
    headers: Record<string, string>;
    contentType: string;
    bytes: Buffer;
    text: string;
    json?: unknown;
    /** Sent with `digest`: the whole body's SHA-256 (hex) and size; `bytes` then holds its first 64 KiB only. */
    digest?: { sha256: string; size: number };
  };
  /** Milliseconds from the start to the first byte of the answer's body (a streamed body goes on after it). */
  firstBodyMs?: number;
  /** The request failed (network, timeout): the suite could not observe an answer. */
  error?: string;
  /** The request never reached the server (connection refused, unknown host). */
  notSent?: boolean;
  /** The suite dropped the connection on purpose after sending (a simulated transport failure). */
  dropped?: boolean;
  /** Dropped on purpose once the answer's status line arrived (dropOnAnswer): the status it had. */
  droppedAfterStatus?: number;
}

/** A JSON object as read from a response: rules check its fields one by one. */
// biome-ignore lint/suspicious/noExplicitAny: a response's JSON is walked field by field, and every rule tests the value it reads
export type JsonObject = Record<string, any>;

export function jsonBody(exchange: Exchange): JsonObject | undefined {
  const json = exchange.response?.json;
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as JsonObject) : undefined;
}

export function header(exchange: Exchange, name: string): string | undefined {
  return exchange.response?.headers[name.toLowerCase()];
}

export function describe(exchange: Exchange): string {
  const status = exchange.response
    ? `${exchange.response.status}`
    : exchange.dropped
      ? exchange.droppedAfterStatus !== undefined
        ? `dropped once HTTP ${exchange.droppedAfterStatus} began`
        : 'dropped'
      : `error: ${exchange.error}`;
  return `#${exchange.seq} ${exchange.request.method} ${exchange.request.url} → ${status}`;
}
