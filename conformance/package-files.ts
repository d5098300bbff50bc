import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's own root, found by walking up from this module: the suite runs from `dist/conformance/`
 * after a build, from `conformance/` under vitest, and from `node_modules/agent-tts/dist/conformance/`
 * in an installed tarball, so a fixed `../..` would be wrong in one of them.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'openapi', 'openapi.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the agent-tts package root (openapi/openapi.json) above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

export const openApiJsonPath = (): string => join(packageRoot(), 'openapi', 'openapi.json');
export const openApiYamlPath = (): string => join(packageRoot(), 'openapi', 'openapi.yaml');
