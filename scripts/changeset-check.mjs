// Asks for a changeset when a published package's shipped files change: `node scripts/changeset-check.mjs <base>`
// compares <base>..HEAD (the breaking-change gate's base, .ci/run) and exits 1 naming every published
// package whose shipped files changed without a changeset in .changeset/ that names it, added or edited
// in the same range. Tests, fixtures and contract suites ship nothing (the packages' `files` leave them
// out), so changing only those needs no changeset; nor does a private package (@agent-tts/bench).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The published packages: folder and name, from the root's workspaces. */
function publishedPackages(root) {
  const workspaces = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces;
  return workspaces
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ dir, name: manifest.name }));
}

/** Whether `file` (relative to its package's folder) ends up in the package's tarball. */
export function isShipped(file) {
  if (/(^|\/)(__fixtures__|testing|node_modules|dist)\//.test(file)) return false;
  if (/\.(test|contract|typecheck)\.[cm]?[jt]s$/.test(file)) return false;
  if (file === 'package.json' || file === 'README.md' || file === 'LICENSE') return true;
  if (file.startsWith('bin/')) return true;
  // Sources compile into dist/; assets (SQL, Lua, HTML, CSS, JSON) are copied beside them.
  return !file.endsWith('.md') && !file.startsWith('tsconfig');
}

/** The package names a changeset's front matter lists. */
export function changesetPackages(text) {
  const front = /^---\n([\s\S]*?)\n---/.exec(text);
  if (!front) return [];
  return [...front[1].matchAll(/^\s*["']?(@[^"':\s]+\/[^"':\s]+)["']?\s*:/gm)].map((m) => m[1]);
}

/** The published packages whose shipped files `changed` touches and that no changeset in `changesets` names. */
export function missingChangesets(packages, changed, changesets) {
  const named = new Set(changesets.flatMap(changesetPackages));
  return packages
    .map((p) => ({ ...p, files: changed.filter((f) => f.startsWith(`${p.dir}/`) && isShipped(f.slice(p.dir.length + 1))) }))
    .filter((p) => p.files.length > 0 && !named.has(p.name));
}

function main() {
  const base = process.argv[2];
  if (!base) {
    console.error('usage: node scripts/changeset-check.mjs <base commit>');
    process.exit(2);
  }
  const root = process.cwd();
  const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  const changed = git('diff', '--name-only', `${base}...HEAD`).split('\n').filter(Boolean);
  // Every changeset added or edited by a commit of the range, read as that commit left it: one that a
  // release in the range consumed (`changeset version` deletes it) still names the packages it carries.
  const changesets = [];
  let commit = '';
  for (const line of git('log', '--diff-filter=AM', '--name-only', '--format=commit %H', `${base}..HEAD`, '--', '.changeset').split('\n')) {
    if (line.startsWith('commit ')) commit = line.slice('commit '.length);
    else if (/^\.changeset\/[^/]+\.md$/.test(line) && line !== '.changeset/README.md') changesets.push(git('show', `${commit}:${line}`));
  }
  const missing = missingChangesets(publishedPackages(root), changed, changesets);
  if (missing.length === 0) {
    console.log(`changesets: every published package whose shipped files changed is named (${changesets.length} changeset(s) in the range)`);
    return;
  }
  console.error('changesets: these published packages changed without a changeset naming them:');
  for (const p of missing) console.error(`  ${p.name}: ${p.files.slice(0, 5).join(', ')}${p.files.length > 5 ? `, … (${p.files.length} files)` : ''}`);
  console.error('Add one with `npm run changeset` (docs/releasing.md), naming each package and its bump, and commit it.');
  process.exit(1);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
