// The gate's own rules, for what Optic does not check: narrowed request constraints, request bodies made
// required, removed media types and response headers, tightened security.
import { escapePointer, type Finding, isObject, type Json, type JsonObject, METHODS, type OpenApiDocument, OWN_RULES, resolveRef, same } from './document.js';

const UPPER_BOUNDS = ['maxLength', 'maxItems', 'maxProperties', 'maximum', 'exclusiveMaximum'];
const LOWER_BOUNDS = ['minLength', 'minItems', 'minProperties', 'minimum', 'exclusiveMinimum'];
/** Keywords whose any change (or addition) may refuse values the old schema accepted. */
const EXACT = ['pattern', 'format', 'multipleOf', 'const', 'contentEncoding', 'contentMediaType'];

const typesOf = (schema: JsonObject): string[] | undefined =>
  schema.type === undefined ? undefined : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];

/**
 * What a request schema `head` refuses that `base` accepted, keyword by keyword (a client built
 * against `base` may send those values). Recurses into properties and items present in both.
 */
function compareRequestSchema(
  ctx: { base: OpenApiDocument; head: OpenApiDocument; emit: (f: Omit<Finding, 'source'>) => void },
  baseNode: Json | undefined,
  headNode: Json | undefined,
  path: string,
  where: string,
  depth = 0,
): void {
  if (depth > 24) return; // recursive schemas: deep enough for any real contract
  const b = resolveRef(ctx.base, baseNode);
  const h = resolveRef(ctx.head, headNode);
  if (!b || !h) return;
  const narrowed = (what: string) => ctx.emit({ rule: OWN_RULES.constraintNarrowed, where, path, message: `${what}: values accepted before are now refused.` });

  for (const kw of UPPER_BOUNDS) {
    if (typeof h[kw] === 'number' && (typeof b[kw] !== 'number' || (h[kw] as number) < (b[kw] as number))) {
      narrowed(`${kw} ${b[kw] ?? '(none)'} → ${h[kw]}`);
    }
  }
  for (const kw of LOWER_BOUNDS) {
    if (typeof h[kw] === 'number' && (typeof b[kw] !== 'number' || (h[kw] as number) > (b[kw] as number))) {
      narrowed(`${kw} ${b[kw] ?? '(none)'} → ${h[kw]}`);
    }
  }
  for (const kw of EXACT) {
    if (h[kw] !== undefined && !same(h[kw], b[kw])) {
      narrowed(`${kw} ${b[kw] === undefined ? '(none)' : JSON.stringify(b[kw])} → ${JSON.stringify(h[kw])}`);
    }
  }
  if (Array.isArray(h.enum)) {
    const removed = Array.isArray(b.enum) ? b.enum.filter((v) => !(h.enum as Json[]).some((w) => same(v, w))) : undefined;
    if (removed === undefined) narrowed(`enum added: ${JSON.stringify(h.enum)}`);
    else if (removed.length) narrowed(`enum values removed: ${JSON.stringify(removed)}`);
  }
  const bt = typesOf(b);
  const ht = typesOf(h);
  if (ht) {
    const lost = (bt ?? ['(any)']).filter((t) => !ht.includes(t) && !(t === 'integer' && ht.includes('number')));
    if (lost.length) narrowed(`type ${JSON.stringify(bt ?? '(any)')} → ${JSON.stringify(h.type)}`);
  }
  const baseRequired = new Set((Array.isArray(b.required) ? b.required : []) as string[]);
  const added = ((Array.isArray(h.required) ? h.required : []) as string[]).filter((name) => !baseRequired.has(name));
  if (added.length) narrowed(`required properties added: ${added.join(', ')}`);
  for (const kw of ['additionalProperties', 'unevaluatedProperties']) {
    if (h[kw] === false && b[kw] !== false) narrowed(`${kw}: false`);
  }
  if (h.uniqueItems === true && b.uniqueItems !== true) narrowed('uniqueItems: true');

  if (isObject(b.properties) && isObject(h.properties)) {
    for (const name of Object.keys(b.properties)) {
      if (!Object.hasOwn(h.properties, name)) continue;
      compareRequestSchema(ctx, b.properties[name], h.properties[name], `${path}/properties/${escapePointer(name)}`, `${where} property: ${name}`, depth + 1);
    }
  }
  if (isObject(b.items) && isObject(h.items)) compareRequestSchema(ctx, b.items, h.items, `${path}/items`, `${where} items`, depth + 1);
  if (isObject(b.additionalProperties) && isObject(h.additionalProperties)) {
    compareRequestSchema(ctx, b.additionalProperties, h.additionalProperties, `${path}/additionalProperties`, `${where} additional properties`, depth + 1);
  }
}

/** Collects parameters by `in:name` (path-level first, then the operation's, which override them). */
function parameterIndex(document: OpenApiDocument) {
  const byKey = new Map<string, { parameter: JsonObject; pointer: string }>();
  const add = (list: Json | undefined, prefix: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((raw, i) => {
      const parameter = resolveRef(document, raw);
      if (parameter && typeof parameter.name === 'string') {
        // Header names are case-insensitive.
        const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
        byKey.set(`${parameter.in}:${name}`, { parameter, pointer: `${prefix}/parameters/${i}` });
      }
    });
  };
  return { add, byKey };
}

/** Security alternatives in effect for an operation: each a set of scheme names; [] means anonymous. */
function securityOf(document: OpenApiDocument, operation: JsonObject): string[][] {
  const requirements = (operation.security ?? document.security ?? []) as Json;
  if (!Array.isArray(requirements) || requirements.length === 0) return [[]];
  return requirements.filter(isObject).map((r) => Object.keys(r).sort());
}

type Emit = (f: Omit<Finding, 'source'>) => void;
interface Operation {
  base: OpenApiDocument;
  head: OpenApiDocument;
  emit: Emit;
  /** The path item and the operation in each document. */
  baseItem: JsonObject;
  headItem: JsonObject;
  bOp: JsonObject;
  hOp: JsonObject;
  route: string;
  /** JSON pointer of the operation, e.g. `/paths/~1v1~1agent-tts/post`. */
  op: string;
  /** e.g. `POST /v1/agent-tts`. */
  name: string;
}

/** Security: every way a client could authenticate before must still be accepted. */
function compareSecurity({ base, head, bOp, hOp, op, name, emit }: Operation): void {
  const baseSecurity = securityOf(base, bOp);
  const headSecurity = securityOf(head, hOp);
  for (const alternative of baseSecurity) {
    if (!headSecurity.some((h) => h.every((scheme) => alternative.includes(scheme)))) {
      emit({
        rule: OWN_RULES.securityTightened,
        where: name,
        path: `${op}/security`,
        message: `a client authenticating with ${alternative.length ? alternative.join(' + ') : 'no credentials'} is no longer accepted (now: ${headSecurity.map((a) => a.join(' + ') || 'none').join(' or ')}).`,
      });
    }
  }
}

/** Parameters present in both: their schemas must not narrow (new required ones are Optic's). */
function compareParameters(o: Operation): void {
  const { base, head, baseItem, headItem, bOp, hOp, route, op, name } = o;
  const baseParams = parameterIndex(base);
  baseParams.add(baseItem.parameters, `/paths/${escapePointer(route)}`);
  baseParams.add(bOp.parameters, op);
  const headParams = parameterIndex(head);
  headParams.add(headItem.parameters, `/paths/${escapePointer(route)}`);
  headParams.add(hOp.parameters, op);
  for (const [key, { parameter }] of baseParams.byKey) {
    const after = headParams.byKey.get(key);
    if (!after) continue;
    compareRequestSchema(o, parameter.schema, after.parameter.schema, `${after.pointer}/schema`, `${name} ${key.replace(':', ' parameter: ')}`);
  }
}

/** The request body: not made required, no media type removed, no schema narrowed. */
function compareRequestBody(o: Operation): void {
  const { base, head, bOp, hOp, op, name, emit } = o;
  const bBody = resolveRef(base, bOp.requestBody);
  const hBody = resolveRef(head, hOp.requestBody);
  if (hBody?.required === true && bBody?.required !== true) {
    emit({ rule: OWN_RULES.bodyRequired, where: `${name} request body`, path: `${op}/requestBody`, message: 'the request body is now required.' });
  }
  if (!bBody || !hBody) return;
  const bContent = (bBody.content ?? {}) as JsonObject;
  const hContent = (hBody.content ?? {}) as JsonObject;
  for (const [mediaType, media] of Object.entries(bContent)) {
    const where = `${name} request body: ${mediaType}`;
    const pointer = `${op}/requestBody/content/${escapePointer(mediaType)}`;
    if (!Object.hasOwn(hContent, mediaType)) {
      emit({ rule: OWN_RULES.requestMediaRemoved, where, path: pointer, message: `requests in ${mediaType} are no longer accepted.` });
      continue;
    }
    compareRequestSchema(o, (media as JsonObject).schema, (hContent[mediaType] as JsonObject).schema, `${pointer}/schema`, where);
  }
}

/** Responses present in both (a removed status is Optic's finding): no header or media type removed. */
function compareResponses({ base, head, bOp, hOp, op, name, emit }: Operation): void {
  const bResponses = (bOp.responses ?? {}) as JsonObject;
  const hResponses = (hOp.responses ?? {}) as JsonObject;
  for (const [status, rawResponse] of Object.entries(bResponses)) {
    const bResponse = resolveRef(base, rawResponse);
    const hResponse = resolveRef(head, hResponses[status]);
    if (!bResponse || !hResponse) continue;
    const pointer = `${op}/responses/${escapePointer(status)}`;
    const headHeaders = new Set(Object.keys((hResponse.headers ?? {}) as JsonObject).map((h) => h.toLowerCase()));
    for (const header of Object.keys((bResponse.headers ?? {}) as JsonObject)) {
      if (!headHeaders.has(header.toLowerCase())) {
        emit({
          rule: OWN_RULES.responseHeaderRemoved,
          where: `${name} response ${status} header: ${header}`,
          path: `${pointer}/headers/${escapePointer(header)}`,
          message: `response header ${header} is no longer documented.`,
        });
      }
    }
    const hContent = (hResponse.content ?? {}) as JsonObject;
    for (const mediaType of Object.keys((bResponse.content ?? {}) as JsonObject)) {
      if (!Object.hasOwn(hContent, mediaType)) {
        emit({
          rule: OWN_RULES.responseMediaRemoved,
          where: `${name} response ${status} body: ${mediaType}`,
          path: `${pointer}/content/${escapePointer(mediaType)}`,
          message: `the ${status} response is no longer available as ${mediaType}.`,
        });
      }
    }
  }
}

/** This project's rules over every operation present in both documents. */
export function ownFindings(base: OpenApiDocument, head: OpenApiDocument): Finding[] {
  const findings: Finding[] = [];
  const emit: Emit = (f) => findings.push({ ...f, source: 'agent-tts' });
  const basePaths = (base.paths ?? {}) as JsonObject;
  const headPaths = (head.paths ?? {}) as JsonObject;
  for (const [route, rawBaseItem] of Object.entries(basePaths)) {
    const baseItem = resolveRef(base, rawBaseItem);
    const headItem = resolveRef(head, headPaths[route]);
    if (!baseItem || !headItem) continue; // a removed path is Optic's finding
    for (const method of METHODS) {
      const bOp = baseItem[method];
      const hOp = headItem[method];
      if (!isObject(bOp) || !isObject(hOp)) continue;
      const operation: Operation = {
        base,
        head,
        emit,
        baseItem,
        headItem,
        bOp,
        hOp,
        route,
        op: `/paths/${escapePointer(route)}/${method}`,
        name: `${method.toUpperCase()} ${route}`,
      };
      compareSecurity(operation);
      compareParameters(operation);
      compareRequestBody(operation);
      compareResponses(operation);
    }
  }
  return findings;
}
