#!/usr/bin/env bash
# Publishes the @agent-tts packages: `npm run release` (docs/releasing.md).
#
# Run it after `npm run version-packages` has turned the pending changesets into versions and
# changelogs and that commit is on main. It builds every package from nothing, then publishes each
# public package whose version is not on the registry yet, in dependency order (a package after the
# packages it depends on: scripts/publish-order.mjs), then tags the versions in git with
# `changeset tag` (@agent-tts/client@1.2.3). @agent-tts/bench is private and never published.
#
# Why not `changeset publish`: it starts up to ten `npm publish` at once, in the order of the workspaces,
# so a package could reach the registry before a dependency it names by exact version, and a release
# that fails halfway could leave such a package published. Here a failure stops the loop, and running
# the script again skips what is already published.
#
#   scripts/release.sh            clean build, publish, tag
#   scripts/release.sh --dry-run  clean build, then `npm pack --dry-run` of each package in publishing
#                                 order: what would go into each tarball; nothing sent, nothing tagged
set -euo pipefail

cd "$(dirname "$0")/.."

dry_run=false
case "${1:-}" in
  '') ;;
  --dry-run) dry_run=true ;;
  *) echo "usage: scripts/release.sh [--dry-run]" >&2; exit 2 ;;
esac

# Pending changesets mean `npm run version-packages` has not run: publishing now would ship the
# current versions without the changes those files describe.
pending=$(find .changeset -maxdepth 1 -name '*.md' ! -name 'README.md' | sort)
if [[ -n "$pending" ]]; then
  echo "release: changesets not yet versioned; run 'npm run version-packages' and commit first:" >&2
  echo "$pending" >&2
  exit 1
fi

# The workspace folders, read from the root package.json so that this list cannot drift from it.
mapfile -t workspaces < <(node -e 'for (const w of require("./package.json").workspaces) console.log(w)')

# A clean build: no stale output of a moved or deleted source file may end up in a tarball. Each
# package builds into its own dist/ (the tsc -b build record lives there too, so nothing is skipped).
for ws in "${workspaces[@]}"; do
  rm -rf "$ws/dist"
done
npm run build

# One line per public package, in publishing order: folder, name, version.
mapfile -t order < <(node scripts/publish-order.mjs)
if [[ ${#order[@]} -eq 0 ]]; then
  echo "release: no package to publish (scripts/publish-order.mjs printed nothing)" >&2
  exit 1
fi

for line in "${order[@]}"; do
  IFS=$'\t' read -r dir name version <<<"$line"
  if $dry_run; then
    # --ignore-scripts: the package's prepack would run the build again.
    npm pack --dry-run --ignore-scripts --workspace "$dir"
    continue
  fi
  # Already on the registry (an earlier run that stopped halfway, or a package left unchanged).
  if [[ "$(npm view "$name@$version" version 2>/dev/null || true)" == "$version" ]]; then
    echo "release: $name@$version is already published, skipped"
    continue
  fi
  # Access public comes from each package's publishConfig. --ignore-scripts: what is published is the
  # clean build above (each package's prepack would run the whole root build again). npm asks for a
  # one-time password when the account needs one.
  echo "release: publishing $name@$version"
  npm publish --ignore-scripts --workspace "$dir"
done

if $dry_run; then
  echo "release: dry run, publishing order:"
  printf '  %s\n' "${order[@]}"
  exit 0
fi

# A git tag for each package version that has none yet (ignored packages are left out).
npx changeset tag
echo "release: push the new tags with 'git push --follow-tags'"
