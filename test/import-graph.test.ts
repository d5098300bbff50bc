import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/**
 * The import graph of every package of the workspace (sources, tests, benchmarks, scripts): no circle,
 * type-only imports included, and no module that forwards another's exports. A file split for size
 * names its new halves where they are used, instead of re-exporting them from the old place; only a
 * package's entry point (its "." export) and a folder's index.ts (the face of a room: ports/, synth/)
 * gather an API with `export … from`.
 */
const FOLDERS = ['src', 'conformance', 'mock', 'bench', 'test', 'scripts', 'examples'];

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
      if (entries.has(file) || file.endsWith('/index.ts')) return [];
      let text: string;
      try {
        text = readFileSync(join(ROOT, file), 'utf8');
      } catch {
        return []; // deleted in the working tree
      }
      return [...text.matchAll(/^export (?:type )?(?:\*|\{[^}]*\}) from '[^']+';/gm)].map((m) => `${file}: ${m[0]}`);
    });
    expect(forwarding).toEqual([]);
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

/** Whether a package.json `exports` key (`.`, `./synth`, `./*.js`) matches a subpath (`.`, `./synth`, `./limits.js`). */
function exportMatches(key: string, subpath: string): boolean {
  const star = key.indexOf('*');
  if (star < 0) return key === subpath;
  return subpath.length >= key.length - 1 && subpath.startsWith(key.slice(0, star)) && subpath.endsWith(key.slice(star + 1));
}
