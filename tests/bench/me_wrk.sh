#!/usr/bin/env bash
# Foundation benchmark: GET /me (valid token) vs GET /health vs a bare Deno.serve returning the
# same bytes as /me, side by side in one run. Needs wrk (apt-get install -y wrk).
# Usage: bash tests/bench/me_wrk.sh [duration=10s] [connections=50]
set -euo pipefail
cd "$(dirname "$0")/../.."
DUR=${1:-10s}
CONN=${2:-50}
DENO=${DENO:-deno}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk"; exit 1; }
tmp=$(mktemp -d)
eval "$($DENO run -A tests/bench/bench_env.ts)"
export KV_PATH="$tmp/kv.sqlite3" PORT=18080 LOG_LEVEL=warn OUTBOUND_REQUIRE_HTTPS=false LISTEN_HOST=127.0.0.1
$DENO run -A src/main.ts >"$tmp/app.log" 2>&1 &
app=$!
trap 'kill $app ${bare:-} 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do curl -sf localhost:18080/health >/dev/null && break; sleep 0.1; done
curl -sf -H "authorization: Bearer $BENCH_TOKEN" localhost:18080/me >"$tmp/me.json"
$DENO run -A tests/bench/bare_server.ts 18081 "$tmp/me.json" &
bare=$!
for _ in $(seq 1 100); do curl -sf localhost:18081/ >/dev/null && break; sleep 0.1; done

run() { # name url [header]
  local out
  if [[ -n "${3:-}" ]]; then out=$(wrk -t2 -c"$CONN" -d"$DUR" --latency -H "$3" "$2"); else out=$(wrk -t2 -c"$CONN" -d"$DUR" --latency "$2"); fi
  local rps p99
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  printf '%-22s %12s req/s   p99 %s\n' "$1" "$rps" "$p99"
}
echo "wrk -t2 -c$CONN -d$DUR, 127.0.0.1"
run "bare Deno.serve" "http://127.0.0.1:18081/"
run "GET /health" "http://127.0.0.1:18080/health"
run "GET /me (valid token)" "http://127.0.0.1:18080/me" "authorization: Bearer $BENCH_TOKEN"
