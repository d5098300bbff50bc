/**
 * The breaking-change gate (scripts/openapi-breaking.ts) on two small documents
 * (__fixtures__/breaking): v1, a compatible v2 (additions and widenings only) and a breaking v2 (one
 * change per rule family), in process and through git and the command line.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findBreakingChanges, main } from '../../scripts/openapi-breaking.js';
import { applyExceptions, loadExceptions } from '../../scripts/openapi-breaking/exceptions.js';
import { OWN_RULES, type Finding, type OpenApiDocument } from '../../scripts/openapi-breaking/document.js';
import { REPO_ROOT } from './__fixtures__/openapi-helpers.js';

const FIXTURES = join(REPO_ROOT, 'src/contract/__fixtures__/breaking');
const read = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as OpenApiDocument;
const v1 = read('v1.json');
const compatible = read('v2-compatible.json');
const breaking = read('v2-breaking.json');

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tts-breaking-test-'));
  temps.push(dir);
  return dir;
}

/** Runs the gate in process, capturing its output. */
async function run(argv: string[], cwd = REPO_ROOT) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { cwd, log: (l) => out.push(l), error: (l) => err.push(l) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** The object at a key path of a fixture document (the fixtures are objects all the way down). */
function at(node: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  return keys.reduce<Record<string, unknown>>((n, key) => n[key] as Record<string, unknown>, node);
}
const summary = (findings: Finding[]) => findings.map((f) => `${f.rule} @ ${f.path}`).sort();
/** v1 → v2-breaking, computed once (each comparison loads both documents into Optic). */
let breakingFindings: Promise<Finding[]> | undefined;
const findingsOfBreaking = () => (breakingFindings ??= findBreakingChanges(v1, breaking));
const NOTE = '/paths/~1v1~1notes~1{id}/get';
const CREATE = '/paths/~1v1~1notes/post';

describe('findBreakingChanges', () => {
  it('finds nothing between a document and itself', async () => {
    expect(await findBreakingChanges(v1, v1)).toEqual([]);
  });

  it('passes a compatible change: new operations, optional fields, widened limits, new responses and headers', async () => {
    expect(summary(await findBreakingChanges(v1, compatible))).toEqual([]);
  });

  it('reports each breaking change of v2-breaking, from Optic and from the project rules', async () => {
    const findings = await findingsOfBreaking();
    const got = summary(findings);
    const body = `${CREATE}/requestBody/content/application~1json/schema/properties`;
    const expected = [
      // Optic's breaking-changes ruleset.
      `prevent response status code removal @ ${NOTE}/responses/404`,
      `prevent removing response property @ ${NOTE}/responses/200/content/application~1json/schema/properties/priority`,
      `prevent making response property optional @ ${NOTE}/responses/200/content/application~1json/schema/properties/created_at`,
      `request and response property enums @ ${body}/color`,
      // Rules Optic does not have.
      `${OWN_RULES.constraintNarrowed} @ ${body}/text`,
      `${OWN_RULES.constraintNarrowed} @ ${NOTE}/parameters/0/schema`,
      `${OWN_RULES.responseHeaderRemoved} @ ${CREATE}/responses/200/headers/X-Request-Id`,
    ];
    for (const line of expected) expect(got, line).toContain(line);
    const text = findings.find((f) => f.path === `${body}/text` && f.rule === OWN_RULES.constraintNarrowed);
    expect(text?.message).toContain('maxLength 1000 → 500');
    expect(text?.where).toBe('POST /v1/notes request body: application/json property: text');
  });

  it('reports narrowed request constraints, required bodies, removed media types and tightened security', async () => {
    // Tightened request schema, on the body v1 already has.
    const narrowed = structuredClone(v1);
    const newNote = at(narrowed, 'components', 'schemas', 'NewNote');
    at(newNote, 'properties', 'priority').minimum = 1; // lower bound raised
    at(newNote, 'properties', 'priority').multipleOf = 0.5; // new constraint
    at(newNote, 'properties', 'text').format = 'email';
    newNote.additionalProperties = false; // unknown fields were accepted
    // Another accepted scheme, bearer still accepted: not a break.
    at(narrowed, 'paths', '/v1/notes/{id}', 'get').security = [{ bearer: [] }, { apiKey: [] }];
    const findings = await findBreakingChanges(v1, narrowed);
    const constraints = findings.filter((f) => f.rule === OWN_RULES.constraintNarrowed).map((f) => f.message);
    for (const change of ['minimum 0 → 1', 'multipleOf (none) → 0.5', 'format (none) → "email"', 'additionalProperties: false']) {
      expect(
        constraints.some((m) => m.startsWith(change)),
        change,
      ).toBe(true);
    }
    expect(findings.some((f) => f.rule === OWN_RULES.securityTightened)).toBe(false);

    // The request body only in another media type.
    const otherMedia = structuredClone(v1);
    at(otherMedia, 'paths', '/v1/notes', 'post').requestBody = {
      required: true,
      content: { 'application/merge-patch+json': { schema: { $ref: '#/components/schemas/NewNote' } } },
    };
    expect(summary((await findBreakingChanges(v1, otherMedia)).filter((f) => f.source === 'agent-tts'))).toEqual([
      `${OWN_RULES.requestMediaRemoved} @ ${CREATE}/requestBody/content/application~1json`,
    ]);

    // An operation that was public now needs credentials.
    const open = structuredClone(v1);
    at(open, 'paths', '/v1/notes/{id}', 'get').security = [];
    expect(summary((await findBreakingChanges(open, v1)).filter((f) => f.rule === OWN_RULES.securityTightened))).toEqual([
      `${OWN_RULES.securityTightened} @ ${NOTE}/security`,
    ]);

    // A body that was optional is now required.
    const optionalBody = structuredClone(v1);
    at(optionalBody, 'paths', '/v1/notes', 'post', 'requestBody').required = false;
    expect(summary(await findBreakingChanges(optionalBody, v1))).toEqual([`${OWN_RULES.bodyRequired} @ ${CREATE}/requestBody`]);
  });
});

describe('approved exceptions', () => {
  it('approve the findings they match, by rule, by path prefix, or both', async () => {
    const findings = await findingsOfBreaking();
    const exceptions = loadExceptions(join(FIXTURES, 'exceptions-approving.json'));
    const result = applyExceptions(findings, exceptions);
    expect(result.unapproved).toEqual([]);
    expect(result.approved).toHaveLength(findings.length);
    // Only the entry for the GET operation (a path prefix) approves its status removal.
    const status = result.approved.find((a) => a.finding.rule === 'prevent response status code removal');
    expect(status?.exception.ref).toBe('fixture#1');
  });

  it('leave other findings unapproved, and report entries that match nothing', async () => {
    const findings = await findingsOfBreaking();
    const exceptions = [
      { rule: OWN_RULES.responseHeaderRemoved, reason: 'The id is in the body.', ref: 'fixture#6' },
      { path: '/paths/~1v1~1other', reason: 'Nothing there.', ref: 'fixture#7' },
    ];
    const result = applyExceptions(findings, exceptions);
    expect(result.approved.map((a) => a.finding.rule)).toEqual([OWN_RULES.responseHeaderRemoved]);
    expect(result.unapproved).toHaveLength(findings.length - 1);
    expect(result.unused).toEqual([exceptions[1]]);
  });

  it('a path prefix matches whole pointer segments only', () => {
    const finding: Finding = { rule: 'r', where: 'w', path: '/paths/~1v1~1notes~1{id}/get', message: 'm', source: 'optic' };
    expect(applyExceptions([finding], [{ path: '/paths/~1v1~1notes', reason: 'x', ref: 'y' }]).unapproved).toEqual([finding]);
    expect(applyExceptions([finding], [{ path: '/paths/~1v1~1notes~1{id}', reason: 'x', ref: 'y' }]).unapproved).toEqual([]);
  });

  it('the file is validated: reason and ref are required, unknown fields refused', () => {
    const dir = tempDir();
    const write = (data: unknown) => {
      const file = join(dir, `e${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, JSON.stringify(data));
      return file;
    };
    expect(() => loadExceptions(write({ exceptions: [{ rule: 'r', ref: 'PR 1' }] }))).toThrow(/reason is required/);
    expect(() => loadExceptions(write({ exceptions: [{ rule: 'r', reason: 'why' }] }))).toThrow(/ref is required/);
    expect(() => loadExceptions(write({ exceptions: [{ reason: 'why', ref: 'PR 1' }] }))).toThrow(/give a rule, a path, or both/);
    expect(() => loadExceptions(write({ exceptions: [{ rules: 'r', reason: 'why', ref: 'PR 1' }] }))).toThrow(/unknown field\(s\) rules/);
    expect(() => loadExceptions(write({ exceptions: [{ path: 'paths/x', reason: 'why', ref: 'PR 1' }] }))).toThrow(/JSON pointer/);
    expect(loadExceptions(write([{ rule: 'r', reason: 'why', ref: 'PR 1' }]))).toHaveLength(1);
    expect(loadExceptions(join(dir, 'missing.json'))).toEqual([]);
  });

  it('the committed exceptions file is valid', () => {
    expect(() => loadExceptions(join(REPO_ROOT, 'openapi/breaking-exceptions.json'))).not.toThrow();
  });
});

describe('command line', () => {
  const file = (name: string) => join(FIXTURES, name);
  // A path with no file: no exceptions (a missing exceptions file means none).
  const noExceptions = ['--exceptions', join(FIXTURES, 'no-such-exceptions.json')];

  it('--base-file: exit 1 with each finding on a breaking change, 0 on a compatible one, 0 when approved', async () => {
    const broken = await run(['--base-file', file('v1.json'), '--head-file', file('v2-breaking.json'), ...noExceptions]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/✗ \d+ breaking change\(s\)/);
    expect(broken.stderr).toContain('[prevent response status code removal] GET /v1/notes/{id} response 404');
    expect(broken.stderr).toContain(`path: ${NOTE}/responses/404`);

    const fine = await run(['--base-file', file('v1.json'), '--head-file', file('v2-compatible.json'), ...noExceptions]);
    expect(fine).toMatchObject({ code: 0, stderr: '' });
    expect(fine.stdout).toContain('✓ no unapproved breaking changes');

    const approved = await run(['--base-file', file('v1.json'), '--head-file', file('v2-breaking.json'), '--exceptions', file('exceptions-approving.json')]);
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(approved.stdout).toContain('approved: GET /v1/notes/{id} was reworked in version 2. (fixture#1)');
  });

  it('exit 2 on usage errors and unreadable input', async () => {
    expect((await run(['--bogus'])).code).toBe(2);
    expect((await run(['HEAD', '--base-file', file('v1.json')])).code).toBe(2);
    expect((await run(['--base-file', file('missing.json'), ...noExceptions])).code).toBe(2);
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), '{"exceptions":[{"rule":"x"}]}');
    const bad = await run(['--base-file', file('v1.json'), '--head-file', file('v1.json'), '--exceptions', join(dir, 'bad.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('reason is required');
  });

  describe('against a git ref', () => {
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
        cwd,
        stdio: 'pipe',
      });
    /**
     * One repository for these tests: its first commit has only a README, its second v1 as the
     * document. Each test sets the working-tree files it needs.
     */
    let shared: string | undefined;
    function repository() {
      if (shared) {
        cpSync(file('v1.json'), join(shared, 'openapi/openapi.json'));
        rmSync(join(shared, 'openapi/breaking-exceptions.json'), { force: true });
        return shared;
      }
      const dir = tempDir();
      shared = dir;
      git(dir, 'init', '--quiet', '--initial-branch=main');
      writeFileSync(join(dir, 'README.md'), 'fixture\n');
      git(dir, 'add', '.');
      git(dir, 'commit', '--quiet', '-m', 'first');
      mkdirSync(join(dir, 'openapi'));
      cpSync(file('v1.json'), join(dir, 'openapi/openapi.json'));
      git(dir, 'add', '.');
      git(dir, 'commit', '--quiet', '-m', 'contract v1');
      return dir;
    }

    it('compares the working tree with the document at the ref', async () => {
      const dir = repository();
      expect((await run(['HEAD'], dir)).code).toBe(0);
      cpSync(file('v2-breaking.json'), join(dir, 'openapi/openapi.json'));
      const broken = await run(['HEAD'], dir);
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(/comparing openapi\/openapi.json with HEAD \([0-9a-f]{12}\)/);
      expect(broken.stderr).toContain('from HEAD:openapi/openapi.json');
      cpSync(file('v2-compatible.json'), join(dir, 'openapi/openapi.json'));
      expect((await run(['HEAD'], dir)).code).toBe(0);
      // The repository's own exceptions file applies by default.
      cpSync(file('v2-breaking.json'), join(dir, 'openapi/openapi.json'));
      cpSync(file('exceptions-approving.json'), join(dir, 'openapi/breaking-exceptions.json'));
      expect((await run(['HEAD'], dir)).code).toBe(0);
    });

    it('exits 0 with a message when the ref has no document yet (first version)', async () => {
      const dir = repository();
      const first = await run(['HEAD~1'], dir);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('has no openapi/openapi.json: nothing to compare');
    });

    it('exits 2 on an unknown ref or a ref that looks like an option', async () => {
      const dir = repository();
      const unknown = await run(['no-such-branch'], dir);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('unknown git ref no-such-branch');
      expect((await run(['--output=/tmp/x'], dir)).code).toBe(2);
    });

    it('as `npm run openapi:breaking -- <ref>` (tsx), the exit code reaches the shell', async () => {
      const dir = repository();
      cpSync(file('v2-breaking.json'), join(dir, 'openapi/openapi.json'));
      const child = spawn(process.execPath, [join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'), join(REPO_ROOT, 'scripts/openapi-breaking.ts'), 'HEAD'], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, output).toBe(1);
      expect(output).toContain('[response header removed]');
    });
  });
});
