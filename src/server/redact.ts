/**
 * Credentials out of everything a person reads: URL-valued settings (REDIS_URL, S3_ENDPOINT,
 * AUDIO_STORE, UPSTREAM_*_URL…) are shown through `redactUrl`, and any text that may quote one (a
 * library's error message, a log line) goes through `redactText` before it is printed. What was
 * secret shows as `***`.
 */

const MASK = '***';
/** What `redactUrl` shows for a value that is not a URL. */
const NOT_A_URL = '(not a URL)';

/**
 * Names of query (and fragment) parameters whose value is a secret: X-Amz-Signature,
 * X-Amz-Credential, X-Amz-Security-Token, token, access_token, key, api_key, password, secret, sig,
 * auth… Matching a little too much costs a masked value; matching too little leaks one.
 */
const SECRET_PARAM = /sig|token|key|secret|pass|pwd|credential|auth|session/i;

function isSecretParam(name: string): boolean {
  return SECRET_PARAM.test(name);
}

/**
 * `scheme://userinfo@` anywhere in a text. The user info runs to the last `@` before the host (a raw
 * `@` inside a password must not leave the rest of it shown).
 */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'<>`]*)@/gi;
/** `?name=value`, `&name=value`, `;name=value`, `#name=value` anywhere in a text. */
const PARAM = /([?&;#])([^=&;#\s"'<>`]+)=([^&;#\s"'<>`]*)/g;

/** `user:password` → `user:***`; a user name alone is taken for a token (`https://TOKEN@host`) → `***`. */
function maskUserInfo(info: string): string {
  const colon = info.indexOf(':');
  return colon === -1 ? MASK : `${info.slice(0, colon)}:${MASK}`;
}

/** node-redis's `unix://[user[:password]@]/path/to/socket[?db=N]`, which WHATWG URL cannot parse with user info. */
const UNIX_SOCKET_URL = /^unix:\/\/(?:[^\s/@]*@)?\/[^\s]*$/;

/**
 * A URL as it may be shown: the password in its user info (or a user name alone, the usual form of a
 * token) and the values of secret-looking query parameters replaced by `***`. A value that is not a
 * URL is not shown at all: "(not a URL)" (it may still hold a password, just not where one is looked for).
 */
export function redactUrl(value: string): string {
  if (UNIX_SOCKET_URL.test(value)) return redactText(value);
  // Without `scheme://`, `user:password@host` would parse as a URL of scheme `user:`, all path.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || !URL.canParse(value)) return NOT_A_URL;
  const url = new URL(value);
  if (url.password) url.password = MASK;
  else if (url.username) url.username = MASK;
  for (const name of new Set(url.searchParams.keys())) {
    if (isSecretParam(name)) url.searchParams.set(name, MASK);
  }
  if (url.hash && redactText(url.hash) !== url.hash) url.hash = MASK;
  return url.href;
}

/**
 * Shorter "secrets" are not replaced in a text: a one- or two-letter password would turn a message
 * into noise. The URL patterns still mask them where they stand in a URL.
 */
const MIN_SECRET_LENGTH = 4;

/**
 * Any text with the credentials of the URLs in it masked (user info and secret query parameters, as
 * `redactUrl` does), and every occurrence of the given secrets (see `secretsIn`) replaced by `***`:
 * for error messages of libraries that quote a URL or a part of it.
 */
export function redactText(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  // Longest first, so a secret that contains another is not left half shown.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join(MASK);
  }
  out = out.replace(USERINFO, (_whole, scheme: string, info: string) => `${scheme}${maskUserInfo(info)}@`);
  out = out.replace(PARAM, (whole, separator: string, name: string) => (isSecretParam(name) ? `${separator}${name}=${MASK}` : whole));
  return out;
}

/** Variables whose whole value is a secret. */
const SECRET_VARIABLES = ['URL_SIGNING_SECRET', 'UPSTREAM_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'];

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The secrets an environment holds, for `redactText`: the passwords (or lone user names) and secret
 * query parameters of every URL in any variable, as written and percent-decoded (a library may quote
 * either), and the values of the variables that are secrets themselves.
 */
export function secretsIn(env: NodeJS.ProcessEnv): Set<string> {
  const found = new Set<string>();
  const add = (secret: string) => {
    if (secret.length >= MIN_SECRET_LENGTH && secret !== MASK) {
      found.add(secret);
      found.add(decoded(secret));
    }
  };
  for (const name of SECRET_VARIABLES) {
    const value = env[name];
    if (value) add(value);
  }
  for (const value of Object.values(env)) {
    if (!value?.includes('://')) continue;
    for (const [, , info = ''] of value.matchAll(USERINFO)) {
      const colon = info.indexOf(':');
      add(colon === -1 ? info : info.slice(colon + 1));
    }
    for (const [, , name = '', secret = ''] of value.matchAll(PARAM)) {
      if (isSecretParam(name)) add(secret);
    }
  }
  return found;
}

/** An error as one line for a person: its message (or the value), redacted against the environment `env` (the entry points pass the process's). */
export function describeError(error: unknown, env: NodeJS.ProcessEnv): string {
  return redactText(error instanceof Error ? error.message : String(error), secretsIn(env));
}
