#!/usr/bin/env bash
# Packs every published @agent-tts package with `npm pack`, installs each into an EMPTY directory
# (with only the sibling tarballs it depends on), and from there:
#   - measures the budgets and fails when one is crossed: the client (no native build,
#     <= 3 packages, <= 2 MB, a browser bundle of a submit-and-poll program <= 25 KB gzipped), the
#     conformance suite (no native build, no server/Redis/AWS/Prism/synthesis packages, installed in
#     < 30 s from a warm cache) and the contract (its declared dependencies only, enough to bind a
#     Hono handler to a route);
#   - runs every command every package ships: server, admin, worker, CLI, agent tool, conformance
#     suite, load tool, mock, sandbox.
# It ends with a budget table for CI's log. Usage: bash scripts/pack-smoke.sh   (.ci/run pack)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
packs="$work/packs"
esbuild="$root/node_modules/.bin/esbuild"

# --- budgets: change them only with a reason written in the commit -------------------
CLIENT_MAX_PACKAGES=3
CLIENT_MAX_KB=2048
CLIENT_BUNDLE_MAX_GZ_BYTES=$((25 * 1024))
CONFORMANCE_MAX_INSTALL_SECONDS=30
# Nothing a suite that only speaks HTTP to a deployment needs: the server and what carries its weight.
CONFORMANCE_FORBIDDEN='^(@agent-tts/(server|sandbox|mock)|redis|@redis/.*|ioredis|bullmq|@aws-sdk/.*|@stoplight/prism.*|@echogarden/.*|wasm-media-encoders|better-sqlite3|piscina|hono|@hono/.*)$'
# A test-time dependency as light as one: the sandbox with its siblings (contract, client). The aim was 40
# packages, 40 MB, 15 s and no install script; with the server as a dependency it stood at 52 packages
# and 76 MB (eSpeak's WebAssembly build, Swagger UI's files and their install script, the MP3 encoder, the
# thread pool, the conformance suite's MP3 decoder), installed in 24 s. Since the sandbox is published as
# one build with the server's code it runs inlined (scripts/build-sandbox.mjs), none of those is
# installed; Redis, BullMQ, the AWS SDK, better-sqlite3 and koffi stay out too. Reached: 36 packages,
# 27.5 MB, installed in 7 s beside the server's install. The budgets only go down.
SANDBOX_MAX_PACKAGES=40
SANDBOX_MAX_KB=$((40 * 1024))
SANDBOX_MAX_INSTALL_SECONDS=15
# No install script and no native build, none at all.
SANDBOX_NATIVE_BUILD_ALLOWED='^$'
# None of the server's optional peer dependencies in the sandbox's tree: no object store, queue or Redis
# code, no SQLite driver or native binding (nor what builds them).
SANDBOX_FORBIDDEN='^(redis|@redis/.*|ioredis|bullmq|@aws-sdk/.*|@smithy/.*|better-sqlite3|koffi|@koromix/.*|prebuild-install|node-gyp)$'
# What an implementer binding their own Hono handlers needs: the route definitions' library and zod.
CONTRACT_DEPENDENCIES='@hono/zod-openapi zod'

# Every other published package: a ceiling on its installed packages and size (what was measured on
# 2026-11-28 with a little headroom: they only go down), and the install scripts or native builds it may
# run (name and why, as the closure reports them; anything else joining fails).
declare -A MAX_PACKAGES=([@agent-tts/conformance]=15 [@agent-tts/contract]=8 [@agent-tts/mcp]=105 [@agent-tts/load]=6 [@agent-tts/mock]=200 [@agent-tts/server]=75)
declare -A MAX_MB=([@agent-tts/conformance]=17 [@agent-tts/contract]=16 [@agent-tts/mcp]=33 [@agent-tts/load]=12 [@agent-tts/mock]=120 [@agent-tts/server]=100)
declare -A ALLOWED_NATIVE=([@agent-tts/server]='^(@scarf/scarf|better-sqlite3) ')

# --- processes and temp dirs: everything started here is stopped on exit ------------------------
pids=()
table=()
kill_tree() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null || true); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do kill_tree "$pid"; done
  wait 2>/dev/null || true
  print_table
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

fail() { echo "pack-smoke: FAILED: $*" >&2; exit 1; }
now() { date +%s.%N; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_for() { for _ in $(seq 1 60); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.5; done; fail "no answer from $1"; }
# JSON field of a file: json FILE 'expression of j'
json() { node -e 'const j = require(process.argv[1]); const v = (0, eval)("(j) => " + process.argv[2])(j); console.log(Array.isArray(v) ? v.join(" ") : v)' "$1" "$2"; }

# The budget table, printed at the end (and on failure, with what was measured so far).
table_row() { table+=("$(printf '%-24s %9s %8s %10s %12s' "$@")"); }
print_table() {
  [ "${#table[@]}" -gt 0 ] || return 0
  echo
  echo "== budgets, measured from the tarballs installed into empty directories"
  printf '%-24s %9s %8s %10s %12s\n' "package" "packages" "MB" "install s" "bundle KB gz"
  printf '%s\n' "${table[@]}"
}

# --- pack and install ----------------------------------------------------------------------------
tarball() { ls "$packs"/agent-tts-"$1"-[0-9]*.tgz; }

# install_into DIR TARBALL...: DIR is created empty and gets exactly these tarballs (npm takes the
# @agent-tts siblings they depend on, by exact version, from the tarballs given together); the time
# taken goes to DIR.seconds and npm's output to DIR.log.
install_into() {
  local dir="$1" start; shift
  mkdir -p "$dir"
  echo "{\"name\":\"pack-smoke-$(basename "$dir")\",\"private\":true}" >"$dir/package.json"
  start="$(now)"
  if ! (cd "$dir" && npm install --no-audit --no-fund --prefer-offline "$@" >"$dir.log" 2>&1); then
    tail -40 "$dir.log" >&2
    fail "npm install of $(for t in "$@"; do basename "$t"; done | tr '\n' ' ')into an empty directory"
  fi
  seconds_since "$start" >"$dir.seconds"
}

# closure DIR: what DIR/node_modules holds, as JSON in DIR.closure.json: every installed package (a
# directory with a package.json under node_modules or a scope of it, nested node_modules included),
# those that build natively (binding.gyp, an install script, a build/Release), where npm took each
# @agent-tts package from, and the size in KB.
closure() {
  node - "$1" >"$1.closure.json" <<'EOF'
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const dir = process.argv[2];
const packages = [];
const native = [];
function visit(pkgDir) {
  const file = path.join(pkgDir, 'package.json');
  if (!fs.existsSync(file)) return;
  const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
  packages.push(pkg.name);
  const why = [];
  if (fs.existsSync(path.join(pkgDir, 'binding.gyp'))) why.push('binding.gyp');
  for (const script of ['preinstall', 'install', 'postinstall']) if (pkg.scripts?.[script]) why.push(`${script} script`);
  if (fs.existsSync(path.join(pkgDir, 'build', 'Release'))) why.push('build/Release');
  if (why.length > 0) native.push(`${pkg.name} (${why.join(', ')})`);
  walk(path.join(pkgDir, 'node_modules'));
}
function walk(nodeModules) {
  if (!fs.existsSync(nodeModules)) return;
  for (const entry of fs.readdirSync(nodeModules)) {
    if (entry.startsWith('.')) continue; // .bin, .package-lock.json
    const entryDir = path.join(nodeModules, entry);
    if (entry.startsWith('@')) for (const scoped of fs.readdirSync(entryDir)) visit(path.join(entryDir, scoped));
    else visit(entryDir);
  }
}
walk(path.join(dir, 'node_modules'));
const lock = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', '.package-lock.json'), 'utf8'));
const resolved = Object.entries(lock.packages)
  .filter(([where]) => /(^|\/)node_modules\/@agent-tts\//.test(where))
  .map(([where, entry]) => `${where.replace(/^.*node_modules\//, '')}=${entry.resolved}`);
const kb = Number(execFileSync('du', ['-sk', path.join(dir, 'node_modules')], { encoding: 'utf8' }).split('\t')[0]);
console.log(JSON.stringify({ packages: packages.sort(), native, resolved, kb }));
EOF
}

# measure NAME DIR [BUNDLE]: the closure of DIR, its checks common to every package, and a table row.
measure() {
  local name="$1" dir="$2" bundle="${3:--}" file
  closure "$dir"
  file="$dir.closure.json"
  # Every @agent-tts package comes from a tarball of this run, never from the registry.
  for entry in $(json "$file" 'j.resolved'); do
    case "${entry#*=}" in file:*.tgz) ;; *) fail "$name: npm took ${entry%%=*} from ${entry#*=}, not from its tarball" ;; esac
  done
  table_row "$name" "$(json "$file" 'j.packages.length')" "$(json "$file" '(j.kb / 1024).toFixed(1)')" "$(cat "$dir.seconds")" "$bundle"
  budgets "$name" "$file"
}
# The ceilings of MAX_PACKAGES, MAX_MB and ALLOWED_NATIVE, for the packages they name.
budgets() {
  local name="$1" file="$2" count kb native
  [ -n "${MAX_PACKAGES[$name]:-}" ] || return 0
  count="$(json "$file" 'j.packages.length')"
  kb="$(json "$file" 'j.kb')"
  [ "$count" -le "${MAX_PACKAGES[$name]}" ] || fail "$name installs $count packages (budget ${MAX_PACKAGES[$name]})"
  [ "$kb" -le "$((MAX_MB[$name] * 1024))" ] || fail "$name takes $kb KB installed (budget ${MAX_MB[$name]} MB)"
  native="$(json "$file" "j.native.filter((n) => !new RegExp('${ALLOWED_NATIVE[$name]:-^$}').test(n)).join(', ')")"
  [ -z "$native" ] || fail "$name runs install scripts or native builds beyond those allowed: $native"
}
no_native_build() {
  local native
  native="$(json "$1.closure.json" 'j.native.join(", ")')"
  [ -z "$native" ] || fail "$2 installs packages that build natively: $native"
}
# Every installed @agent-tts package has the README its package.json lists in "files".
has_readmes() {
  for pkg in "$1"/node_modules/@agent-tts/*; do
    [ -s "$pkg/README.md" ] || fail "$(basename "$1"): @agent-tts/$(basename "$pkg") was installed without its README.md"
  done
}

echo "== build once (the packages' prepack scripts would each run the root build), then pack"
(cd "$root" && npm run build --silent)
mkdir -p "$packs"
# The published packages: the release's own list (folder, name, version), names only.
published="$(node "$root/scripts/publish-order.mjs" | cut -f2)"
# --ignore-scripts: prepack is the build just done.
workspace_flags=()
for name in $published; do workspace_flags+=(-w "$name"); done
(cd "$root" && npm pack --silent --ignore-scripts --pack-destination "$packs" "${workspace_flags[@]}" >/dev/null)
for name in $published; do tarball "${name#@agent-tts/}" >/dev/null || fail "npm pack wrote no tarball of $name"; done
echo "packed: $(cd "$packs" && printf '%s ' *.tgz)"

# --- the light packages, one at a time on a quiet machine (the install time is a budget) ---------
echo "== @agent-tts/conformance alone (an install first warms the npm cache; the second one is timed)"
install_into "$work/warm-up" "$(tarball conformance)"
install_into "$work/conformance" "$(tarball conformance)"
echo "== @agent-tts/client alone"
install_into "$work/client" "$(tarball client)"
echo "== @agent-tts/contract alone"
install_into "$work/contract" "$(tarball contract)"

# The server on Node before 24 gets better-sqlite3 beside it, as an operator installs it (an optional
# peer dependency: the embedded store's driver where Node has no node:sqlite); it compiles where no
# prebuilt binary can be fetched (minutes), so the two heavy installs run in the background while the
# light packages are checked. The sandbox gets nothing beside its tarballs.
server_extra=()
if [ "$(node -p 'Number(process.versions.node.split(".")[0])')" -lt 24 ]; then
  server_extra+=("better-sqlite3@$(json "$root/src/server/package.json" 'j.peerDependencies["better-sqlite3"]')")
fi
echo "== @agent-tts/server (+contract${server_extra:+, ${server_extra[*]}}) and @agent-tts/sandbox (+contract, client), in the background"
install_into "$work/server" "$(tarball server)" "$(tarball contract)" "${server_extra[@]}" &
pids+=($!); server_install=$!
install_into "$work/sandbox" "$(tarball sandbox)" "$(tarball contract)" "$(tarball client)" &
pids+=($!); sandbox_install=$!

# --- client budget -------------------------------------------------------------------------------
echo "== client budget: no native build, <= $CLIENT_MAX_PACKAGES packages, <= $((CLIENT_MAX_KB / 1024)) MB, a submit-and-poll bundle <= $((CLIENT_BUNDLE_MAX_GZ_BYTES / 1024)) KB gzipped"
client="$work/client"
# The program sits beside the installed client, so esbuild (and node, below) resolve
# '@agent-tts/client' from the tarball's install, not from this workspace.
cp "$root/scripts/budget/submit-and-poll.ts" "$client/"
"$esbuild" "$client/submit-and-poll.ts" --bundle --minify --platform=browser --format=esm \
  --outfile="$client/bundle.js" --log-level=warning
bundle_gz="$(gzip -c "$client/bundle.js" | wc -c)"
measure "@agent-tts/client" "$client" "$(awk -v b="$bundle_gz" 'BEGIN { printf "%.1f", b / 1024 }')"
no_native_build "$client" "@agent-tts/client"
count="$(json "$client.closure.json" 'j.packages.length')"
[ "$count" -le "$CLIENT_MAX_PACKAGES" ] ||
  fail "@agent-tts/client installs $count packages (budget $CLIENT_MAX_PACKAGES): $(json "$client.closure.json" 'j.packages')"
kb="$(json "$client.closure.json" 'j.kb')"
[ "$kb" -le "$CLIENT_MAX_KB" ] || fail "@agent-tts/client takes $kb KB installed (budget $CLIENT_MAX_KB KB)"
[ "$bundle_gz" -le "$CLIENT_BUNDLE_MAX_GZ_BYTES" ] ||
  fail "the submit-and-poll browser bundle is $bundle_gz bytes gzipped (budget $CLIENT_BUNDLE_MAX_GZ_BYTES)"
echo "client: $count packages ($(json "$client.closure.json" 'j.packages')), $kb KB, bundle $bundle_gz bytes gzipped"
# The same program for Node (types stripped, imports kept), run against the server further down.
"$esbuild" "$client/submit-and-poll.ts" --format=esm --platform=node --outfile="$client/submit-and-poll.mjs" --log-level=warning
# shellcheck disable=SC2016 # a JavaScript program: its ${…} are JavaScript's, not the shell's
(cd "$client" && node --input-type=module -e '
  const client = await import("@agent-tts/client");
  await import("@agent-tts/client/node");
  if (typeof client.AgentTtsClient !== "function") throw new Error("@agent-tts/client lacks AgentTtsClient");
')
echo "== agent-tts mcp from the client alone: says how to install @agent-tts/mcp, exits 2"
set +e
"$client/node_modules/.bin/agent-tts" mcp </dev/null >"$work/mcp-missing.log" 2>&1
code=$?
set -e
[ "$code" = 2 ] || { cat "$work/mcp-missing.log"; fail "agent-tts mcp without @agent-tts/mcp exited $code, not 2"; }
grep -q "npm install @agent-tts/mcp" "$work/mcp-missing.log" || { cat "$work/mcp-missing.log"; fail "agent-tts mcp does not say how to install @agent-tts/mcp"; }

# --- conformance budget --------------------------------------------------------------------------
echo "== conformance budget: no native build, no server/Redis/AWS/Prism/synthesis packages, < ${CONFORMANCE_MAX_INSTALL_SECONDS} s from a warm cache"
conformance="$work/conformance"
measure "@agent-tts/conformance" "$conformance"
no_native_build "$conformance" "@agent-tts/conformance"
forbidden="$(json "$conformance.closure.json" "j.packages.filter((n) => new RegExp('$CONFORMANCE_FORBIDDEN').test(n))")"
[ -z "$forbidden" ] || fail "@agent-tts/conformance pulls $forbidden"
seconds="$(cat "$conformance.seconds")"
awk -v s="$seconds" -v max="$CONFORMANCE_MAX_INSTALL_SECONDS" 'BEGIN { exit !(s < max) }' ||
  fail "@agent-tts/conformance took $seconds s to install (budget < $CONFORMANCE_MAX_INSTALL_SECONDS s)"
echo "conformance: $(json "$conformance.closure.json" 'j.packages.length') packages, $(json "$conformance.closure.json" 'j.kb') KB, installed in $seconds s"

# --- contract budget -----------------------------------------------------------------------------
echo "== contract budget: its declared dependencies only, and enough to bind a Hono handler to a route"
contract="$work/contract"
measure "@agent-tts/contract" "$contract"
declared="$(json "$contract/node_modules/@agent-tts/contract/package.json" 'Object.keys({ ...j.dependencies, ...j.optionalDependencies, ...j.peerDependencies }).sort()')"
[ "$declared" = "$CONTRACT_DEPENDENCIES" ] || fail "@agent-tts/contract depends on '$declared', not on '$CONTRACT_DEPENDENCIES'"
others="$(json "$contract.closure.json" "j.packages.filter((n) => n.startsWith('@agent-tts/') && n !== '@agent-tts/contract')")"
[ -z "$others" ] || fail "@agent-tts/contract pulls $others"
# shellcheck disable=SC2016 # a JavaScript program: its ${…} are JavaScript's, not the shell's
(cd "$contract" && node --input-type=module -e '
  import { OpenAPIHono } from "@hono/zod-openapi";
  import { API_VERSION, ConformanceFixtures } from "@agent-tts/contract";
  import { getJobRoute } from "@agent-tts/contract/routes.js";
  if (typeof ConformanceFixtures?.safeParse !== "function") throw new Error("@agent-tts/contract lacks ConformanceFixtures");
  const app = new OpenAPIHono();
  let handled = 0;
  app.openapi(getJobRoute, (c) => {
    handled++;
    const { id } = c.req.valid("query");
    return c.json({ success: false, error: { code: "NOT_FOUND", message: `No job ${id}.` }, meta: { request_id: crypto.randomUUID(), api_version: API_VERSION } }, 404);
  });
  const found = await app.request(`/v1/agent-tts?id=${crypto.randomUUID()}`);
  if (found.status !== 404 || (await found.json()).error.code !== "NOT_FOUND" || handled !== 1) throw new Error(`the bound handler answered ${found.status}`);
  // The route validates the query before the handler runs.
  const refused = await app.request("/v1/agent-tts?id=not-a-uuid");
  if (refused.status !== 400 || handled !== 1) throw new Error(`a bad id got ${refused.status} (handler ran ${handled} times)`);
  const document = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "pack-smoke", version: "1" } });
  if (!document.paths?.["/v1/agent-tts"]?.get) throw new Error("the bound route is not in the app document");
')
echo "contract: $(json "$contract.closure.json" 'j.packages.length') packages ($(json "$contract.closure.json" 'j.packages')), $(json "$contract.closure.json" 'j.kb') KB"

# --- the agent tool, the load tool, the mock: installed and run while the server installs --------
echo "== @agent-tts/mcp (+client): agent-tts-mcp and agent-tts mcp start on stdio"
mcp="$work/mcp"
install_into "$mcp" "$(tarball mcp)" "$(tarball client)"
measure "@agent-tts/mcp" "$mcp"
for command in "agent-tts-mcp" "agent-tts mcp"; do
  # stdin closed: the server says it is ready on stderr, then ends with its input.
  # shellcheck disable=SC2086
  timeout 30 "$mcp"/node_modules/.bin/$command </dev/null >"$work/mcp.out" 2>"$work/mcp.err" || true
  grep -q "ready on stdio" "$work/mcp.err" || { cat "$work/mcp.err"; fail "$command printed no 'ready on stdio'"; }
done

echo "== @agent-tts/load"
load="$work/load"
install_into "$load" "$(tarball load)"
measure "@agent-tts/load" "$load"
"$load/node_modules/.bin/agent-tts-load" --help | grep "open-loop arrival rate" >/dev/null || fail "agent-tts-load --help"

echo "== @agent-tts/mock (+contract): answers 202 from the document"
mock="$work/mock"
install_into "$mock" "$(tarball mock)" "$(tarball contract)"
measure "@agent-tts/mock" "$mock"
mock_port="$(free_port)"
"$mock/node_modules/.bin/agent-tts-mock" --port "$mock_port" >"$work/mock-run.log" 2>&1 &
pids+=($!); mock_pid=$!
code=""
for _ in $(seq 1 60); do
  code="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer tts_00000000_$(printf '%048d' 0)" -H 'Prefer: code=202, example=processing' -X POST -H 'Content-Type: application/json' -d '{"text":"hi"}' "http://127.0.0.1:$mock_port/v1/agent-tts" || true)"
  [ "$code" = "202" ] && break
  sleep 0.5
done
[ "$code" = "202" ] || { cat "$work/mock-run.log"; fail "agent-tts-mock did not answer 202"; }
kill_tree "$mock_pid"

# --- the server, worker and admin ----------------------------------------------------------------
echo "== waiting for the server's install"
wait "$server_install" || fail "installing @agent-tts/server"
server="$work/server"
measure "@agent-tts/server" "$server"
bin="$server/node_modules/.bin"
PORT="$(free_port)"
VOICES_PORT="$(free_port)"
export DATA_DIR="$work/data" PORT VOICES_PORT SYNTH_THREADS=1
base="http://127.0.0.1:$PORT"

echo "== agent-tts-server"
# INLINE_WAIT_MS=0: every POST answers 202 at once, so the CLI and the submit-and-poll program poll.
INLINE_WAIT_MS=0 "$bin/agent-tts-server" >"$work/server-run.log" 2>&1 &
pids+=($!)
wait_for "$base/healthz"

echo "== agent-tts-admin seed"
"$bin/agent-tts-admin" seed --out "$work/fixtures.json"
key="$(json "$work/fixtures.json" 'j.keys.active[0]')"

echo "== the dashboard (a sign-in link from agent-tts-admin) and the API reference"
account="$("$bin/agent-tts-admin" account create --name pack-smoke --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))')"
link="$("$bin/agent-tts-admin" account sign-in-link "$account" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).url))')"
# Opening the link shows a button and spends nothing; its form's POST signs in.
code="$(curl -s -o /dev/null -w '%{http_code}' "$link")"
[ "$code" = "200" ] || fail "the sign-in link answered $code, not 200"
code="$(curl -s -o /dev/null -w '%{http_code}' --data-urlencode "token=${link#*token=}" "${link%%\?*}")"
[ "$code" = "303" ] || fail "signing in with the link's token answered $code, not 303"
for path in /docs /docs/assets/swagger-ui-bundle.js /docs/assets/swagger-ui.css /openapi.json /openapi.yaml /dashboard/assets/dashboard.css; do
  curl -fs -o /dev/null "$base$path" || fail "no $path from the installed server"
done

echo "== agent-tts speak and voices (the client's CLI, from the client alone)"
AGENT_TTS_API_KEY="$key" AGENT_TTS_BASE_URL="$base" "$client/node_modules/.bin/agent-tts" speak "Installed from a tarball." -o "$work/out.mp3"
test -s "$work/out.mp3" || fail "agent-tts speak wrote no audio"
AGENT_TTS_VOICES_URL="http://127.0.0.1:$VOICES_PORT" "$client/node_modules/.bin/agent-tts" voices --language fr --json >/dev/null

echo "== the client budget's submit-and-poll program, under Node, against the running server"
# Another key: each key of the seed may POST once a minute here, and speak used the first.
# shellcheck disable=SC2016 # a JavaScript program: its ${…} are JavaScript's, not the shell's
(cd "$client" && node --input-type=module -e '
  const { submitAndPoll } = await import("./submit-and-poll.mjs");
  const result = await submitAndPoll(process.argv[1], process.argv[2], "A submit-and-poll program, from the tarball.");
  if (result.submitStatus !== 202 || !(result.audioBytes > 0) || !/^audio\//.test(result.contentType ?? "")) {
    throw new Error(`not a polled job with audio: ${JSON.stringify(result)}`);
  }
  console.log(`job ${result.jobId}: submitted (${result.submitStatus}), completed, ${result.audioBytes} bytes of ${result.contentType}`);
' "$base" "$(json "$work/fixtures.json" 'j.keys.active[1]')")

echo "== agent-tts-conformance (the auth rules, from the conformance suite alone) against the server"
"$conformance/node_modules/.bin/agent-tts-conformance" --fixtures "$work/fixtures.json" --only 'auth.*' --out-dir "$work/conformance-auth"

echo "== agent-tts-load (a short run on fresh keys: each key may POST once a minute here)"
"$bin/agent-tts-admin" seed --out "$work/load-fixtures.json" >/dev/null
"$load/node_modules/.bin/agent-tts-load" --fixtures "$work/load-fixtures.json" --rate 0.1 --duration 20s --mix short=100 \
  --threshold 'success_rate>=1' --out-dir "$work/load-run" --quiet
for f in results.json report.md report.html; do test -s "$work/load-run/$f" || fail "agent-tts-load wrote no $f"; done
[ "$(json "$work/load-run/results.json" 'j.figures.submissions.completed')" = 2 ] ||
  fail "agent-tts-load completed $(json "$work/load-run/results.json" 'JSON.stringify(j.figures.submissions)')"
if "$load/node_modules/.bin/agent-tts-load" --fixtures "$work/load-fixtures.json" --rate 5 >/dev/null 2>&1; then
  fail "agent-tts-load accepted a rate the keys do not allow"
fi

echo "== agent-tts-worker (without REDIS_URL it must refuse, plainly)"
if env -u REDIS_URL "$bin/agent-tts-worker" >"$work/worker.log" 2>&1; then fail "agent-tts-worker started without Redis"; fi
grep -q "REDIS_URL is not set" "$work/worker.log" || { cat "$work/worker.log"; fail "agent-tts-worker did not say REDIS_URL is not set"; }
"$bin/agent-tts-worker" --help | grep "synthesis worker" >/dev/null || fail "agent-tts-worker --help"

echo "== --help of the server (it starts nothing) and a stray argument (refused)"
"$bin/agent-tts-server" --help | grep "environment variables" >/dev/null || fail "agent-tts-server --help"
if "$bin/agent-tts-server" --port 1 >/dev/null 2>&1; then fail "agent-tts-server accepted --port"; fi

# --- the sandbox ---------------------------------------------------------------------------------
echo "== waiting for the sandbox's install"
wait "$sandbox_install" || fail "installing @agent-tts/sandbox"
sandbox="$work/sandbox"
measure "@agent-tts/sandbox" "$sandbox"
echo "== sandbox budget: no object-store, queue, Redis, SQLite-driver or native-binding package, no native build or install script but those allowed, <= $SANDBOX_MAX_PACKAGES packages, <= $((SANDBOX_MAX_KB / 1024)) MB, < $SANDBOX_MAX_INSTALL_SECONDS s"
forbidden="$(json "$sandbox.closure.json" "j.packages.filter((n) => new RegExp('$SANDBOX_FORBIDDEN').test(n))")"
[ -z "$forbidden" ] || fail "@agent-tts/sandbox pulls $forbidden"
native="$(json "$sandbox.closure.json" "j.native.filter((n) => !new RegExp('$SANDBOX_NATIVE_BUILD_ALLOWED').test(n)).join(', ')")"
[ -z "$native" ] || fail "@agent-tts/sandbox installs packages that build natively: $native"
count="$(json "$sandbox.closure.json" 'j.packages.length')"
[ "$count" -le "$SANDBOX_MAX_PACKAGES" ] || fail "@agent-tts/sandbox installs $count packages (budget $SANDBOX_MAX_PACKAGES)"
kb="$(json "$sandbox.closure.json" 'j.kb')"
[ "$kb" -le "$SANDBOX_MAX_KB" ] || fail "@agent-tts/sandbox takes $kb KB installed (budget $SANDBOX_MAX_KB KB)"
seconds="$(cat "$sandbox.seconds")"
awk -v s="$seconds" -v max="$SANDBOX_MAX_INSTALL_SECONDS" 'BEGIN { exit !(s < max) }' || fail "@agent-tts/sandbox took $seconds s to install (budget < $SANDBOX_MAX_INSTALL_SECONDS s)"

echo "== agent-tts-sandbox (prints its URL and keys, writes conformance fixtures, answers marked)"
# The flags win over PORT and VOICES_PORT, which this shell exports for the server above.
"$sandbox/node_modules/.bin/agent-tts-sandbox" --port 0 --voices-port 0 --out "$work/sandbox-fixtures.json" >"$work/sandbox-run.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do grep -q "Started in" "$work/sandbox-run.log" && break; sleep 0.5; done
sandbox_url="$(grep -o 'agent-tts sandbox on http://[0-9.:]*' "$work/sandbox-run.log" | cut -d' ' -f4 || true)"
[ -n "$sandbox_url" ] || { cat "$work/sandbox-run.log"; fail "agent-tts-sandbox printed no URL"; }
grep -q "tts_" "$work/sandbox-run.log" || { cat "$work/sandbox-run.log"; fail "agent-tts-sandbox printed no keys"; }
curl -fsi "$sandbox_url/sandbox" | grep -qi '^agent-tts-sandbox: 1' || fail "no Agent-TTS-Sandbox header"
# What the bundled server reads beside itself: the OpenAPI document, shipped in the sandbox's openapi/.
for doc in openapi.json openapi.yaml; do
  if ! { curl -fs -o "$work/sandbox-$doc" "$sandbox_url/$doc" && grep -q 'openapi' "$work/sandbox-$doc"; }; then fail "the sandbox does not serve /$doc"; fi
done
# Swagger UI is not shipped: the reference page says so, with a 404 instead of a 500.
docs_status="$(curl -s -o "$work/sandbox-docs.txt" -w '%{http_code}' "$sandbox_url/docs")"
if ! { [ "$docs_status" = 404 ] && grep -q 'swagger-ui-dist' "$work/sandbox-docs.txt"; }; then fail "the sandbox's /docs answered $docs_status: $(cat "$work/sandbox-docs.txt")"; fi
node -e 'const f=require(process.argv[1]); if (!f.clock || f.keys.active.length < 8) process.exit(1)' "$work/sandbox-fixtures.json" ||
  fail "the sandbox's fixtures have no clock or fewer than 8 active keys"

echo "== agent-tts-conformance --strict (from the conformance suite alone) against the sandbox: every rule, time moved on its test clock"
"$conformance/node_modules/.bin/agent-tts-conformance" --fixtures "$work/sandbox-fixtures.json" --strict --quiet --out-dir "$work/conformance-sandbox"
(cd "$sandbox" && node --input-type=module -e 'import { startSandbox } from "@agent-tts/sandbox"; const s = await startSandbox(); await s.clock.advance(1); await s.stop();')
# The same installed directory on Node 24 (PACK_NODE24: a node binary, which .ci/run's pack step gives):
# a job made and its audio fetched, as on the machine's Node above.
# shellcheck disable=SC2016 # a JavaScript program: its ${…} are JavaScript's, not the shell's
sandbox_job='import { startSandbox } from "@agent-tts/sandbox";
const s = await startSandbox();
const r = await fetch(`${s.baseUrl}/v1/agent-tts`, { method: "POST", headers: { authorization: `Bearer ${s.keys.active_pro}`, "content-type": "application/json" }, body: JSON.stringify({ text: "Hello from Node " + process.versions.node }) });
const job = await r.json();
const audio = job.status === "completed" ? await fetch(job.audio_url) : undefined;
const bytes = audio ? (await audio.arrayBuffer()).byteLength : 0;
await s.stop();
if (r.status !== 200 || bytes === 0) { console.error(`POST ${r.status}, ${job.status}, ${bytes} audio bytes`); process.exit(1); }
console.log(`startSandbox on Node ${process.versions.node}: a job completed, ${bytes} bytes of audio`);'
(cd "$sandbox" && node --input-type=module -e "$sandbox_job") || fail "startSandbox and a job from the installed tarball on $(node --version)"
if [ -n "${PACK_NODE24:-}" ]; then
  (cd "$sandbox" && "$PACK_NODE24" --input-type=module -e "$sandbox_job") || fail "startSandbox and a job from the installed tarball on Node 24 ($PACK_NODE24)"
elif [ "${CI:-}" = true ]; then
  fail "PACK_NODE24 is not set: the installed sandbox is not tried on Node 24 (.ci/run pack sets it)"
else
  echo "(PACK_NODE24 not set: the installed sandbox is tried on $(node --version) only)"
fi
# validateResponses runs the conformance suite's check of the document, bundled in (ajv installed beside).
# shellcheck disable=SC2016 # a JavaScript program: its ${…} are JavaScript's, not the shell's
(cd "$sandbox" && node --input-type=module -e '
import { startSandbox } from "@agent-tts/sandbox";
const s = await startSandbox({ validateResponses: true });
const res = await fetch(`${s.baseUrl}/v1/agent-tts/jobs/unknown`, { headers: { authorization: `Bearer ${s.keys.active_pro}` } });
await s.stop();
if (res.status >= 500) throw new Error(`a poll of an unknown job answered ${res.status}`);
s.journal.expectNoFlags();') || fail "startSandbox({ validateResponses: true }) from the installed tarball"

echo "== a consumer's TypeScript using startSandbox typechecks against the installed declarations (skipLibCheck: false)"
cat >"$sandbox/consumer.mts" <<'TS'
import { type RunningSandbox, type StartSandboxOptions, ClockError, isLoopbackHost, MAX_CLOCKS, SANDBOX_HEADER, startSandbox } from '@agent-tts/sandbox';

const options: StartSandboxOptions = { port: 0, env: { RATE_POST_LIMIT: '5' }, validateResponses: true };
const sandbox: RunningSandbox = await startSandbox(options);
const key: string = sandbox.keys.active_pro;
const frozen: boolean = (await sandbox.clock.advance(60)).frozen;
const clock = await sandbox.createClock({ freeze: true });
const fixtures = await sandbox.fixtures({ active: 8 });
const flagged: number = sandbox.journal.flags({ method: 'POST' }).length;
const loopback: boolean = isLoopbackHost('127.0.0.1');
console.log(key, frozen, clock.id, clock.keys.revoked, fixtures, flagged, loopback, MAX_CLOCKS, SANDBOX_HEADER, new ClockError('x').message);
await sandbox.stop();
TS
cat >"$sandbox/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true, "noEmit": true,
    "skipLibCheck": false, "types": ["node"], "typeRoots": ["$root/node_modules/@types"]
  },
  "files": ["consumer.mts"]
}
JSON
(cd "$sandbox" && "$root/node_modules/.bin/tsc" -p tsconfig.json) || fail "a consumer's use of startSandbox does not typecheck against the installed declarations"

echo "== every installed @agent-tts package has its README"
for dir in "$client" "$conformance" "$contract" "$mcp" "$load" "$mock" "$server" "$sandbox"; do has_readmes "$dir"; done

echo
echo "pack-smoke: every budget held and every command ran from the installed tarballs"
