import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/**
 * `npm start`, `npm test`, `npm run conformance`, `load`, `sandbox` and `bench` build first. The build
 * is incremental (`tsc -b`, its record in dist/), so with nothing changed it compiles nothing and
 * those commands start in seconds instead of after a whole compilation.
 */
const run = promisify(execFile);
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

describe('the build', () => {
  it('is tsc -b over tsconfig.build.json, recorded under dist/, for every script that builds', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.build).toBe('tsc -b tsconfig.build.json');
    for (const name of ['start', 'test', 'conformance', 'load', 'sandbox', 'bench']) expect(pkg.scripts[name], name).toMatch(/^npm run build && /);
    // A package is built from scratch, whatever dist/ holds.
    expect(pkg.scripts.prepack).toBe('npm run build -- --force');
    const config = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    expect(config.compilerOptions.incremental).toBe(true);
    expect(config.compilerOptions.tsBuildInfoFile).toMatch(/^dist\//);
  });

  it('a second build with nothing changed compiles nothing', async () => {
    // The first brings dist/ up to date (a no-op after `npm test`'s own build).
    await run(process.execPath, [TSC, '-b', 'tsconfig.build.json'], { cwd: ROOT });
    const started = Date.now();
    const second = await run(process.execPath, [TSC, '-b', 'tsconfig.build.json', '--verbose'], { cwd: ROOT });
    const ms = Date.now() - started;
    const said = second.stdout + second.stderr;
    expect(said).toMatch(/Project '[^']*tsconfig\.build\.json' is up to date/);
    expect(said).not.toMatch(/Building project/);
    console.log(`second build, nothing changed: ${ms} ms`);
  }, 300_000);
});
