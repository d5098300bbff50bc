import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import madge from 'madge';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/**
 * The import graph of every package of the workspace (sources, tests, benchmarks, scripts): no circle,
 * type-only imports included, and no module that forwards another's exports. A file split for size
 * names its new halves where they are used, instead of re-exporting them from the old place; only a
 * package's entry point (its "." export) and a folder's index.ts (the face of a room: ports/, synth/)
 * gather an API, with `export … from` or by exporting what they imported.
 */
const FOLDERS = ['src', 'conformance', 'mock', 'bench', 'test', 'scripts', 'examples'];
/**
 * Modules that are a published package's documented face of a subject, like an entry point: their
 * users import them by name, so they gather what files split for size define.
 */
const FACES: Record<string, string> = {
  'src/contract/routes.ts': 'the route definitions, as `@agent-tts/contract/routes.js` (src/contract/README.md)',
};

describe('the import graph', () => {
  it('has no circle in any package', async () => {
    const graph = await madge(
      FOLDERS.map((f) => join(ROOT, f)),
      { fileExtensions: ['ts'], tsConfig: join(ROOT, 'tsconfig.json'), excludeRegExp: [/(^|\/)dist\//, /node_modules/] },
    );
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(500);
    expect(graph.circular()).toEqual([]);
  }, 120_000);

  it('forwards no exports outside the packages’ entry points and the folders’ index.ts', () => {
    const workspaces = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces as string[];
    const entries = new Set(
      workspaces.flatMap((ws) => {
        const dot = JSON.parse(readFileSync(join(ROOT, ws, 'package.json'), 'utf8')).exports?.['.'];
        const source = typeof dot === 'object' ? (dot['agent-tts-source'] as string | undefined) : undefined;
        return source ? [join(ws, source)] : [];
      }),
    );
    expect(entries.size).toBeGreaterThan(3);
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', ...FOLDERS.map((f) => `${f}/*.ts`)], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f.endsWith('.ts') && !f.includes('/dist/'));
    expect(files.length).toBeGreaterThan(500);
    const forwarding = files.flatMap((file) => {
      if (entries.has(file) || file.endsWith('/index.ts') || file in FACES) return [];
      let text: string;
      try {
        text = readFileSync(join(ROOT, file), 'utf8');
      } catch {
        return []; // deleted in the working tree
      }
      return forwardedExports(file, text).map((e) => `${file}: ${e}`);
    });
    expect(forwarding).toEqual([]);
    // Each face named above is there and still forwards, or it is no exception.
    for (const face of Object.keys(FACES)) expect(forwardedExports(face, readFileSync(join(ROOT, face), 'utf8')), face).not.toEqual([]);
  });

  it('sees forwarding in every form, and a module’s own exports as its own', () => {
    const forwarding = [
      "export { a } from './a.js';",
      "export type { A } from './a.js';",
      "export * from './a.js';",
      "export * as a from './a.js';",
      "import { a } from './a.js';\nexport { a };",
      "import type { A } from './a.js';\nexport type { A };",
      "import { a as b } from './a.js';\nexport { b as c };",
      "import a from './a.js';\nexport { a };",
      "import * as a from './a.js';\nexport { a };",
    ];
    for (const text of forwarding) expect(forwardedExports('m.ts', text), text).toHaveLength(1);
    const own = [
      "import { a } from './a.js';\nconst b = a + 1;\nexport { b };",
      'export const a = 1;',
      "import { a } from './a.js';\nexport function f() { return a; }",
    ];
    for (const text of own) expect(forwardedExports('m.ts', text), text).toEqual([]);
  });

  it('imports no module of another package that the package’s exports do not list', () => {
    const workspaces = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces as string[];
    const exported = new Map(
      workspaces.map((ws) => {
        const pkg = JSON.parse(readFileSync(join(ROOT, ws, 'package.json'), 'utf8')) as { name: string; exports?: Record<string, unknown> };
        return [pkg.name, Object.keys(pkg.exports ?? {})] as const;
      }),
    );
    expect(exported.get('@agent-tts/server')).toBeDefined();
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', ...FOLDERS.flatMap((f) => [`${f}/*.ts`, `${f}/*.js`, `${f}/*.mjs`])], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => /\.(ts|js|mjs)$/.test(f) && !f.includes('/dist/'));
    const unlisted: string[] = [];
    let specifiers = 0;
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(join(ROOT, file), 'utf8');
      } catch {
        continue; // deleted in the working tree
      }
      // Every quoted specifier of a module of a workspace package: in an import, an export, import() or a string a dynamic import is given.
      for (const [, name, path] of text.matchAll(/['"`](@agent-tts\/[a-z-]+)((?:\/[\w.-]+)+)['"`]/g)) {
        const keys = name === undefined ? undefined : exported.get(name);
        if (!keys) continue;
        specifiers++;
        if (!keys.some((key) => exportMatches(key, `.${path}`))) unlisted.push(`${file}: ${name}${path}`);
      }
    }
    expect(specifiers).toBeGreaterThan(100);
    expect(unlisted).toEqual([]);
  });
});

/**
 * The exports of a module that forward another module's: `export … from` in every form (`*`, `* as`,
 * named), and `export { x }` (or `export type { x }`, `export { x as y }`) of a name the module imported.
 */
function forwardedExports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const imported = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !statement.importClause) continue;
    const { name, namedBindings } = statement.importClause;
    if (name) imported.add(name.text);
    if (namedBindings && ts.isNamespaceImport(namedBindings)) imported.add(namedBindings.name.text);
    if (namedBindings && ts.isNamedImports(namedBindings)) for (const element of namedBindings.elements) imported.add(element.name.text);
  }
  const forwarded: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const text = statement.getText(source).replace(/\s+/g, ' ');
    if (statement.moduleSpecifier) forwarded.push(text);
    else if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      const names = statement.exportClause.elements.map((e) => (e.propertyName ?? e.name).text).filter((n) => imported.has(n));
      if (names.length > 0) forwarded.push(`${text} (imported: ${names.join(', ')})`);
    }
  }
  return forwarded;
}

/** Whether a package.json `exports` key (`.`, `./synth`, `./*.js`) matches a subpath (`.`, `./synth`, `./limits.js`). */
function exportMatches(key: string, subpath: string): boolean {
  const star = key.indexOf('*');
  if (star < 0) return key === subpath;
  return subpath.length >= key.length - 1 && subpath.startsWith(key.slice(0, star)) && subpath.endsWith(key.slice(star + 1));
}
