import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's own root, found by walking up from this module: the suite runs from `dist/conformance/`
 * after a build, from `conformance/` under vitest, from `dist/conformance/` of another package that
 * compiles this file in, and from `node_modules/@agent-tts/conformance/dist/conformance/` when installed,
 * so a fixed `../..` would be wrong in one of them.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'openapi', 'openapi.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package root (a package.json beside openapi/openapi.json) above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

export const openApiJsonPath = (): string => join(packageRoot(), 'openapi', 'openapi.json');
export const openApiYamlPath = (): string => join(packageRoot(), 'openapi', 'openapi.yaml');
