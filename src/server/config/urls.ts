import { z } from 'zod';

/**
 * What is wrong with an http(s) URL setting, if anything; never the value itself (it may hold a
 * password). `base`: paths are appended to it, so a query or fragment cannot work.
 */
function httpUrlIssue(value: string, options: { base: boolean; credentials: string }): string | undefined {
  if (!URL.canParse(value)) return 'expected an http(s) URL such as https://tts.example.com';
  const url = new URL(value);
  // Credentials in a URL would end up in logs and error messages (and fetch refuses such URLs).
  if (url.username !== '' || url.password !== '') return `must not contain a user name or password (${options.credentials})`;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'expected an http(s) URL such as https://tts.example.com';
  if (options.base && (url.search !== '' || url.hash !== '')) return 'must not have a query (?…) or fragment (#…): paths are appended to it';
  return undefined;
}

export const httpUrl = (options: { base: boolean; credentials: string }) =>
  z.string().superRefine((value, ctx) => {
    const issue = httpUrlIssue(value, options);
    if (issue) ctx.addIssue({ code: 'custom', message: issue });
  });

/** A base URL of the API or the voice catalog, given to clients. */
export const publicUrl = httpUrl({ base: true, credentials: 'clients are given this URL' })
  .transform((u) => u.replace(/\/+$/, ''))
  .optional();
/** A speech server's base URL; its key has a variable of its own. */
export const upstreamUrl = httpUrl({ base: true, credentials: 'give an upstream key as UPSTREAM_API_KEY' })
  .transform((u) => u.replace(/\/+$/, ''))
  .optional();

// Written without `scheme://user:password@`, which redaction would mask in the message.
const REDIS_URL_FORMS =
  'redis://host[:port][/db], rediss://host[:port][/db] (TLS) or unix:///path/to/socket[?db=N], with user:password@ after the // if Redis wants them';

/** Whether node-redis's decodeURIComponent takes `part` (a user name, password or socket path). */
function decodes(part: string | undefined): boolean {
  try {
    decodeURIComponent(part ?? '');
    return true;
  } catch {
    return false;
  }
}

const PERCENT_RULE =
  'has a % that does not start a percent-encoded byte (% and two hexadecimal digits); write a % in a password as %25, and @ : / # ? as %40 %3A %2F %23 %3F';

/** What node-redis would refuse in a REDIS_URL (or cannot connect with), checked at start; never the value. */
export function redisUrlIssue(value: string): string | undefined {
  const expected = `expected ${REDIS_URL_FORMS}`;
  if (value.startsWith('unix:')) {
    // node-redis's own grammar for a socket path (WHATWG URL cannot parse user info without a host).
    const m = /^unix:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?(\/[^?#]*)(?:\?([^#]*))?(?:#.*)?$/.exec(value);
    if (!m || m[3] === '/') return `${expected}; this unix: URL has no socket path`;
    if (!decodes(m[1]) || !decodes(m[2])) return `the user name or password ${PERCENT_RULE}`;
    if (!decodes(m[3])) return `the socket path ${PERCENT_RULE}`;
    const db = m[4] === undefined ? null : new URLSearchParams(m[4]).get('db');
    if (db !== null && !/^\d+$/.test(db)) return `the db query parameter must be a database number; ${expected}`;
    return undefined;
  }
  if (!URL.canParse(value)) return `${expected}; the value is not a URL`;
  const url = new URL(value);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return `${expected}; the scheme is not redis: or rediss:`;
  if (url.hostname === '') return `${expected}; the URL has no host`;
  // node-redis decodes them with decodeURIComponent, which throws "URI malformed" on a stray %.
  if (!decodes(url.username) || !decodes(url.password)) return `the user name or password ${PERCENT_RULE}`;
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d+$/.test(url.pathname)) return `the path must be a database number (/0, /1…); ${expected}`;
  return undefined;
}

/** Where the SDK's credentials come from: never a URL (see the README). */
export const S3_CREDENTIALS = 'S3 credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or a role';

/**
 * What is wrong with HOST, the address the listeners bind: an IP address or a host name. It is also
 * the default origin's host (http://HOST:PORT), so it must fit in a URL.
 */
export function hostIssue(value: string): string | undefined {
  const rule = 'must be an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or a host name (letters, digits, dots and hyphens)';
  if (value === '') return `${rule}; it is empty`;
  if (value.includes(':')) return URL.canParse(`http://[${value}]/`) ? undefined : `${rule}; it has a colon but is not an IPv6 address`;
  return /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(value) ? undefined : `${rule}; it has other characters`;
}
