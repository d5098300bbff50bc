#!/usr/bin/env bash
# Installs the package from an `npm pack` tarball into an empty directory and runs every command it
# ships from there: server, admin, CLI, conformance suite, load tool, mock, worker. Proves the package works
# outside this repository. Usage: scripts/pack-smoke.sh   (CI runs it after the tests)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "== pack"
(cd "$root" && npm pack --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/agent-tts-*.tgz)"
mkdir "$work/app" && cd "$work/app"
npm init -y >/dev/null
echo "== install $(basename "$tarball") into an empty project"
npm install --no-audit --no-fund --prefer-offline "$tarball" >/dev/null 2>&1 || npm install --no-audit --no-fund "$tarball"
bin="$work/app/node_modules/.bin"

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
export DATA_DIR="$work/data" PORT="$(free_port)" VOICES_PORT="$(free_port)" SYNTH_THREADS=1
wait_for() { for _ in $(seq 1 60); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.5; done; echo "no answer from $1"; return 1; }

echo "== agent-tts-server"
"$bin/agent-tts-server" >"$work/server.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$PORT/healthz"

echo "== agent-tts-admin seed"
"$bin/agent-tts-admin" seed --out "$work/fixtures.json"
key="$(node -e 'console.log(require(process.argv[1]).keys.active[0])' "$work/fixtures.json")"

echo "== the dashboard (a sign-in link from agent-tts-admin) and the API reference"
account="$("$bin/agent-tts-admin" account create --name pack-smoke --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))')"
link="$("$bin/agent-tts-admin" account sign-in-link "$account" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).url))')"
# Opening the link shows a button and spends nothing; its form's POST signs in.
code="$(curl -s -o /dev/null -w '%{http_code}' "$link")"
[ "$code" = "200" ] || { echo "the sign-in link answered $code, not 200"; exit 1; }
code="$(curl -s -o /dev/null -w '%{http_code}' --data-urlencode "token=${link#*token=}" "${link%%\?*}")"
[ "$code" = "303" ] || { echo "signing in with the link's token answered $code, not 303"; exit 1; }
for path in /docs /docs/assets/swagger-ui-bundle.js /docs/assets/swagger-ui.css /openapi.json /openapi.yaml /dashboard/assets/dashboard.css; do
  curl -fs -o /dev/null "http://127.0.0.1:$PORT$path" || { echo "no $path from the installed package"; exit 1; }
done

echo "== agent-tts speak"
AGENT_TTS_API_KEY="$key" AGENT_TTS_BASE_URL="http://127.0.0.1:$PORT" "$bin/agent-tts" speak "Installed from a tarball." -o "$work/out.mp3"
test -s "$work/out.mp3"
AGENT_TTS_VOICES_URL="http://127.0.0.1:$VOICES_PORT" "$bin/agent-tts" voices --language fr --json >/dev/null

echo "== agent-tts-conformance (a few rules)"
"$bin/agent-tts-conformance" --fixtures "$work/fixtures.json" --only 'auth.*' --out-dir "$work/conformance"

echo "== agent-tts-load (a short run on fresh keys: each key may POST once a minute here)"
"$bin/agent-tts-load" --help | grep "open-loop arrival rate" >/dev/null
"$bin/agent-tts-admin" seed --out "$work/load-fixtures.json" >/dev/null
"$bin/agent-tts-load" --fixtures "$work/load-fixtures.json" --rate 0.1 --duration 20s --mix short=100 \
  --threshold 'success_rate>=1' --out-dir "$work/load" --quiet
for f in results.json report.md report.html; do test -s "$work/load/$f" || { echo "agent-tts-load wrote no $f"; exit 1; }; done
node -e 'const r=require(process.argv[1]); if (r.figures.submissions.completed !== 2) { console.error(r.figures.submissions); process.exit(1); }' "$work/load/results.json"
if "$bin/agent-tts-load" --fixtures "$work/load-fixtures.json" --rate 5 >/dev/null 2>&1; then echo "agent-tts-load accepted a rate the keys do not allow"; exit 1; fi

echo "== agent-tts-mock"
mock_port="$(free_port)"
"$bin/agent-tts-mock" --port "$mock_port" >"$work/mock.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do
  code="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer tts_00000000_$(printf '%048d' 0)" -H 'Prefer: code=202, example=processing' -X POST -H 'Content-Type: application/json' -d '{"text":"hi"}' "http://127.0.0.1:$mock_port/v1/agent-tts" || true)"
  [ "$code" = "202" ] && break
  sleep 0.5
done
[ "$code" = "202" ] || { cat "$work/mock.log"; echo "mock did not answer 202"; exit 1; }

echo "== agent-tts-sandbox (prints its URL and keys, writes conformance fixtures, answers marked)"
# The flags win over PORT and VOICES_PORT, which this shell exports for the server above.
"$bin/agent-tts-sandbox" --port 0 --voices-port 0 --out "$work/sandbox-fixtures.json" >"$work/sandbox.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do grep -q "Started in" "$work/sandbox.log" && break; sleep 0.5; done
sandbox_url="$(grep -o 'agent-tts sandbox on http://[0-9.:]*' "$work/sandbox.log" | cut -d' ' -f4 || true)"
[ -n "$sandbox_url" ] || { cat "$work/sandbox.log"; echo "agent-tts-sandbox printed no URL"; exit 1; }
curl -fsi "$sandbox_url/sandbox" | grep -qi '^agent-tts-sandbox: 1' || { echo "no Agent-TTS-Sandbox header"; exit 1; }
node -e 'const f=require(process.argv[1]); if (!f.clock || f.keys.active.length < 8) process.exit(1)' "$work/sandbox-fixtures.json"
echo "== agent-tts-conformance --strict against the sandbox (every rule, time moved on its test clock)"
"$bin/agent-tts-conformance" --fixtures "$work/sandbox-fixtures.json" --strict --quiet --out-dir "$work/conformance-sandbox"
node --input-type=module -e 'import { startSandbox } from "agent-tts/sandbox"; const s = await startSandbox(); await s.clock.advance(1); await s.stop();'

echo "== agent-tts-worker (without REDIS_URL it must refuse, plainly)"
if env -u REDIS_URL "$bin/agent-tts-worker" >"$work/worker.log" 2>&1; then echo "worker started without Redis?"; exit 1; fi
grep -q "REDIS_URL is not set" "$work/worker.log"
"$bin/agent-tts-worker" --help | grep "synthesis worker" >/dev/null

echo "== --help of the server (it starts nothing) and a stray argument (refused)"
"$bin/agent-tts-server" --help | grep "environment variables" >/dev/null
if "$bin/agent-tts-server" --port 1 >/dev/null 2>&1; then echo "agent-tts-server accepted --port"; exit 1; fi

echo "== the library entry points"
node --input-type=module -e '
  const contract = await import("agent-tts/contract");
  const client = await import("agent-tts");
  await import("agent-tts/node");
  if (typeof contract.ConformanceFixtures?.safeParse !== "function") throw new Error("agent-tts/contract lacks ConformanceFixtures");
  if (typeof client.AgentTtsClient !== "function") throw new Error("agent-tts lacks AgentTtsClient");
'
for doc in bench/README.md conformance/README.md mock/README.md; do
  [ -f "node_modules/agent-tts/$doc" ] || { echo "the package lacks $doc, which the README links"; exit 1; }
done

echo "pack-smoke: every command ran from the installed tarball"
