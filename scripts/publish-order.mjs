// The order in which the public @agent-tts packages are published (scripts/release.sh,
// docs/releasing.md): every package after the workspace packages it depends on, so that no published
// version ever names a version of another package that is not on the registry yet, even when a release
// stops halfway. Derived from the dependencies in each package.json; within one level, the order of
// `workspaces` in the root package.json. Private packages are left out.
// `node scripts/publish-order.mjs` prints one package a line: folder, name, version (tab-separated).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** @param {string} root the workspace root */
function publishOrder(root) {
  const packages = readJson(join(root, 'package.json')).workspaces.map((dir) => ({ dir, ...readJson(join(root, dir, 'package.json')) }));
  const byName = new Map(packages.map((p) => [p.name, p]));
  const internal = (p) =>
    Object.keys({
      ...p.dependencies,
      ...p.optionalDependencies,
      ...p.peerDependencies,
    }).filter((name) => byName.has(name));
  /** @type {Map<string, number>} */
  const levels = new Map();
  const level = (p, path = []) => {
    if (path.includes(p.name)) throw new Error(`dependency cycle: ${[...path, p.name].join(' -> ')}`);
    if (!levels.has(p.name)) {
      const deps = internal(p).map((name) => level(byName.get(name), [...path, p.name]));
      levels.set(p.name, deps.length === 0 ? 0 : 1 + Math.max(...deps));
    }
    return levels.get(p.name);
  };
  for (const p of packages) level(p);
  // A stable sort: within one level, packages keep the order of `workspaces`.
  return packages
    .filter((p) => p.private !== true)
    .sort((a, b) => levels.get(a.name) - levels.get(b.name))
    .map(({ dir, name, version }) => ({ dir, name, version }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const p of publishOrder(join(dirname(fileURLToPath(import.meta.url)), '..'))) {
    console.log(`${p.dir}\t${p.name}\t${p.version}`);
  }
}
