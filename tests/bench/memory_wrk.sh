#!/usr/bin/env bash
# Memory under many distinct DIDs: wrk requests N distinct did:key DIDs (tests/bench/did_list.ts)
# in order, over and over, over CONNECTIONS connections (tests/bench/distinct_dids.lua) for DURATION
# (or until each DID has been requested PASSES times: keep PASSES high, since wrk counts req/s over
# the whole DURATION even when its threads stopped early), and the service's RSS
# (/proc/<pid>/status VmRSS) is sampled every 0.5 s. Prints RSS at start (after start-up and one
# warm request), peak and end, and req/s.
#
#   tests/bench/memory_wrk.sh                       # 100 000 DIDs, 32 connections, 2 min
#   N=20000 DURATION=30s tests/bench/memory_wrk.sh
#   PIN=0 tests/bench/memory_wrk.sh                 # unpinned (server and wrk share both cores)
#
# PIN=1 (default): the service on CPU 1, wrk (one thread) on CPU 0. The service runs with the V8
# flags of `deno task start` (--max-semi-space-size=4: a 4 MB young generation semi-space); V8_FLAGS=
# (empty) runs it with V8's defaults, V8_FLAGS=... with others.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-100000}
PASSES=${PASSES:-1000}
CONNECTIONS=${CONNECTIONS:-32}
DURATION=${DURATION:-2m}
PORT=${PORT:-18090}
PIN=${PIN:-1}
V8_FLAGS=${V8_FLAGS-"--max-semi-space-size=4"}
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
echo "load average $(cut -d' ' -f1-3 /proc/loadavg); $(deno --version | head -1); $N DIDs, $DURATION, $CONNECTIONS connections, $THREADS wrk thread(s), pin=$PIN, v8 flags: ${V8_FLAGS:-none}"
echo "$RESULT"
REQS=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$RESULT")
[ -n "$REQS" ] && echo "each DID requested $(python3 -c "print(round($REQS / $N, 1))") times on average"
printf 'RSS start %d MB, peak %d MB, end %d MB; %s req/s\n' \
  $((START / 1024)) $((PEAK / 1024)) $((END / 1024)) "$RPS"
