// The `!` non-null assertions of the workspace, counted with the TypeScript compiler, against the budget in
// .non-null-budget.json. The budget only falls: a count above it fails, and a count far below it fails too,
// asking that the budget be lowered to the new count.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const SLACK = 20;

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) tsFiles(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function nonNullAssertions(path: string): number {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  let count = 0;
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.NonNullExpression) count++;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return count;
}

const counts = { tests: 0, code: 0 };
for (const path of tsFiles(ROOT)) {
  const rel = relative(ROOT, path);
  const isTest = rel.endsWith('.test.ts') || rel.startsWith('test/');
  counts[isTest ? 'tests' : 'code'] += nonNullAssertions(path);
}
const budget = JSON.parse(readFileSync(join(ROOT, '.non-null-budget.json'), 'utf8')) as { tests: number; code: number };

describe('non-null assertion budget (.non-null-budget.json)', () => {
  for (const kind of ['code', 'tests'] as const) {
    it(`${kind}: no more \`!\` than the budget, and the budget no more than ${SLACK} above the count`, () => {
      expect(
        counts[kind],
        `${counts[kind]} \`!\` in ${kind}, over the budget of ${budget[kind]}: check the value (if (x === undefined) throw …, a default, .at() with a check) instead of asserting it`,
      ).toBeLessThanOrEqual(budget[kind]);
      expect(
        counts[kind],
        `${counts[kind]} \`!\` in ${kind}, well below the budget of ${budget[kind]}: set "${kind}" in .non-null-budget.json to ${counts[kind]} so the budget keeps falling`,
      ).toBeGreaterThanOrEqual(budget[kind] - SLACK);
    });
  }
});
