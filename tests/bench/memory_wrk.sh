#!/usr/bin/env bash
# Memory under many distinct DIDs: wrk requests N distinct did:key DIDs (tests/bench/did_list.ts)
# PASSES times each over CONNECTIONS connections (tests/bench/distinct_dids.lua; the run ends
# when every DID has been requested PASSES times, or after DURATION), and the service's RSS
# (/proc/<pid>/status VmRSS) is sampled every 0.5 s. Prints RSS at start (after start-up and one
# warm request), peak and end, and req/s.
#
#   tests/bench/memory_wrk.sh                       # 100 000 DIDs, 6 passes, 32 connections, 2 min
#   N=20000 PASSES=6 DURATION=30s tests/bench/memory_wrk.sh
#   PIN=0 tests/bench/memory_wrk.sh                 # unpinned (server and wrk share both cores)
#
# PIN=1 (default): the service on CPU 1, wrk (one thread) on CPU 0. V8_FLAGS=... passes --v8-flags
# to the service (e.g. --max-semi-space-size=2 to try a smaller young generation).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-100000}
PASSES=${PASSES:-6}
CONNECTIONS=${CONNECTIONS:-32}
DURATION=${DURATION:-2m}
PORT=${PORT:-18090}
PIN=${PIN:-1}
SRV=()
LOAD=()
THREADS=${THREADS:-2}
if [ "$PIN" = 1 ]; then SRV=(taskset -c 1); LOAD=(taskset -c 0); THREADS=1; fi
TMP=$(mktemp -d)
PID=""
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT

LIST=${LIST:-$TMP/dids.txt}
[ -s "$LIST" ] || deno run -A tests/bench/did_list.ts "$N" "$LIST"
eval "$(deno run -A tests/bench/bench_env.ts)"

PORT=$PORT LISTEN_HOST=127.0.0.1 KV_PATH=:memory: LOG_LEVEL=warn \
  "${SRV[@]}" deno run ${V8_FLAGS:+--v8-flags=$V8_FLAGS} --allow-net --allow-env --allow-read --allow-write --allow-sys src/main.ts &
PID=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://127.0.0.1:$PORT/health" && break
  sleep 0.1
done
curl -s -o /dev/null -H "Authorization: Bearer $BENCH_TOKEN" \
  "http://127.0.0.1:$PORT/dids/$(head -1 "$LIST")"
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$PID/status"; }
START=$(rss)
(
  while kill -0 "$PID" 2>/dev/null; do
    rss >>"$TMP/rss.txt" 2>/dev/null || true
    sleep 0.5
  done
) &
SAMPLER=$!
OUT=$("${LOAD[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" \
  -H "Authorization: Bearer $BENCH_TOKEN" -s tests/bench/distinct_dids.lua \
  "http://127.0.0.1:$PORT" -- "$LIST" "$THREADS" "$PASSES")
END=$(rss)
kill "$SAMPLER" 2>/dev/null || true
PEAK=$(sort -n "$TMP/rss.txt" | tail -1)
RPS=$(awk '/^Requests\/sec:/ {print $2}' <<<"$OUT")
RESULT=$(grep '^RESULT' <<<"$OUT" || true)
echo "load average $(cut -d' ' -f1-3 /proc/loadavg); $(deno --version | head -1); $N DIDs x $PASSES passes, $CONNECTIONS connections, $THREADS wrk thread(s), pin=$PIN"
echo "$RESULT"
printf 'RSS start %d MB, peak %d MB, end %d MB; %s req/s\n' \
  $((START / 1024)) $((PEAK / 1024)) $((END / 1024)) "$RPS"
