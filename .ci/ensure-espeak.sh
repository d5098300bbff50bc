#!/usr/bin/env bash
# Makes sure the native speech engine's libraries are installed for the tests that run it
# (src/server/synth/native.ts): Debian's eSpeak NG (libespeak-ng.so.1) and LAME (libmp3lame.so.0).
# Installs the `espeak-ng` and `lame` packages with apt-get when either is missing; exits non-zero when
# it cannot, so that with CI=true the run fails rather than skips.
#
#   .ci/ensure-espeak.sh
set -euo pipefail

found() {
  local file="$1" dir
  for dir in "/usr/lib/$(uname -m)-linux-gnu" /usr/lib64 /usr/lib /usr/local/lib; do
    [ -e "$dir/$file" ] && { echo "$dir/$file"; return 0; }
  done
  return 1
}

if found libespeak-ng.so.1 >/dev/null && found libmp3lame.so.0 >/dev/null; then
  echo "ensure-espeak: $(found libespeak-ng.so.1), $(found libmp3lame.so.0)" >&2
  exit 0
fi
echo "ensure-espeak: the native engine's libraries are missing; installing Debian's espeak-ng and lame packages" >&2
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-espeak: apt-get is not available: install eSpeak NG (libespeak-ng.so.1) and LAME (libmp3lame.so.0)" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq espeak-ng lame >/dev/null
if ! found libespeak-ng.so.1 >/dev/null || ! found libmp3lame.so.0 >/dev/null; then
  echo "ensure-espeak: the packages installed, but libespeak-ng.so.1 or libmp3lame.so.0 is still missing" >&2
  exit 1
fi
echo "ensure-espeak: installed $(found libespeak-ng.so.1), $(found libmp3lame.so.0)" >&2
