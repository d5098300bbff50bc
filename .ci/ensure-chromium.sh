#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the browser tests (playwright-core drives
# it; no browser is ever downloaded by a test). Installs the `chromium` package with apt-get when it
# is missing; exits non-zero when it cannot, so that with CI=true the run fails rather than skips.
#
#   .ci/ensure-chromium.sh
set -euo pipefail

path="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$path" ]; then
  echo "ensure-chromium: $("$path" --version 2>/dev/null || echo "$path")" >&2
  exit 0
fi
echo "ensure-chromium: no Chromium at $path; installing Debian's chromium package" >&2
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: apt-get is not available: install Chromium at $path (or set CHROMIUM_PATH)" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
if [ ! -x "$path" ]; then
  echo "ensure-chromium: the chromium package installed, but nothing is at $path" >&2
  exit 1
fi
echo "ensure-chromium: installed $("$path" --version 2>/dev/null || echo "$path")" >&2
