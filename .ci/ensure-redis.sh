#!/usr/bin/env bash
# Makes sure a Redis answers for the distributed-mode tests, and says where.
#
#   .ci/ensure-redis.sh            # then: . .ci/redis.env
#
# Uses TEST_REDIS_URL (default redis://127.0.0.1:6379) when something answers there. Otherwise it
# installs Debian's redis-server if missing, starts one daemonized on a spare loopback port without
# persistence, and uses that. Either way it prints `export TEST_REDIS_URL=…` and writes the same line
# to .ci/redis.env (or $REDIS_ENV_FILE) for .ci/run to source.
#
# Only TEST_REDIS_URL is exported, never REDIS_URL: every server a test starts inherits the
# environment, and REDIS_URL would switch the embedded-mode suite to Redis.
#
# The multi-process suite also starts (and kills) a redis-server of its own, so under CI=true the
# redis-server binary is installed even when a Redis already answers. Exits non-zero, saying why,
# when no Redis can be found or started.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
env_file="${REDIS_ENV_FILE:-$here/redis.env}"
url="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"

# PING through redis-cli when there is one (it handles passwords and TLS), else over bash's /dev/tcp.
answers() {
  local target="$1"
  if command -v redis-cli >/dev/null 2>&1; then
    [ "$(timeout 3 redis-cli -u "$target" ping 2>/dev/null)" = "PONG" ]
    return
  fi
  local hostport="${target#*://}"
  hostport="${hostport#*@}"
  hostport="${hostport%%/*}"
  local host="${hostport%%:*}" port="${hostport##*:}"
  [ "$port" = "$hostport" ] && port=6379
  local reply=""
  if exec 3<>"/dev/tcp/$host/$port" 2>/dev/null; then
    printf 'PING\r\n' >&3
    read -r -t 3 reply <&3 || true
    exec 3>&- 3<&-
  fi
  [ "${reply%$'\r'}" = "+PONG" ]
}

install_redis_server() {
  command -v redis-server >/dev/null 2>&1 && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-redis: redis-server is not installed and apt-get is not available to install it" >&2
    return 1
  fi
  local sudo=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
  echo "ensure-redis: installing Debian's redis-server" >&2
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null; }; then
    echo "ensure-redis: apt-get could not install redis-server" >&2
    return 1
  fi
  command -v redis-server >/dev/null 2>&1 || { echo "ensure-redis: redis-server is still not on PATH after installing it" >&2; return 1; }
}

if answers "$url"; then
  echo "ensure-redis: Redis answers at ${url//\/\/*@/\/\/***@}" >&2
  if [ "${CI:-}" = "true" ] || [ "${CI:-}" = "1" ]; then install_redis_server || exit 1; fi
else
  echo "ensure-redis: nothing answers at ${url//\/\/*@/\/\/***@}; starting a Redis of our own" >&2
  install_redis_server || exit 1
  # A spare port: the first of 6380–6479 where nothing answers and nothing listens.
  port=""
  for candidate in $(seq 6380 6479); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
      port="$candidate"
      break
    fi
  done
  [ -n "$port" ] || { echo "ensure-redis: no free port in 6380-6479" >&2; exit 1; }
  dir="$(mktemp -d "${TMPDIR:-/tmp}/agent-tts-ci-redis.XXXXXX")"
  redis-server --port "$port" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no \
    --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  url="redis://127.0.0.1:$port"
  for _ in $(seq 1 100); do
    answers "$url" && break
    sleep 0.1
  done
  answers "$url" || { echo "ensure-redis: redis-server did not come up; its log:" >&2; cat "$dir/redis.log" >&2; exit 1; }
  echo "ensure-redis: started redis-server on port $port (pid $(cat "$dir/redis.pid"), no persistence, files in $dir)" >&2
fi

line="export TEST_REDIS_URL=$url"
printf '%s\n' "$line" >"$env_file"
printf '%s\n' "$line"
