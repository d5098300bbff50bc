// Copies what the build must ship beside the compiled code but tsc does not emit:
// - the committed OpenAPI document (openapi/) into each package that ships it, so that an installed package
//   finds it beside itself: the contract (its ./openapi.json and ./openapi.yaml exports), the server
//   (/openapi.json, /docs), the conformance suite (its checker) and the sandbox (whose bundle of the server's
//   and the suite's code looks for it beside its package.json: scripts/build-sandbox.mjs); the mock reads the contract's;
// - the server's storage scripts (Redis Lua scripts, the SQLite schema: `*.lua`, `*.sql` under src/server),
//   each to the same place under src/server/dist/, where the compiled adapter beside it reads it.
// The copies are build output (.gitignore); `npm run build` and `npm run openapi:gen` refresh them.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const pkg of ['src/contract', 'src/server', 'conformance', 'src/sandbox']) {
  mkdirSync(join(root, pkg, 'openapi'), { recursive: true });
  for (const file of ['openapi.json', 'openapi.yaml']) copyFileSync(join(root, 'openapi', file), join(root, pkg, 'openapi', file));
}

const server = join(root, 'src/server');
for (const entry of readdirSync(server, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !/\.(lua|sql)$/.test(entry.name)) continue;
  const from = join(entry.parentPath, entry.name);
  const path = relative(server, from);
  if (path.startsWith('dist/') || path.startsWith('node_modules/')) continue;
  mkdirSync(dirname(join(server, 'dist', path)), { recursive: true });
  copyFileSync(from, join(server, 'dist', path));
}
