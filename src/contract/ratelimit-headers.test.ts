import { describe, expect, it } from 'vitest';
import {
  StructuredFieldError,
  formatRateLimit,
  formatRateLimitPolicy,
  parseList,
  parseRateLimit,
  parseRateLimitPolicy,
  readRateLimitHeaders,
} from './ratelimit-headers.js';

describe('Structured Fields List parser (RFC 9651 §4.2.1)', () => {
  it('reads items of every bare type with parameters, and inner lists', () => {
    const list = parseList('"post";q=1;w=60, tok;a=?0;b=-1.5, (1 "x");p=:aGk=:, ?1');
    expect(list).toHaveLength(4);
    expect(list[0]).toEqual({
      value: 'post',
      params: new Map<string, unknown>([
        ['q', 1],
        ['w', 60],
      ]),
    });
    expect(list[1]).toEqual({
      value: { token: 'tok' },
      params: new Map<string, unknown>([
        ['a', false],
        ['b', -1.5],
      ]),
    });
    const inner = list[2] as { items: { value: unknown }[]; params: Map<string, unknown> };
    expect(inner.items.map((i) => i.value)).toEqual([1, 'x']);
    expect([...(inner.params.get('p') as { bytes: Uint8Array }).bytes]).toEqual([104, 105]);
    expect(list[3]).toEqual({ value: true, params: new Map() });
  });

  it('reads escapes in strings, a bare parameter as true, and optional whitespace around commas', () => {
    expect(parseList('"a\\"b\\\\c";flag ,\t"d"')).toEqual([
      { value: 'a"b\\c', params: new Map([['flag', true]]) },
      { value: 'd', params: new Map() },
    ]);
    expect(parseList('')).toEqual([]);
  });

  it.each([
    ['a trailing comma', '"post";q=1,'],
    ['an unclosed string', '"post;q=1'],
    ['an uppercase parameter key', '"post";Q=1'],
    ['an integer of 16 digits', '"post";q=1234567890123456'],
    ['a decimal with 4 fraction digits', '"post";q=1.2345'],
    ['an unknown escape', '"a\\n"'],
    ['a space before a parameter', '"post" ;q=1'],
    ['the draft-07 syntax', 'limit=1, remaining=0, reset=60'.replace('limit=1', 'limit=1;')],
    ['a non-ASCII character', '"pöst";q=1'],
    ['two items without a comma', '"post" "get"'],
  ])('refuses %s', (_label, value) => {
    expect(() => parseList(value)).toThrow(StructuredFieldError);
  });
});

describe('RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers-11)', () => {
  it('formats what it parses', () => {
    expect(formatRateLimitPolicy('post', 1, 60)).toBe('"post";q=1;w=60');
    expect(formatRateLimit('get', 29, 41)).toBe('"get";r=29;t=41');
    expect(parseRateLimitPolicy(formatRateLimitPolicy('get', 30, 60))).toEqual([{ name: 'get', quota: 30, windowSeconds: 60 }]);
    expect(parseRateLimit(formatRateLimit('post', 0, 60))).toEqual([{ name: 'post', remaining: 0, resetSeconds: 60 }]);
  });

  it('reads several policies and finds the one the RateLimit field names', () => {
    const headers: Record<string, string> = { 'ratelimit-policy': '"burst";q=100;w=60, "post";q=1;w=60', ratelimit: '"post";r=0;t=12' };
    expect(readRateLimitHeaders((n) => headers[n])).toEqual({
      policy: { name: 'post', quota: 1, windowSeconds: 60 },
      state: { name: 'post', remaining: 0, resetSeconds: 12 },
    });
  });

  it.each([
    ['the draft-07 policy', '1;w=60', 'RateLimit-Policy'],
    ['a policy name that is a token, not a String', 'post;q=1;w=60', 'RateLimit-Policy'],
    ['a policy without q', '"post";w=60', 'RateLimit-Policy'],
    ['a negative quota', '"post";q=-1;w=60', 'RateLimit-Policy'],
    ['a zero window', '"post";q=1;w=0', 'RateLimit-Policy'],
    ['a decimal quota', '"post";q=1.5;w=60', 'RateLimit-Policy'],
    ['the draft-07 state', 'limit=1, remaining=0, reset=60', 'RateLimit'],
    ['a state without r', '"post";t=60', 'RateLimit'],
    ['a string reset', '"post";r=0;t="60"', 'RateLimit'],
    ['an empty field', '', 'RateLimit'],
  ])('refuses %s', (_label, value, field) => {
    const parse = field === 'RateLimit' ? parseRateLimit : parseRateLimitPolicy;
    expect(() => parse(value)).toThrow(StructuredFieldError);
  });

  it('gives no reading when the state names a policy the policy field does not carry, or a field is missing', () => {
    expect(readRateLimitHeaders((n) => ({ 'ratelimit-policy': '"get";q=30;w=60', ratelimit: '"post";r=0;t=1' })[n])).toBeUndefined();
    expect(readRateLimitHeaders((n) => ({ ratelimit: '"post";r=0;t=1' })[n as 'ratelimit'])).toBeUndefined();
  });
});
