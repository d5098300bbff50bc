/**
 * Helpers for the contract tests: read the committed OpenAPI document, resolve `$ref`s, compile its
 * schemas with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) and list every example in it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

// CommonJS packages seen from NodeNext ESM: the default import is module.exports, and the class and
// function are its `.default` (for TypeScript and at run time alike).
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** The committed, generated document: the contract as clients see it. */
export function loadDocument(): JsonObject {
  return JSON.parse(readFileSync(`${REPO_ROOT}openapi/openapi.json`, 'utf8')) as JsonObject;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a local JSON pointer (`#/a/b~1c`); undefined when it does not resolve. */
export function getPointer(document: Json, ref: string): Json | undefined {
  if (!ref.startsWith('#')) return undefined;
  const parts = ref
    .slice(1)
    .split('/')
    .slice(1)
    .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: Json | undefined = document;
  for (const part of parts) {
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isObject(node) && Object.hasOwn(node, part)) node = node[part];
    else return undefined;
  }
  return node;
}

/**
 * Follows `$ref` (OpenAPI 3.1 allows sibling keywords beside it; siblings win, as they annotate the
 * use site). Throws on a dangling reference so a test names it.
 */
export function deref(document: JsonObject, node: Json | undefined): JsonObject {
  let current = node;
  const siblings: JsonObject[] = [];
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (hops > 32) throw new Error(`$ref cycle at ${current.$ref}`);
    const { $ref, ...rest } = current;
    siblings.unshift(rest);
    const target = getPointer(document, $ref);
    if (target === undefined) throw new Error(`dangling $ref ${$ref}`);
    current = target;
  }
  if (!isObject(current)) throw new Error(`expected an object, got ${JSON.stringify(current)}`);
  return Object.assign({}, current, ...siblings) as JsonObject;
}

/** Every `$ref` in the document, with where it sits. */
export function collectRefs(node: Json, path = '#'): { at: string; ref: string }[] {
  const found: { at: string; ref: string }[] = [];
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      found.push(...collectRefs(item, `${path}/${i}`));
    });
  } else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push({ at: path, ref: value });
      else found.push(...collectRefs(value, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`));
    }
  }
  return found;
}

export interface Operation {
  path: string;
  method: string;
  operation: JsonObject;
}

export function operations(document: JsonObject): Operation[] {
  const result: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths as JsonObject)) {
    for (const method of HTTP_METHODS) {
      const operation = (item as JsonObject)[method];
      if (isObject(operation)) result.push({ path, method, operation });
    }
  }
  return result;
}

const COMPONENTS_ID = 'https://agent-tts.test/components.json';

/** OpenAPI component refs → refs into one Ajv schema resource holding all components as `$defs`. */
function rewriteRefs(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (!isObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')
        ? `${COMPONENTS_ID}#/$defs/${value.slice('#/components/schemas/'.length)}`
        : rewriteRefs(value),
    ]),
  );
}

/**
 * An Ajv 2020-12 instance that knows the document's component schemas. Strict mode stays on (so a
 * typo in a keyword fails); only the OpenAPI 3.1 base-vocabulary keywords are declared, as
 * annotations. `discriminator` is an annotation too: `oneOf` does the validating.
 */
export function createAjv(options: { strict: boolean }) {
  const ajv = new Ajv2020({ allErrors: true, strict: options.strict });
  addFormats(ajv);
  return ajv;
}

export function createValidator(document: JsonObject) {
  const ajv = createAjv({ strict: true });
  ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
  const schemas = ((document.components as JsonObject | undefined)?.schemas ?? {}) as JsonObject;
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(schemas) } as object);
  const cache = new Map<string, ValidateFunction>();
  const compile = (schema: Json): ValidateFunction => {
    const key = JSON.stringify(schema);
    const cached = cache.get(key);
    if (cached) return cached;
    const validate = ajv.compile(rewriteRefs(schema) as object);
    cache.set(key, validate);
    return validate;
  };
  return {
    ajv,
    compile,
    component: (name: string) => compile({ $ref: `#/components/schemas/${name}` }),
    /** Errors of `value` against `schema`, as readable lines; [] when valid. */
    errors(schema: Json, value: unknown): string[] {
      const validate = compile(schema);
      if (validate(value)) return [];
      return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message} ${JSON.stringify(e.params)}`);
    },
  };
}

export interface ExampleCase {
  /** Where the example sits, e.g. `POST /v1/agent-tts response 403 application/json example usage_limit_exceeded`. */
  where: string;
  schema: Json;
  value: unknown;
}

/** Examples of a parameter, header or media type object, plus those inside its schema. */
function examplesOf(document: JsonObject, holder: JsonObject, where: string, schema: Json | undefined): ExampleCase[] {
  const cases: ExampleCase[] = schema === undefined ? [] : schemaExamples(schema, `${where} schema`);
  // Cases keep the holder's schema as found, absent (undefined) included.
  if (Object.hasOwn(holder, 'example')) cases.push({ where: `${where} example`, schema: schema as Json, value: holder.example });
  if (isObject(holder.examples)) {
    for (const [name, raw] of Object.entries(holder.examples)) {
      const example = deref(document, raw);
      if (Object.hasOwn(example, 'value')) cases.push({ where: `${where} example ${name}`, schema: schema as Json, value: example.value });
    }
  }
  return cases;
}

/** Schema-level `example` keywords anywhere inside a schema tree (also nested property schemas). */
function schemaExamples(node: Json, where: string): ExampleCase[] {
  const cases: ExampleCase[] = [];
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      cases.push(...schemaExamples(item, `${where}/${i}`));
    });
  } else if (isObject(node)) {
    // A schema object (it has a type or a $ref); elsewhere, e.g. in `properties`, `example` would be
    // the name of a property.
    const isSchema = typeof node.type === 'string' || typeof node.$ref === 'string';
    if (isSchema && Object.hasOwn(node, 'example')) {
      cases.push({ where: `${where} (schema example)`, schema: node, value: node.example });
    }
    if (isSchema && Array.isArray(node.examples)) {
      node.examples.forEach((value, i) => {
        cases.push({ where: `${where} (schema examples/${i})`, schema: node, value });
      });
    }
    for (const [key, value] of Object.entries(node)) {
      if (!(isSchema && (key === 'example' || key === 'examples'))) cases.push(...schemaExamples(value, `${where}/${key}`));
    }
  }
  return cases;
}

/** Every example in the document: request bodies, responses, parameters, headers and schemas. */
export function collectExamples(document: JsonObject): ExampleCase[] {
  const cases: ExampleCase[] = [];
  for (const { path, method, operation } of operations(document)) {
    const op = `${method.toUpperCase()} ${path}`;
    for (const raw of (operation.parameters ?? []) as Json[]) {
      const parameter = deref(document, raw);
      cases.push(...examplesOf(document, parameter, `${op} parameter ${parameter.in}:${parameter.name}`, parameter.schema));
    }
    if (operation.requestBody) {
      const body = deref(document, operation.requestBody);
      for (const [mediaType, media] of Object.entries((body.content ?? {}) as JsonObject)) {
        const m = media as JsonObject;
        cases.push(...examplesOf(document, m, `${op} request ${mediaType}`, m.schema));
      }
    }
    for (const [status, raw] of Object.entries(operation.responses as JsonObject)) {
      const response = deref(document, raw);
      for (const [name, header] of Object.entries((response.headers ?? {}) as JsonObject)) {
        const h = deref(document, header);
        cases.push(...examplesOf(document, h, `${op} response ${status} header ${name}`, h.schema));
      }
      for (const [mediaType, media] of Object.entries((response.content ?? {}) as JsonObject)) {
        const m = media as JsonObject;
        cases.push(...examplesOf(document, m, `${op} response ${status} ${mediaType}`, m.schema));
      }
    }
  }
  const schemas = ((document.components as JsonObject | undefined)?.schemas ?? {}) as JsonObject;
  for (const [name, schema] of Object.entries(schemas)) cases.push(...schemaExamples(schema, `#/components/schemas/${name}`));
  return cases;
}
