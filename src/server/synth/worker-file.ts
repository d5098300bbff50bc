import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Path of the compiled pool worker. Worker threads load plain JavaScript, so when this module runs from
 * its TypeScript source (tests, `tsx`), the worker is taken from the build output (`dist/<same path>`).
 */
export function workerFilePath(moduleUrl: string = import.meta.url): string {
  const here = fileURLToPath(moduleUrl);
  if (here.endsWith('.js')) return join(dirname(here), 'worker.js');
  const root = packageRoot(dirname(here));
  const compiled = join(root, 'dist', relative(root, dirname(here)), 'worker.js');
  if (!existsSync(compiled)) {
    throw new Error(`Synthesis worker ${compiled} is missing: run \`npm run build\` first`);
  }
  return compiled;
}

function packageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${start}`);
  }
}
