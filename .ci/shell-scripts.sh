#!/usr/bin/env bash
# Prints the repository's shell scripts, NUL-separated, for ShellCheck (.ci/run lint): every tracked
# file named *.sh, and every other tracked file whose first line is a sh or bash shebang (.ci/run, a
# script without the extension). Run from the repository's root, or any git work tree.
set -euo pipefail

git ls-files -z | while IFS= read -r -d '' file; do
  [ -f "$file" ] || continue
  case "$file" in
  *.sh) printf '%s\0' "$file" ;;
  *)
    first="$(head -n 1 "$file" 2>/dev/null | head -c 200 | tr -d '\0')" || first=""
    if [[ "$first" =~ ^\#!.*(/|[[:space:]])(ba)?sh([[:space:]]|$) ]]; then printf '%s\0' "$file"; fi
    ;;
  esac
done
