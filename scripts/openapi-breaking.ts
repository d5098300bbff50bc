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
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { type BreakingException, type Finding, isObject, type OpenApiDocument } from './openapi-breaking/document.js';
import { applyExceptions, loadExceptions } from './openapi-breaking/exceptions.js';
import { opticFindings } from './openapi-breaking/optic.js';
import { ownFindings } from './openapi-breaking/own-rules.js';

const DEFAULT_DOCUMENT = 'openapi/openapi.json';
const DEFAULT_EXCEPTIONS = 'openapi/breaking-exceptions.json';

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

export interface Io {
  cwd: string;
  log: (line: string) => void;
  error: (line: string) => void;
}

class UsageError extends Error {}

interface Options {
  ref?: string;
  baseFile?: string;
  headFile?: string;
  document: string;
  exceptions?: string;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { document: DEFAULT_DOCUMENT };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === undefined) throw new Error(`argument ${i} missing below argv.length ${argv.length}`);
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

/** The base document: a file, or the document as committed at a git ref (undefined: that ref has none). */
function readBase(options: Options, root: string, io: Io): { base: OpenApiDocument; baseName: string } | number {
  if (options.baseFile !== undefined) {
    return { baseName: options.baseFile, base: parseDocument(readFileSync(resolve(io.cwd, options.baseFile), 'utf8'), options.baseFile) };
  }
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
  io.log(`openapi:breaking: comparing ${documentPath} with ${ref} (${sha.slice(0, 12)})`);
  return { baseName: `${ref}:${documentPath}`, base: parseDocument(git(root, ['show', `${sha}:${documentPath}`]), documentPath) };
}

/** Prints the findings, approved and not, and the exceptions that matched nothing; resolves to the exit code. */
function report(findings: Finding[], exceptions: BreakingException[], names: { baseName: string; headName: string; exceptionsFile: string }, io: Io): number {
  const { baseName, headName, exceptionsFile } = names;
  const { approved, unapproved, unused } = applyExceptions(findings, exceptions);
  const describe = (f: Finding) => `  - [${f.rule}] ${f.where}: ${f.message}\n      path: ${f.path}`;
  if (approved.length) {
    io.log(`Approved breaking changes (${exceptionsFile}):`);
    for (const { finding, exception } of approved) io.log(`${describe(finding)}\n      approved: ${exception.reason} (${exception.ref})`);
  }
  for (const exception of unused) {
    io.log(`Note: exception ${JSON.stringify({ rule: exception.rule, path: exception.path })} matched nothing; remove it once ${baseName} carries the change.`);
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
}

/** Runs the gate on parsed options; resolves to the exit code. */
async function run(options: Options, io: Io): Promise<number> {
  const root = options.baseFile !== undefined ? io.cwd : tryGit(io.cwd, ['rev-parse', '--show-toplevel'])?.trim();
  if (!root) {
    io.error(`openapi:breaking: ${io.cwd} is not in a git repository; compare files with --base-file instead.`);
    return 2;
  }
  const inRoot = (p: string) => (isAbsolute(p) ? p : resolve(root, p));
  const based = readBase(options, root, io);
  if (typeof based === 'number') return based;
  const headName = options.headFile ?? options.document;
  const headFile = options.headFile !== undefined ? resolve(io.cwd, options.headFile) : inRoot(options.document);
  if (!existsSync(headFile)) {
    io.error(`openapi:breaking: ${headName} does not exist`);
    return 2;
  }
  const head = parseDocument(readFileSync(headFile, 'utf8'), headName);
  const exceptionsFile = options.exceptions !== undefined ? resolve(io.cwd, options.exceptions) : inRoot(DEFAULT_EXCEPTIONS);
  const exceptions = loadExceptions(exceptionsFile);
  const findings = await findBreakingChanges(based.base, head);
  return report(findings, exceptions, { baseName: based.baseName, headName, exceptionsFile }, io);
}

/** Runs the gate; resolves to the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  let options: Options;
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
    return await run(options, io);
  } catch (error) {
    io.error(`openapi:breaking: ${(error as Error).message}`);
    return 2;
  }
}

const invokedDirectly = process.argv[1] !== undefined && pathToFileURL(resolve(process.argv[1])).href === import.meta.url;
if (invokedDirectly) {
  const code = await main(process.argv.slice(2), { cwd: process.cwd(), log: (l) => console.log(l), error: (l) => console.error(l) });
  process.exitCode = code;
}
