#!/usr/bin/env bash
# Makes sure shellcheck is on the PATH for the lint step: installs Debian's shellcheck package with
# apt-get when it is missing; exits non-zero when it cannot, so that the lint step fails rather than
# leaving the shell scripts unchecked.
#
#   .ci/ensure-shellcheck.sh
set -euo pipefail

if command -v shellcheck >/dev/null 2>&1; then
  echo "ensure-shellcheck: $(shellcheck --version | sed -n 's/^version: //p')" >&2
  exit 0
fi
echo "ensure-shellcheck: no shellcheck on the PATH; installing Debian's shellcheck package" >&2
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-shellcheck: apt-get is not available: install shellcheck (https://www.shellcheck.net)" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq shellcheck >/dev/null
command -v shellcheck >/dev/null 2>&1 || { echo "ensure-shellcheck: the shellcheck package installed, but shellcheck is not on the PATH" >&2; exit 1; }
echo "ensure-shellcheck: installed $(shellcheck --version | sed -n 's/^version: //p')" >&2
