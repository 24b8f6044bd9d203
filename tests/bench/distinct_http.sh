#!/usr/bin/env bash
# Cold path over HTTP (issue 15): N distinct did:key DIDs (default 20 000), each requested once,
# CONCURRENCY (default 32) in flight, against the service (src/main.ts, with a token) and the
# Node.js server of tests/bench/node_resolver (did-resolver + key-did-resolver, cache on), each on a
# fresh process, ROUNDS times interleaved with fresh DIDs every round. Servers pinned to CPU 1, the
# client (tests/bench/distinct_client.mjs, Node) to CPU 0. Prints each round and the median ratio.
#   tests/bench/distinct_http.sh        N=20000 CONCURRENCY=32 ROUNDS=3
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-20000}
CONCURRENCY=${CONCURRENCY:-32}
ROUNDS=${ROUNDS:-3}
P_OURS=${P_OURS:-18095}
P_NODE=${P_NODE:-18096}
# The service's V8 flags: by default those of `deno task start`; V8_FLAGS= (empty) for V8's defaults.
V8_FLAGS=${V8_FLAGS-"--max-semi-space-size=4"}
TMP=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
[ -d tests/bench/node_resolver/node_modules ] ||
  (cd tests/bench/node_resolver && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
eval "$(deno run -A tests/bench/bench_env.ts)"

wait_up() { for _ in $(seq 1 200); do curl -s -o /dev/null "$1" && return 0; sleep 0.05; done; return 1; }
start_ours() {
  PORT=$P_OURS LISTEN_HOST=127.0.0.1 KV_PATH=:memory: LOG_LEVEL=warn taskset -c 1 \
    deno run ${V8_FLAGS:+--v8-flags=$V8_FLAGS} --allow-net --allow-env --allow-read --allow-write --allow-sys src/main.ts &
  PIDS+=($!)
  wait_up "http://127.0.0.1:$P_OURS/health"
}
start_node() {
  PORT=$P_NODE taskset -c 1 node tests/bench/node_resolver/server.mjs &
  PIDS+=($!)
  wait_up "http://127.0.0.1:$P_NODE/dids/did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
}
stop_all() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  PIDS=()
}
ours=()
node=()
for r in $(seq 1 "$ROUNDS"); do
  deno run -A tests/bench/did_list.ts "$N" "$TMP/a.txt"
  deno run -A tests/bench/did_list.ts "$N" "$TMP/b.txt"
  start_ours
  o=$(taskset -c 0 node tests/bench/distinct_client.mjs "http://127.0.0.1:$P_OURS" "$TMP/a.txt" "$CONCURRENCY" "$BENCH_TOKEN")
  stop_all
  start_node
  n=$(taskset -c 0 node tests/bench/distinct_client.mjs "http://127.0.0.1:$P_NODE" "$TMP/b.txt" "$CONCURRENCY")
  stop_all
  echo "round $r: service $o; node $n"
  ours+=("$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['rps'])" "$o")")
  node+=("$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['rps'])" "$n")")
done
python3 - "${ours[*]}" "${node[*]}" "$V8_FLAGS" <<'PY'
import statistics, sys
o = [int(x) for x in sys.argv[1].split()]
n = [int(x) for x in sys.argv[2].split()]
mo, mn = statistics.median(o), statistics.median(n)
print(f"median req/s (v8 flags: {sys.argv[3] or 'none'}): service {mo:.0f}, node {mn:.0f}; ratio {mo / mn:.2f}x (target >= 2x)")
PY
