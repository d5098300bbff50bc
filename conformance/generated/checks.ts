import { ERROR_TABLE, type ErrorCode } from '../../src/contract/errors.js';
import { type Exchange, jsonBody } from '../exchange.js';
import type { AnswerViolation, OpenApiDocument } from '../openapi-document.js';
import type { Expectation } from './cases.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are JSON of any shape, walked field by field, and every check tests the value it reads
type Json = any;

/** The checks of the generated group, named as Schemathesis names them, so its users recognise them. */
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
  'positive_data_acceptance',
  'ignored_auth',
  'use_after_free',
  /** The group's own: a replay with the same Idempotency-Key answers the same job, marked Idempotent-Replayed. */
  'idempotent_replay',
] as const;
type CheckName = (typeof CHECKS)[number];

export interface Violation {
  check: CheckName;
  message: string;
}

/**
 * The checks every answer gets, whatever was asked: no 5xx, a status the operation documents, a
 * documented media type, the documented required headers (and `meta` in every JSON body), and a body
 * that matches the schema of its status. `path` is relative to the deployment's base URL.
 */
export function checkAnswer(doc: OpenApiDocument, exchange: Exchange, path: string): Violation[] {
  const response = exchange.response;
  if (!response) return [];
  const out: Violation[] = [];
  if (response.status >= 500)
    out.push({ check: 'not_a_server_error', message: `HTTP ${response.status}${errorCode(exchange) ? ` ${errorCode(exchange)}` : ''}: a server error` });
  const { operation } = doc.match(exchange.request.method, path);
  if (!operation) return out;
  // Every JSON body of a declared media type carries meta, whatever its schema says.
  const responses = operation.definition.responses ?? {};
  const mediaType = (response.contentType.split(';')[0] ?? '').trim().toLowerCase();
  const media: Json = (responses[String(response.status)] ?? responses.default)?.content?.[mediaType];
  if (media && mediaType.endsWith('json') && response.json !== undefined) {
    const body = jsonBody(exchange);
    if (!body?.meta || typeof body.meta !== 'object')
      out.push({
        check: 'response_headers_conformance',
        message: `${operation.operationId} ${response.status}: the body carries no meta (every answer carries meta.request_id and meta.api_version)`,
      });
  }
  for (const v of doc.answerViolations(operation, response)) out.push({ check: CHECK_OF[v.part], message: v.message });
  return out;
}

/** The check each part of an answer the document finds at fault falls under. */
const CHECK_OF: Record<AnswerViolation['part'], CheckName> = {
  status: 'status_code_conformance',
  content_type: 'content_type_conformance',
  body: 'response_schema_conformance',
  header: 'response_headers_conformance',
};

const errorCode = (exchange: Exchange): string | undefined => {
  const code = jsonBody(exchange)?.error?.code;
  return typeof code === 'string' ? code : undefined;
};

/** The status the error table gives a code. */
const tableStatus = (code: string): number | undefined => ERROR_TABLE[code as ErrorCode]?.status;

/**
 * What the case itself promised: a valid request is not refused as invalid, an invalid one is refused
 * with the error table's status, and a request without a good key is refused 401 whatever else it
 * carries. `why` says what is wrong with an invalid request.
 */
export function checkExpectation(expect: Expectation, exchange: Exchange, why?: string): Violation[] {
  const response = exchange.response;
  if (!response) return [];
  const status = response.status;
  const code = errorCode(exchange);
  switch (expect) {
    case 'unauthorized':
      if (status !== 401 || code !== 'INVALID_KEY') {
        return [{ check: 'ignored_auth', message: `${why ?? 'no valid key'}, yet the answer is HTTP ${status}${code ? ` ${code}` : ''}, not 401 INVALID_KEY` }];
      }
      return [];
    case 'reject': {
      // Refused as the error table says: 400 INVALID_REQUEST (or TEXT_TOO_LONG). A 429 is a refusal too
      // (the API fixes no order of checks), and no quota was taken.
      if (status === 429) return [];
      if (status < 400 || status >= 500)
        return [
          {
            check: 'negative_data_rejection',
            message: `${why ?? 'an invalid request'}, yet the answer is HTTP ${status}${code ? ` ${code}` : ''}, not a refusal (400 INVALID_REQUEST)`,
          },
        ];
      if (code !== 'INVALID_REQUEST' && code !== 'TEXT_TOO_LONG')
        return [
          {
            check: 'negative_data_rejection',
            message: `${why ?? 'an invalid request'}: refused with ${code ?? 'no error code'} (HTTP ${status}), not INVALID_REQUEST`,
          },
        ];
      if (status !== tableStatus(code))
        return [
          {
            check: 'negative_data_rejection',
            message: `${why ?? 'an invalid request'}: ${code} answered HTTP ${status}; the error table gives ${code} HTTP ${tableStatus(code)}`,
          },
        ];
      return [];
    }
    case 'accept':
      if (code === 'INVALID_REQUEST' || code === 'TEXT_TOO_LONG' || status === 400 || status === 422) {
        const message: unknown = jsonBody(exchange)?.error?.message;
        return [
          {
            check: 'positive_data_acceptance',
            message: `a request the document allows was refused: HTTP ${status}${code ? ` ${code}` : ''}${typeof message === 'string' ? ` (${message})` : ''}`,
          },
        ];
      }
      return [];
  }
}

/** A resource that was deleted or expired must stay gone: 404 NOT_FOUND, never its content again. */
export function checkGone(exchange: Exchange, what: string): Violation[] {
  const response = exchange.response;
  if (!response) return [];
  if (response.status !== 404 || errorCode(exchange) !== 'NOT_FOUND') {
    return [
      {
        check: 'use_after_free',
        message: `${what} answered HTTP ${response.status}${errorCode(exchange) ? ` ${errorCode(exchange)}` : ''}, not 404 NOT_FOUND`,
      },
    ];
  }
  return [];
}

/** One line per violation, grouped by check in the order of CHECKS. */
export function describeViolations(violations: Violation[]): string {
  return [...violations]
    .sort((a, b) => CHECKS.indexOf(a.check) - CHECKS.indexOf(b.check))
    .map((v) => `${v.check}: ${v.message}`)
    .join('\n');
}
