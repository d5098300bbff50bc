/**
 * Breaking-change gate for the published contract.
 *
 *   npm run openapi:breaking -- <git-ref>                compare openapi/openapi.json with its version at <git-ref>
 *   npm run openapi:breaking -- --base-file a.json [--head-file b.json]
 *
 * Options: --document <path> (default openapi/openapi.json, relative to the repository root; .yaml works
 * too), --exceptions <file> (default openapi/breaking-exceptions.json).
 *
 * Two checks run, offline:
 * - Optic's `breaking-changes` ruleset (@useoptic/optic, used as a library: its `diff --json` output
 *   carries no rule results): removed operations and response statuses, removed or newly optional
 *   response properties, request properties made required, new required parameters, type changes,
 *   narrowed enums and unions.
 * - Rules Optic does not have, for this project: narrowed request constraints (maxLength, maximum,
 *   pattern, format, …) in bodies and parameters, request bodies made required, removed request or
 *   response media types, removed response headers, and tightened security requirements.
 *
 * A deliberate break is approved in openapi/breaking-exceptions.json: entries {rule and/or path,
 * reason, ref}; `path` is a JSON pointer prefix as printed for each finding.
 *
 * Exit codes: 0 no unapproved breaking change (also when <git-ref> has no document yet: the first
 * version cannot break anything); 1 unapproved breaking changes; 2 usage or operational error.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';

/* ------------------------------------------------------------------------------------------------ */
/* Types                                                                                             */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
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

const DEFAULT_DOCUMENT = 'openapi/openapi.json';
const DEFAULT_EXCEPTIONS = 'openapi/breaking-exceptions.json';

/* ------------------------------------------------------------------------------------------------ */
/* Optic                                                                                             */

interface OpticResult {
  name: string;
  where: string;
  error?: string;
  passed: boolean;
  location: { jsonPath: string; spec?: 'before' | 'after' };
}
interface OpticParseResult {
  jsonLike: JsonObject;
}
interface OpticModules {
  loadSpec(ref: string, config: object, options: { strict: boolean; denormalize: boolean }): Promise<OpticParseResult>;
  compute(
    files: [OpticParseResult, OpticParseResult],
    config: object,
    options: { check: boolean; path: string | null },
  ): Promise<{ specResults: { results: OpticResult[] } }>;
}

let optic: OpticModules | undefined;

function loadOptic(): OpticModules {
  if (optic) return optic;
  // Optic's CLI reports telemetry (Segment, Sentry) and checks for updates. Those live in its CLI
  // entry point, which is not loaded here; these switch them off should a module start them anyway.
  process.env.OPTIC_TELEMETRY_LEVEL = 'off';
  process.env.NO_UPDATE_NOTIFIER = '1';
  const require = createRequire(import.meta.url);
  // @useoptic/optic is pinned in package.json; its build has no `exports` map, so these are its modules.
  const { loadSpec } = require('@useoptic/optic/build/utils/spec-loaders.js') as Pick<OpticModules, 'loadSpec'>;
  const { compute } = require('@useoptic/optic/build/commands/diff/compute.js') as Pick<OpticModules, 'compute'>;
  optic = { loadSpec, compute };
  return optic;
}

/** The breaking-changes ruleset, also when info.version changes (ours is a date label, not semver). */
const OPTIC_CONFIG = {
  isInCi: false,
  ruleset: [{ name: 'breaking-changes', config: { skip_when_major_version_changes: false } }],
};

async function opticFindings(basePath: string, headPath: string): Promise<Finding[]> {
  const { loadSpec, compute } = loadOptic();
  const base = await loadSpec(basePath, OPTIC_CONFIG, { strict: false, denormalize: true });
  const head = await loadSpec(headPath, OPTIC_CONFIG, { strict: true, denormalize: true });
  // A document can name its own Optic standard (x-optic-standard), which would replace the ruleset above.
  delete base.jsonLike['x-optic-standard'];
  delete head.jsonLike['x-optic-standard'];
  const { specResults } = await compute([base, head], OPTIC_CONFIG, { check: true, path: headPath });
  return specResults.results
    .filter((result) => !result.passed)
    .map((result) => ({
      rule: result.name,
      where: result.where,
      path: result.location.jsonPath,
      message: result.error ?? 'breaking change',
      source: 'optic' as const,
    }));
}

/* ------------------------------------------------------------------------------------------------ */
/* Own rules                                                                                         */

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Follows local `$ref`s; sibling keywords (allowed in 3.1) win over the target's. */
function resolveRef(document: OpenApiDocument, node: Json | undefined): JsonObject | undefined {
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

function ownFindings(base: OpenApiDocument, head: OpenApiDocument): Finding[] {
  const findings: Finding[] = [];
  const emit = (f: Omit<Finding, 'source'>) => findings.push({ ...f, source: 'agent-tts' });
  const ctx = { base, head, emit };
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
      const op = `/paths/${escapePointer(route)}/${method}`;
      const name = `${method.toUpperCase()} ${route}`;

      // Security: every way a client could authenticate before must still be accepted.
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

      // Parameters present in both: their schemas must not narrow (new required ones are Optic's).
      const baseParams = parameterIndex(base);
      baseParams.add(baseItem.parameters, `/paths/${escapePointer(route)}`);
      baseParams.add(bOp.parameters, op);
      const headParams = parameterIndex(head);
      headParams.add(headItem.parameters, `/paths/${escapePointer(route)}`);
      headParams.add(hOp.parameters, op);
      for (const [key, { parameter }] of baseParams.byKey) {
        const after = headParams.byKey.get(key);
        if (!after) continue;
        compareRequestSchema(ctx, parameter.schema, after.parameter.schema, `${after.pointer}/schema`, `${name} ${key.replace(':', ' parameter: ')}`);
      }

      // Request body.
      const bBody = resolveRef(base, bOp.requestBody);
      const hBody = resolveRef(head, hOp.requestBody);
      if (hBody?.required === true && bBody?.required !== true) {
        emit({ rule: OWN_RULES.bodyRequired, where: `${name} request body`, path: `${op}/requestBody`, message: 'the request body is now required.' });
      }
      if (bBody && hBody) {
        const bContent = (bBody.content ?? {}) as JsonObject;
        const hContent = (hBody.content ?? {}) as JsonObject;
        for (const [mediaType, media] of Object.entries(bContent)) {
          const where = `${name} request body: ${mediaType}`;
          const pointer = `${op}/requestBody/content/${escapePointer(mediaType)}`;
          if (!Object.hasOwn(hContent, mediaType)) {
            emit({ rule: OWN_RULES.requestMediaRemoved, where, path: pointer, message: `requests in ${mediaType} are no longer accepted.` });
            continue;
          }
          compareRequestSchema(ctx, (media as JsonObject).schema, (hContent[mediaType] as JsonObject).schema, `${pointer}/schema`, where);
        }
      }

      // Responses present in both (a removed status is Optic's finding).
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
  }
  return findings;
}

/* ------------------------------------------------------------------------------------------------ */
/* Comparison and exceptions                                                                         */

/** Every breaking change from `base` to `head`: Optic's ruleset, then this project's rules. */
export async function findBreakingChanges(base: OpenApiDocument, head: OpenApiDocument): Promise<Finding[]> {
  // Optic's loader reads files.
  const dir = mkdtempSync(join(tmpdir(), 'openapi-breaking-'));
  try {
    const basePath = join(dir, 'base.json');
    const headPath = join(dir, 'head.json');
    writeFileSync(basePath, JSON.stringify(base));
    writeFileSync(headPath, JSON.stringify(head));
    return [...(await opticFindings(basePath, headPath)), ...ownFindings(base, head)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const EXCEPTION_KEYS = new Set(['rule', 'path', 'reason', 'ref']);

/** Reads the approved-exceptions file: `{ "exceptions": [...] }` or a bare array. Missing file: none. */
export function loadExceptions(file: string): BreakingException[] {
  if (!existsSync(file)) return [];
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message})`);
  }
  const list = Array.isArray(data) ? data : isObject(data) ? data.exceptions : undefined;
  if (!Array.isArray(list)) throw new Error(`${file}: expected an "exceptions" array`);
  return list.map((entry, i) => {
    const at = `${file}: exceptions[${i}]`;
    if (!isObject(entry)) throw new Error(`${at}: expected an object`);
    const unknown = Object.keys(entry).filter((k) => !EXCEPTION_KEYS.has(k));
    if (unknown.length) throw new Error(`${at}: unknown field(s) ${unknown.join(', ')}; allowed: rule, path, reason, ref`);
    for (const key of ['rule', 'path'] as const) {
      if (entry[key] !== undefined && (typeof entry[key] !== 'string' || entry[key] === '')) throw new Error(`${at}: ${key} must be a non-empty string`);
    }
    if (entry.rule === undefined && entry.path === undefined) throw new Error(`${at}: give a rule, a path, or both`);
    if (typeof entry.path === 'string' && !entry.path.startsWith('/')) throw new Error(`${at}: path must be a JSON pointer starting with /`);
    for (const key of ['reason', 'ref'] as const) {
      if (typeof entry[key] !== 'string' || !entry[key].trim())
        throw new Error(`${at}: ${key} is required (why the break is accepted, and where it was approved)`);
    }
    return entry as unknown as BreakingException;
  });
}

const pointerCovers = (prefix: string, path: string) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);

function matches(exception: BreakingException, finding: Finding): boolean {
  return (exception.rule === undefined || exception.rule === finding.rule) && (exception.path === undefined || pointerCovers(exception.path, finding.path));
}

export function applyExceptions(findings: Finding[], exceptions: BreakingException[]) {
  const approved: { finding: Finding; exception: BreakingException }[] = [];
  const unapproved: Finding[] = [];
  const used = new Set<BreakingException>();
  for (const finding of findings) {
    const exception = exceptions.find((e) => matches(e, finding));
    if (exception) {
      approved.push({ finding, exception });
      used.add(exception);
    } else unapproved.push(finding);
  }
  return { approved, unapproved, unused: exceptions.filter((e) => !used.has(e)) };
}

/* ------------------------------------------------------------------------------------------------ */
/* Command line                                                                                      */

export interface Io {
  cwd: string;
  log: (line: string) => void;
  error: (line: string) => void;
}

class UsageError extends Error {}

function parseArgs(argv: string[]) {
  const options: { ref?: string; baseFile?: string; headFile?: string; document: string; exceptions?: string } = { document: DEFAULT_DOCUMENT };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`${arg} needs a value`);
      return next;
    };
    if (arg === '--base-file') options.baseFile = value();
    else if (arg === '--head-file') options.headFile = value();
    else if (arg === '--document') options.document = value();
    else if (arg === '--exceptions') options.exceptions = value();
    else if (arg === '--help' || arg === '-h') throw new UsageError('');
    else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
    else if (options.ref === undefined) options.ref = arg;
    else throw new UsageError(`unexpected argument ${arg}`);
  }
  if (options.ref !== undefined && options.baseFile !== undefined) throw new UsageError('give a git ref or --base-file, not both');
  return options;
}

const USAGE = `usage: npm run openapi:breaking -- <git-ref> [--document ${DEFAULT_DOCUMENT}] [--exceptions ${DEFAULT_EXCEPTIONS}]
       npm run openapi:breaking -- --base-file <old.json|yaml> [--head-file <new.json|yaml>] [--exceptions <file>]`;

function parseDocument(text: string, name: string): OpenApiDocument {
  const data: unknown = /\.ya?ml$/i.test(name) ? parseYaml(text) : JSON.parse(text);
  if (!isObject(data) || typeof data.openapi !== 'string') throw new Error(`${name}: not an OpenAPI document`);
  return data;
}

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

function tryGit(cwd: string, args: string[]): string | undefined {
  try {
    return git(cwd, args);
  } catch {
    return undefined;
  }
}

/** Runs the gate; resolves to the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  let options: ReturnType<typeof parseArgs>;
  try {
    options = parseArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      if (error.message) io.error(`openapi:breaking: ${error.message}`);
      io.error(USAGE);
      return error.message ? 2 : 0;
    }
    throw error;
  }

  try {
    const root = options.baseFile !== undefined ? io.cwd : tryGit(io.cwd, ['rev-parse', '--show-toplevel'])?.trim();
    if (!root) {
      io.error(`openapi:breaking: ${io.cwd} is not in a git repository; compare files with --base-file instead.`);
      return 2;
    }
    const inRoot = (p: string) => (isAbsolute(p) ? p : resolve(root, p));

    let base: OpenApiDocument;
    let baseName: string;
    if (options.baseFile !== undefined) {
      baseName = options.baseFile;
      base = parseDocument(readFileSync(resolve(io.cwd, options.baseFile), 'utf8'), baseName);
    } else {
      const ref = options.ref ?? 'HEAD';
      // A ref is never an option of git's (`--output=…` would be one).
      if (ref.startsWith('-')) throw new UsageError(`not a git ref: ${ref}`);
      const sha = tryGit(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])?.trim();
      if (!sha) {
        io.error(`openapi:breaking: unknown git ref ${ref}`);
        return 2;
      }
      const documentPath = options.document.replace(/^\.\//, '');
      if (tryGit(root, ['cat-file', '-e', `${sha}:${documentPath}`]) === undefined) {
        io.log(`openapi:breaking: ${ref} (${sha.slice(0, 12)}) has no ${documentPath}: nothing to compare, so nothing can break. OK.`);
        return 0;
      }
      baseName = `${ref}:${documentPath}`;
      base = parseDocument(git(root, ['show', `${sha}:${documentPath}`]), documentPath);
      io.log(`openapi:breaking: comparing ${documentPath} with ${ref} (${sha.slice(0, 12)})`);
    }

    const headName = options.headFile ?? options.document;
    const headFile = options.headFile !== undefined ? resolve(io.cwd, options.headFile) : inRoot(options.document);
    if (!existsSync(headFile)) {
      io.error(`openapi:breaking: ${headName} does not exist`);
      return 2;
    }
    const head = parseDocument(readFileSync(headFile, 'utf8'), headName);
    const exceptionsFile = options.exceptions !== undefined ? resolve(io.cwd, options.exceptions) : inRoot(DEFAULT_EXCEPTIONS);
    const exceptions = loadExceptions(exceptionsFile);

    const findings = await findBreakingChanges(base, head);
    const { approved, unapproved, unused } = applyExceptions(findings, exceptions);

    const describe = (f: Finding) => `  - [${f.rule}] ${f.where}: ${f.message}\n      path: ${f.path}`;
    if (approved.length) {
      io.log(`Approved breaking changes (${exceptionsFile}):`);
      for (const { finding, exception } of approved) io.log(`${describe(finding)}\n      approved: ${exception.reason} (${exception.ref})`);
    }
    for (const exception of unused) {
      io.log(
        `Note: exception ${JSON.stringify({ rule: exception.rule, path: exception.path })} matched nothing; remove it once ${baseName} carries the change.`,
      );
    }
    if (unapproved.length) {
      io.error(`✗ ${unapproved.length} breaking change(s) from ${baseName} to ${headName}:`);
      for (const finding of unapproved) io.error(describe(finding));
      io.error(
        `Keep the contract compatible, or, for a deliberate break, add {"rule", "path", "reason", "ref"} to ${DEFAULT_EXCEPTIONS} ` +
          '(path: a JSON pointer prefix as printed above; ref: where the break was approved).',
      );
      return 1;
    }
    io.log(`✓ no unapproved breaking changes from ${baseName} to ${headName} (${findings.length} finding(s), ${approved.length} approved).`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.error(`openapi:breaking: ${error.message}`);
      return 2;
    }
    io.error(`openapi:breaking: ${(error as Error).message}`);
    return 2;
  }
}

const invokedDirectly = process.argv[1] !== undefined && pathToFileURL(resolve(process.argv[1])).href === import.meta.url;
if (invokedDirectly) {
  const code = await main(process.argv.slice(2), { cwd: process.cwd(), log: (l) => console.log(l), error: (l) => console.error(l) });
  process.exitCode = code;
}
