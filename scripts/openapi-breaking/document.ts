// The vocabulary of the breaking-change gate: JSON documents, findings, approved exceptions, and
// helpers to walk a document (local `$ref`s, JSON pointers).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
export type OpenApiDocument = JsonObject;

export interface Finding {
  /** Optic rule name, or one of OWN_RULES. */
  rule: string;
  /** Human-readable location, e.g. `POST /v1/agent-tts request body: application/json property: text`. */
  where: string;
  /** JSON pointer (operation-relative, `$ref`s inlined), e.g. `/paths/~1v1~1agent-tts/post/requestBody/…`. */
  path: string;
  message: string;
  source: 'optic' | 'agent-tts';
}

export interface BreakingException {
  rule?: string;
  path?: string;
  reason: string;
  ref: string;
}

export const OWN_RULES = {
  constraintNarrowed: 'request constraint narrowed',
  bodyRequired: 'request body made required',
  requestMediaRemoved: 'request media type removed',
  responseMediaRemoved: 'response media type removed',
  responseHeaderRemoved: 'response header removed',
  securityTightened: 'security requirement tightened',
} as const;

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
export const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Follows local `$ref`s; sibling keywords (allowed in 3.1) win over the target's. */
export function resolveRef(document: OpenApiDocument, node: Json | undefined): JsonObject | undefined {
  let current = node;
  const siblings: JsonObject[] = [];
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string' && hops < 32; hops++) {
    const { $ref, ...rest } = current;
    siblings.unshift(rest);
    if (!$ref.startsWith('#/')) return undefined;
    current = $ref
      .slice(2)
      .split('/')
      .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<Json | undefined>((n, key) => (isObject(n) ? n[key] : Array.isArray(n) ? n[Number(key)] : undefined), document);
  }
  return isObject(current) ? (Object.assign({}, current, ...siblings) as JsonObject) : undefined;
}
