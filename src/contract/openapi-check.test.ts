/**
 * `npm run openapi:check` (scripts/openapi-gen.ts --check) must fail when the contract changes and the
 * generated files are not regenerated. Each case runs the real script in a temporary copy of the files
 * it reads and writes (node_modules linked), so the repository itself is never touched.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './__fixtures__/openapi-helpers.js';

/** What scripts/openapi-gen.ts imports, reads or writes. */
const COPIED = ['package.json', 'tsconfig.json', 'scripts/openapi-gen.ts', 'src/contract', 'openapi', 'src/client/openapi-types.ts'];

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

function copyRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tts-openapi-check-'));
  copies.push(dir);
  for (const entry of COPIED) {
    cpSync(join(REPO_ROOT, entry), join(dir, entry), {
      recursive: true,
      // Test files are not inputs of the generator.
      filter: (source) => !source.endsWith('.test.ts'),
    });
  }
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

function edit(dir: string, file: string, from: string, to: string) {
  const path = join(dir, file);
  const before = readFileSync(path, 'utf8');
  if (!before.includes(from)) throw new Error(`${file} no longer contains ${JSON.stringify(from)}: update this test`);
  writeFileSync(path, before.replace(from, to));
}

function runCheck(dir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/openapi-gen.ts', '--check'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('openapi:check', () => {
  it('passes on an unchanged copy, and fails when a schema changes without regenerating or a generated file is edited', async () => {
    const unchanged = copyRepo();

    // A description in a zod schema: only the documents and types change.
    const schemaEdit = copyRepo();
    edit(schemaEdit, 'src/contract/envelope-schemas.ts', "'Human-readable text.'", "'Human-readable text, edited.'");

    // A hand edit of a generated file.
    const generatedEdit = copyRepo();
    edit(generatedEdit, 'src/client/openapi-types.ts', 'duration_seconds?: number;', 'duration_seconds: number;');

    // Three runs at once: each spends ~2 s loading openapi-typescript (and TypeScript).
    const [clean, schema, generated] = await Promise.all([unchanged, schemaEdit, generatedEdit].map(runCheck));
    if (!clean || !schema || !generated) throw new Error('three runs give three results');

    expect(clean, clean.output).toMatchObject({ code: 0 });
    expect(clean.output).toContain('match the contract');

    expect(schema.code, schema.output).toBe(1);
    expect(schema.output).toContain('openapi/openapi.json: differs');
    expect(schema.output).toContain('openapi/openapi.yaml: differs');
    expect(schema.output).toContain('src/client/openapi-types.ts: differs');

    expect(generated.code, generated.output).toBe(1);
    expect(generated.output).toContain('src/client/openapi-types.ts: differs');
    expect(generated.output).not.toContain('openapi/openapi.json: differs');
  });
});
