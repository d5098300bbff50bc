import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/**
 * `npm start`, `npm test`, `npm run conformance`, `load`, `sandbox` and `bench` build first. The build
 * is incremental (`tsc -b` over the packages, each recording its state in its own dist/), so with nothing changed it compiles nothing and
 * those commands start in seconds instead of after a whole compilation; then the sandbox's published
 * bundle is made (scripts/build-sandbox.mjs, esbuild: about a second).
 */
const run = promisify(execFile);
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

const WORKSPACES = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;

describe('the build', () => {
  it('is tsc -b over the packages (tsconfig.json references each), each recorded under its own dist/', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.build).toBe('node scripts/copy-assets.mjs && tsc -b && node scripts/build-sandbox.mjs');
    for (const name of ['start', 'test', 'conformance', 'load', 'sandbox', 'bench']) expect(pkg.scripts[name], name).toMatch(/^npm run build && /);
    const solution = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { files: string[]; references: { path: string }[] };
    expect(solution.files).toEqual([]);
    expect(solution.references.map((r) => r.path.replace(/^\.\//, '')).sort()).toEqual([...WORKSPACES].sort());
    for (const dir of WORKSPACES) {
      const config = JSON.parse(readFileSync(join(ROOT, dir, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
      expect(config.compilerOptions.composite, dir).toBe(true);
      expect(config.compilerOptions.outDir, dir).toBe('dist');
      expect(config.compilerOptions.tsBuildInfoFile, dir).toMatch(/^dist\//);
      const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { private?: boolean; scripts?: Record<string, string> };
      // A published package is built before it is packed (npm pack, npm publish).
      if (!manifest.private) expect(manifest.scripts?.prepack, dir).toMatch(/&& npm run build$/);
    }
  });

  it('a second build with nothing changed compiles nothing', async () => {
    // The first brings every dist/ up to date (a no-op after `npm test`'s own build).
    await run(process.execPath, [TSC, '-b'], { cwd: ROOT });
    const started = Date.now();
    const second = await run(process.execPath, [TSC, '-b', '--verbose'], { cwd: ROOT });
    const ms = Date.now() - started;
    const said = second.stdout + second.stderr;
    for (const dir of WORKSPACES) expect(said).toMatch(new RegExp(`Project '${dir}/tsconfig\\.json' is up to date`));
    expect(said).not.toMatch(/Building project/);
    console.log(`second build, nothing changed: ${ms} ms`);
  }, 300_000);
});
