import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/**
 * Sizes a reader can hold: no hand-written source file over 300 lines, no function (methods, arrow
 * functions and callbacks included) over 80 lines from its first line to its last. Tests are left out
 * (a test file is a list of cases), and so are the generated client types and the table of voice names.
 */
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;
const EXEMPT = new Set(['src/client/openapi-types.ts', 'src/server/synth/voice-names.ts']);

const sources = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mts'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !/\.test\.ts$|\.d\.ts$/.test(f) && !EXEMPT.has(f) && !/(^|\/)(dist|node_modules)\//.test(f));

function measure(file: string): { lines: number; functions: { line: number; lines: number }[] } {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const functions: { line: number; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body)
      functions.push({ line: lineOf(node.getStart()) + 1, lines: lineOf(node.end) - lineOf(node.getStart()) + 1 });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0), functions };
}

describe('source size', () => {
  const measured = sources.map((file) => ({ file, ...measure(file) }));

  it(`no hand-written source file is over ${MAX_FILE_LINES} lines`, () => {
    expect(measured.length).toBeGreaterThan(250);
    expect(measured.filter((m) => m.lines > MAX_FILE_LINES).map((m) => `${m.file}: ${m.lines} lines`)).toEqual([]);
  });

  it(`no function is over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(measured.flatMap((m) => m.functions).length).toBeGreaterThan(1000);
    const long = measured.flatMap((m) => m.functions.filter((f) => f.lines > MAX_FUNCTION_LINES).map((f) => `${m.file}:${f.line}: ${f.lines} lines`));
    expect(long).toEqual([]);
  });
});
