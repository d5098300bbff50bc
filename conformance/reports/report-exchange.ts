import type { Exchange } from '../exchange.js';

const REQUEST_BODY_LIMIT = 2_000;
const RESPONSE_BODY_LIMIT = 6_000;

/** An exchange as reports show it: bodies shortened, binary summarized. Keys are redacted later, on the text. */
export interface ReportExchange {
  seq: number;
  owner: string;
  label?: string;
  started_at: string;
  ms: number;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: { status: number; headers: Record<string, string>; body: string };
  error?: string;
  dropped?: boolean;
}

export function toReportExchange(e: Exchange): ReportExchange {
  return {
    seq: e.seq,
    owner: e.owner,
    label: e.label,
    started_at: e.startedAt,
    ms: e.ms,
    request: {
      method: e.request.method,
      url: e.request.url,
      headers: e.request.headers,
      body: e.request.body === undefined ? undefined : shorten(e.request.body, REQUEST_BODY_LIMIT),
    },
    response: e.response && {
      status: e.response.status,
      headers: e.response.headers,
      body:
        e.response.text || e.response.bytes.length === 0
          ? shorten(e.response.text, RESPONSE_BODY_LIMIT)
          : `<${e.response.bytes.length} bytes of ${e.response.contentType || 'binary'}, starting ${e.response.bytes.subarray(0, 8).toString('hex')}>`,
    },
    error: e.error,
    dropped: e.dropped,
  };
}

function shorten(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}
