import { ERROR_TABLE, type ErrorCode } from '../src/contract/errors.js';
import { API_VERSION } from '../src/contract/limits.js';
import { type Exchange, type JsonObject, describe, header, jsonBody } from './exchange.js';
import { RuleFailure, RuleSkip, SuiteError, type SkipKind } from './outcome.js';

/**
 * Assertion helpers, named by strictness as in complement: every `must…` throws RuleFailure, which
 * fails the rule. They return what they checked so rules read top to bottom.
 */
export function must(condition: unknown, message: string): asserts condition {
  if (!condition) throw new RuleFailure(message);
}

export function skip(kind: SkipKind, reason: string): never {
  throw new RuleSkip(kind, reason);
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The answer itself; a request with no answer is the suite's problem, not the server's rule. */
export function mustAnswer(exchange: Exchange): NonNullable<Exchange['response']> {
  if (!exchange.response) throw new SuiteError(`${describe(exchange)}: no answer (${exchange.error ?? 'dropped'})`);
  return exchange.response;
}

export function mustStatus(exchange: Exchange, ...statuses: number[]): number {
  const { status } = mustAnswer(exchange);
  must(statuses.includes(status), `${describe(exchange)}: expected HTTP ${statuses.join(' or ')}${codeSuffix(exchange)}`);
  return status;
}

export function mustJson(exchange: Exchange): JsonObject {
  const response = mustAnswer(exchange);
  const body = jsonBody(exchange);
  must(body, `${describe(exchange)}: expected a JSON object body, got ${response.contentType || 'no content type'}: ${response.text.slice(0, 120)}`);
  must(
    /^application\/(?:[\w.+-]+\+)?json\b/i.test(response.contentType),
    `${describe(exchange)}: Content-Type is "${response.contentType}", not application/json`,
  );
  return body;
}

export function mustHeader(exchange: Exchange, name: string): string {
  const value = header(exchange, name);
  must(value !== undefined && value !== '', `${describe(exchange)}: header ${name} is missing`);
  return value;
}

export function mustNoHeader(exchange: Exchange, name: string): void {
  const value = header(exchange, name);
  must(value === undefined, `${describe(exchange)}: header ${name} should be absent, got "${value}"`);
}

export function mustMeta(exchange: Exchange, body: JsonObject): void {
  must(body.meta && typeof body.meta === 'object', `${describe(exchange)}: meta is missing`);
  must(
    typeof body.meta.request_id === 'string' && UUID_PATTERN.test(body.meta.request_id),
    `${describe(exchange)}: meta.request_id is not a UUID: ${JSON.stringify(body.meta.request_id)}`,
  );
  must(body.meta.api_version === API_VERSION, `${describe(exchange)}: meta.api_version is ${JSON.stringify(body.meta.api_version)}, not "${API_VERSION}"`);
}

/**
 * The error body of docs/api-rules.md#errors for one code: the HTTP status the table gives that code, success false,
 * the code and a non-empty message. meta is left to the meta and versioning rules, so that one
 * missing field fails the rules about it rather than every rule that meets an error.
 */
export function mustError(exchange: Exchange, code: ErrorCode): JsonObject {
  const status = ERROR_TABLE[code].status;
  mustStatus(exchange, status);
  const body = mustJson(exchange);
  must(body.success === false, `${describe(exchange)}: success is ${JSON.stringify(body.success)}, not false`);
  must(body.error && typeof body.error === 'object', `${describe(exchange)}: error object is missing`);
  must(body.error.code === code, `${describe(exchange)}: error.code is ${JSON.stringify(body.error.code)}, not ${code}`);
  must(typeof body.error.message === 'string' && body.error.message.trim() !== '', `${describe(exchange)}: error.message is empty`);
  return body;
}

/** Retry-After in whole seconds, at least 1 (docs/api-rules.md#errors, §8). */
export function mustRetryAfter(exchange: Exchange): number {
  const value = mustHeader(exchange, 'retry-after');
  must(/^\d+$/.test(value.trim()), `${describe(exchange)}: Retry-After "${value}" is not whole seconds`);
  const seconds = Number(value.trim());
  must(seconds >= 1, `${describe(exchange)}: Retry-After is ${seconds}, less than 1 second`);
  return seconds;
}

function codeSuffix(exchange: Exchange): string {
  const code = jsonBody(exchange)?.error?.code;
  return typeof code === 'string' ? ` (got code ${code})` : '';
}

/** Absolute http(s) URL. */
export function isAbsoluteUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
