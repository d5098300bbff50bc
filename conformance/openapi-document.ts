import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Exchange } from './exchange.js';
import { openApiJsonPath } from './package-files.js';

// ajv-formats is CommonJS with `exports.default`; under NodeNext the default import is the module object.
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats: AddFormats = (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document and the JSON it describes are walked field by field; ajv checks the shapes
type Json = any;

export interface Operation {
  method: string;
  template: string;
  operationId: string;
  pattern: RegExp;
  definition: Json;
}

const DOC_ID = 'openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The committed OpenAPI 3.1 document, loaded from the package itself (never from the server under
 * test), with ajv 2020-12 validators for its response schemas and headers.
 */
/** An answer as checkAnswer takes it: `headers` by lower-case name; `json` the parsed body, when the media type is JSON and it parsed. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  contentType: string;
  json?: unknown;
}

/** One way an answer departs from the document, and the part of the answer at fault. */
export interface AnswerViolation {
  part: 'status' | 'content_type' | 'body' | 'header';
  message: string;
}

export class OpenApiDocument {
  readonly operations: Operation[];
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  /** Compiled validators by schema text: the document repeats schemas (one error body, one X-Request-Id under every status). */
  private readonly bySchema = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    // strict off: the document carries OpenAPI keywords (example, discriminator) that are not JSON Schema.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
    this.ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
    this.ajv.addFormat('binary', () => true);
    this.ajv.addSchema({ $id: DOC_ID, components: document.components ?? {} }, DOC_ID);
    this.operations = [];
    for (const [template, item] of Object.entries<Json>(document.paths ?? {})) {
      for (const method of METHODS) {
        const definition = item[method];
        if (!definition) continue;
        this.operations.push({
          method: method.toUpperCase(),
          template,
          operationId: definition.operationId ?? `${method} ${template}`,
          pattern: templatePattern(template),
          definition,
        });
      }
    }
  }

  static load(path = openApiJsonPath()): OpenApiDocument {
    return new OpenApiDocument(JSON.parse(readFileSync(path, 'utf8')));
  }

  /** The operation for a method and a path relative to the deployment's base URL. */
  match(method: string, pathname: string): { operation?: Operation; pathKnown: boolean } {
    const candidates = this.operations.filter((op) => op.pattern.test(pathname));
    return { operation: candidates.find((op) => op.method === method.toUpperCase()), pathKnown: candidates.length > 0 };
  }

  operation(operationId: string): Operation {
    const op = this.operations.find((o) => o.operationId === operationId);
    if (!op) throw new Error(`the OpenAPI document has no operation ${operationId}`);
    return op;
  }

  /** Errors of `value` against a component schema, e.g. `Error`; empty when valid. */
  validateComponent(name: string, value: unknown): string[] {
    return this.run(`component:${name}`, () => ({ $ref: `${DOC_ID}#/components/schemas/${name}` }), value);
  }

  validateSchema(cacheKey: string, schema: Json, value: unknown): string[] {
    // Rebased only when first compiled: an answer checked later costs the validation alone.
    return this.run(cacheKey, () => rebase(schema), value);
  }

  /**
   * Compiles now the validator of every JSON response body and every response header the document
   * declares (each is otherwise compiled when first used), so that no answer checked later waits for one.
   */
  compileAll(): void {
    for (const operation of this.operations) {
      for (const [status, declared] of Object.entries<Json>(operation.definition.responses ?? {})) {
        for (const [mediaType, media] of Object.entries<Json>(declared.content ?? {})) {
          if (mediaType.endsWith('json')) this.validator(`${operation.operationId}:${status}:${mediaType}`, () => rebase(media.schema ?? {}));
        }
        for (const [name, spec] of Object.entries<Json>(declared.headers ?? {})) {
          this.validator(`${operation.operationId}:${status}:header:${name}`, () => rebase(spec.schema ?? {}));
        }
      }
    }
  }

  private validator(cacheKey: string, schema: () => Json): ValidateFunction {
    let validate = this.validators.get(cacheKey);
    if (!validate) {
      const source = schema();
      const text = JSON.stringify(source);
      validate = this.bySchema.get(text) ?? this.ajv.compile(source);
      this.bySchema.set(text, validate);
      this.validators.set(cacheKey, validate);
    }
    return validate;
  }

  private run(cacheKey: string, schema: () => Json, value: unknown): string[] {
    const validate = this.validator(cacheKey, schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) =>
        `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}${e.params && 'allowedValues' in e.params ? ` (${JSON.stringify(e.params.allowedValues)})` : ''}`,
    );
  }

  /**
   * Checks one answer against its operation: the status is declared, the media type is declared for
   * it, the body matches the schema, declared headers match theirs and required ones are present.
   * Returns violations as sentences; an empty list means it conforms.
   */
  checkResponse(exchange: Exchange, pathname: string): string[] {
    const response = exchange.response;
    if (!response) return [];
    const { operation } = this.match(exchange.request.method, pathname);
    if (!operation) return [];
    return this.checkAnswer(operation, response);
  }

  /**
   * Checks one answer against a given operation (checkResponse, for an answer that is not an
   * Exchange: the sandbox checks its own). `headers` by lower-case name; `json` the parsed body, when
   * the media type is JSON and it parsed.
   */
  checkAnswer(operation: Operation, response: Answer): string[] {
    return this.answerViolations(operation, response).map((v) => v.message);
  }

  /** checkAnswer's violations, each with the part of the answer at fault (for callers that sort them, as the generated rules do). */
  answerViolations(operation: Operation, response: Answer): AnswerViolation[] {
    const where = `${operation.operationId} ${response.status}`;
    const declared = operation.definition.responses?.[String(response.status)] ?? operation.definition.responses?.default;
    if (!declared) {
      return [
        {
          part: 'status',
          message: `${operation.operationId}: HTTP ${response.status} is not a status the document declares (${Object.keys(operation.definition.responses ?? {}).join(', ')})`,
        },
      ];
    }
    const violations: AnswerViolation[] = [];
    const mediaType = (response.contentType.split(';')[0] ?? '').trim().toLowerCase();
    const content = declared.content as Record<string, Json> | undefined;
    if (content && Object.keys(content).length > 0) {
      const media = content[mediaType];
      if (!media) {
        violations.push({
          part: 'content_type',
          message: `${where}: Content-Type "${response.contentType}" is not declared (${Object.keys(content).join(', ')})`,
        });
      } else if (mediaType.endsWith('json')) {
        if (response.json === undefined) violations.push({ part: 'body', message: `${where}: body is not valid JSON` });
        else {
          for (const e of this.validateSchema(`${operation.operationId}:${response.status}:${mediaType}`, media.schema ?? {}, response.json)) {
            violations.push({ part: 'body', message: `${where}: body ${e.replace(/^\(body\) /, '')}` });
          }
        }
      }
    }
    for (const [name, spec] of Object.entries<Json>(declared.headers ?? {})) {
      const value = response.headers[name.toLowerCase()];
      if (value === undefined) {
        if (spec.required) violations.push({ part: 'header', message: `${where}: required header ${name} is missing` });
        continue;
      }
      for (const e of this.validateSchema(`${operation.operationId}:${response.status}:header:${name}`, spec.schema ?? {}, value)) {
        violations.push({ part: 'header', message: `${where}: header ${name}: "${value}" ${e.replace('(body) ', '')}` });
      }
    }
    return violations;
  }

  /** Every named example of every response, with the status it is declared under. */
  examples(): { operation: Operation; status: string; mediaType: string; name: string; value: unknown; schema: Json }[] {
    const out = [];
    for (const operation of this.operations) {
      for (const [status, response] of Object.entries<Json>(operation.definition.responses ?? {})) {
        for (const [mediaType, media] of Object.entries<Json>(response.content ?? {})) {
          for (const [name, example] of Object.entries<Json>(media.examples ?? {})) {
            out.push({ operation, status, mediaType, name, value: example.value, schema: media.schema });
          }
        }
      }
    }
    return out;
  }
}

function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  // Paths are matched after the deployment's base path is stripped (see exchange-scope.ts).
  return new RegExp(`^${source}$`);
}

/** Points the document's local `#/components/...` references at the registered document. */
function rebase(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema && typeof schema === 'object') {
    return Object.fromEntries(
      Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${DOC_ID}${v}` : rebase(v)]),
    );
  }
  return schema;
}
