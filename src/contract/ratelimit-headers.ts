/**
 * The rate-limit headers of draft-ietf-httpapi-ratelimit-headers-11, which this API sends on every
 * answer to a request whose key passed authentication:
 *
 *   RateLimit-Policy: "post";q=1;w=60     the policy of the bucket: quota q per window w seconds
 *   RateLimit: "post";r=0;t=60            what is left in it: r requests, for t more seconds
 *
 * Both fields are Structured Fields (RFC 9651) Lists whose members are Strings (the policy name) with
 * parameters. The policy names are "post" (job creation, docs/api-rules.md#limits: 1 a minute) and "get" (job status,
 * 30 a minute). `parseList` below is a small parser of the List grammar of RFC 9651 §4.2 (Items and
 * Inner Lists with parameters, every bare item type but Date and Display String), enough to read any
 * value of these fields strictly; a value that does not parse is refused as a whole, as §4.2 says.
 */
export const RATELIMIT_DRAFT = 'draft-ietf-httpapi-ratelimit-headers-11';

export type PolicyName = 'post' | 'get';

/** A bare item: Integer or Decimal (number), String, Token, Byte Sequence (bytes) or Boolean. */
type BareItem = number | string | boolean | { token: string } | { bytes: Uint8Array };
type Parameters = Map<string, BareItem>;
interface Item {
  value: BareItem;
  params: Parameters;
}
interface InnerList {
  items: Item[];
  params: Parameters;
}
export type ListMember = Item | InnerList;

export class StructuredFieldError extends Error {
  override name = 'StructuredFieldError';
}

/** Parses a Structured Field List (RFC 9651 §4.2.1); throws StructuredFieldError on any deviation. */
export function parseList(input: string): ListMember[] {
  const p = new Parser(input);
  p.skipSP();
  const members: ListMember[] = [];
  while (!p.done()) {
    members.push(p.peek() === '(' ? p.innerList() : p.item());
    p.skipOWS();
    if (p.done()) break;
    p.expect(',');
    p.skipOWS();
    if (p.done()) throw new StructuredFieldError('a List ends with a comma');
  }
  return members;
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {
    // RFC 9651 §4.2: fields are ASCII; leading and trailing spaces are removed first.
    if (/[^\t\x20-\x7e]/.test(s)) throw new StructuredFieldError('a structured field holds visible ASCII only');
    this.s = s.replace(/^ +| +$/g, '');
  }
  done(): boolean {
    return this.i >= this.s.length;
  }
  peek(): string {
    return this.s[this.i] ?? '';
  }
  expect(ch: string): void {
    if (this.s[this.i] !== ch) throw new StructuredFieldError(`expected "${ch}" at ${this.i}, got ${JSON.stringify(this.peek())}`);
    this.i++;
  }
  skipSP(): void {
    while (this.s[this.i] === ' ') this.i++;
  }
  skipOWS(): void {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
  }
  innerList(): InnerList {
    this.expect('(');
    const items: Item[] = [];
    for (;;) {
      this.skipSP();
      if (this.peek() === ')') {
        this.i++;
        return { items, params: this.params() };
      }
      items.push(this.item());
      if (this.peek() !== ' ' && this.peek() !== ')') throw new StructuredFieldError(`an Inner List member is followed by ${JSON.stringify(this.peek())}`);
    }
  }
  item(): Item {
    return { value: this.bare(), params: this.params() };
  }
  params(): Parameters {
    const params: Parameters = new Map();
    while (this.peek() === ';') {
      this.i++;
      this.skipSP();
      const key = this.key();
      let value: BareItem = true;
      if (this.peek() === '=') {
        this.i++;
        value = this.bare();
      }
      params.set(key, value);
    }
    return params;
  }
  key(): string {
    const m = /^[a-z*][a-z0-9_\-.*]*/.exec(this.s.slice(this.i));
    if (!m) throw new StructuredFieldError(`a parameter key must start with a lowercase letter or "*" at ${this.i}`);
    this.i += m[0].length;
    return m[0];
  }
  bare(): BareItem {
    const rest = this.s.slice(this.i);
    const ch = this.peek();
    if (ch === '-' || (ch >= '0' && ch <= '9')) {
      const m = /^-?(\d+)(?:\.(\d+))?/.exec(rest);
      if (!m) throw new StructuredFieldError(`a number expected at ${this.i}`);
      const [text, integer = '', fraction] = m;
      if (fraction === undefined) {
        if (integer.length > 15) throw new StructuredFieldError('an Integer has at most 15 digits');
      } else if (integer.length > 12 || fraction.length > 3) {
        throw new StructuredFieldError('a Decimal has at most 12 integer and 3 fraction digits');
      }
      this.i += text.length;
      return Number(text);
    }
    if (ch === '"') {
      let out = '';
      for (this.i++; ; this.i++) {
        const c = this.s[this.i];
        if (c === undefined) throw new StructuredFieldError('a String is not closed');
        if (c === '"') {
          this.i++;
          return out;
        }
        if (c === '\\') {
          const next = this.s[++this.i];
          if (next !== '"' && next !== '\\') throw new StructuredFieldError('a String escapes only " and \\');
          out += next;
        } else out += c;
      }
    }
    if (ch === ':') {
      const m = /^:([A-Za-z0-9+/=]*):/.exec(rest);
      if (!m) throw new StructuredFieldError(`a Byte Sequence is malformed at ${this.i}`);
      let binary: string;
      try {
        binary = atob(m[1] ?? '');
      } catch {
        throw new StructuredFieldError(`a Byte Sequence is not base64 at ${this.i}`);
      }
      this.i += m[0].length;
      return { bytes: Uint8Array.from(binary, (c) => c.charCodeAt(0)) };
    }
    if (ch === '?') {
      if (rest.startsWith('?1') || rest.startsWith('?0')) {
        this.i += 2;
        return rest[1] === '1';
      }
      throw new StructuredFieldError(`a Boolean is ?0 or ?1 at ${this.i}`);
    }
    const m = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/.exec(rest);
    if (!m) throw new StructuredFieldError(`no item at ${this.i} (${JSON.stringify(ch)})`);
    this.i += m[0].length;
    return { token: m[0] };
  }
}

/** `"post";q=1;w=60` */
export function formatRateLimitPolicy(name: PolicyName, quota: number, windowSeconds: number): string {
  return `"${name}";q=${quota};w=${windowSeconds}`;
}

/** `"post";r=0;t=60` */
export function formatRateLimit(name: PolicyName, remaining: number, resetSeconds: number): string {
  return `"${name}";r=${remaining};t=${resetSeconds}`;
}

export interface RateLimitPolicy {
  name: string;
  /** q: requests per window. */
  quota: number;
  /** w: the window, in seconds. */
  windowSeconds?: number;
}

export interface RateLimitState {
  name: string;
  /** r: requests left in the window. */
  remaining: number;
  /** t: seconds until the quota is restored. */
  resetSeconds?: number;
}

const nonNegativeInteger = (v: BareItem | undefined): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

function namedItems(field: string, value: string): Item[] {
  const members = parseList(value);
  if (members.length === 0) throw new StructuredFieldError(`${field} is empty`);
  return members.map((m) => {
    if ('items' in m) throw new StructuredFieldError(`${field}: a member is an Inner List, not a policy`);
    if (typeof m.value !== 'string') throw new StructuredFieldError(`${field}: a member is not a String (the policy name)`);
    return m;
  });
}

/** Reads RateLimit-Policy: every policy needs q (a non-negative Integer); w, when present, too. */
export function parseRateLimitPolicy(value: string): RateLimitPolicy[] {
  return namedItems('RateLimit-Policy', value).map(({ value: name, params }) => {
    const q = params.get('q');
    const w = params.get('w');
    if (!nonNegativeInteger(q)) throw new StructuredFieldError(`RateLimit-Policy "${String(name)}": q must be a non-negative Integer`);
    if (w !== undefined && (!nonNegativeInteger(w) || w === 0))
      throw new StructuredFieldError(`RateLimit-Policy "${String(name)}": w must be a positive Integer`);
    return { name: name as string, quota: q, windowSeconds: w };
  });
}

/** Reads RateLimit: every member needs r (a non-negative Integer); t, when present, too. */
export function parseRateLimit(value: string): RateLimitState[] {
  return namedItems('RateLimit', value).map(({ value: name, params }) => {
    const r = params.get('r');
    const t = params.get('t');
    if (!nonNegativeInteger(r)) throw new StructuredFieldError(`RateLimit "${String(name)}": r must be a non-negative Integer`);
    if (t !== undefined && !nonNegativeInteger(t)) throw new StructuredFieldError(`RateLimit "${String(name)}": t must be a non-negative Integer`);
    return { name: name as string, remaining: r, resetSeconds: t };
  });
}

/** The pair of headers as a client sees them: the named policy and what is left of it, or undefined. */
export function readRateLimitHeaders(get: (name: string) => string | null | undefined): { policy: RateLimitPolicy; state: RateLimitState } | undefined {
  const policyValue = get('ratelimit-policy');
  const stateValue = get('ratelimit');
  if (!policyValue || !stateValue) return undefined;
  try {
    const policies = parseRateLimitPolicy(policyValue);
    const state = parseRateLimit(stateValue)[0];
    if (!state) return undefined;
    const policy = policies.find((p) => p.name === state.name);
    return policy ? { policy, state } : undefined;
  } catch {
    return undefined;
  }
}
