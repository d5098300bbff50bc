// Copies the committed OpenAPI document (openapi/) into each package that ships it, so that an installed
// package finds it beside itself: the contract (its ./openapi.json and ./openapi.yaml exports), the server
// (/openapi.json, /docs), and the conformance suite (its checker); the mock reads the contract's. The copies are
// build output (.gitignore); `npm run build` and `npm run openapi:gen` refresh them.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const pkg of ['src/contract', 'src/server', 'conformance']) {
  mkdirSync(join(root, pkg, 'openapi'), { recursive: true });
  for (const file of ['openapi.json', 'openapi.yaml']) copyFileSync(join(root, 'openapi', file), join(root, pkg, 'openapi', file));
}
