#!/usr/bin/env bash
# Before/after benchmark of two builds of the service in one run: each build's src/main.ts serves
# on its own port (both pinned to CPU 1, one at a time under load), wrk runs on CPU 0, and the
# rounds interleave A and B over GET /health, GET /me, GET /dids/{did:key} and a warm
# GET /dids/{did:web}. Reports medians of req/s and of the server's CPU time per request (from
# /proc/<pid>/stat), the steadier measure on a shared machine.
#
#   tests/bench/compare_builds.sh <checkout A> <checkout B>
#   ROUNDS=5 DURATION=6s tests/bench/compare_builds.sh /tmp/before .
#
# A checkout is any directory with the service's src/main.ts (e.g. `git worktree add /tmp/before
# <commit>`). Needs deno, wrk, openssl, curl, python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
A=$(cd "$1" && pwd)
B=$(cd "$2" && pwd)
DURATION=${DURATION:-6s}
CONNECTIONS=${CONNECTIONS:-50}
ROUNDS=${ROUNDS:-3}
P_A=${P_A:-18090}
P_B=${P_B:-18091}
P_HOST=${P_HOST:-18444}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
TMP=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT

# A local https did:web host (a throwaway CA, trusted by both builds through NODE_EXTRA_CA_CERTS).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -subj "/CN=bench CA" -keyout "$TMP/ca.key" -out "$TMP/ca.pem" >/dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=127.0.0.1" \
  -keyout "$TMP/key.pem" -out "$TMP/leaf.csr" >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$TMP/ext.cnf"
openssl x509 -req -in "$TMP/leaf.csr" -CA "$TMP/ca.pem" -CAkey "$TMP/ca.key" -CAcreateserial \
  -days 1 -extfile "$TMP/ext.cnf" -out "$TMP/cert.pem" >/dev/null 2>&1
CERT="$TMP/cert.pem" KEY="$TMP/key.pem" deno run -A tests/bench/did_web_host.ts "$P_HOST" &
PIDS+=($!)

deno run -A tests/bench/did_bench_token.ts >"$TMP/idp.json"
TOKEN=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["token"])' "$TMP/idp.json")
JWK=$(python3 -c 'import json,sys;print(json.dumps(json.load(open(sys.argv[1]))["publicJwk"]))' "$TMP/idp.json")
AUTH="Authorization: Bearer $TOKEN"
KEY_DID="did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
WEB_DID="did:web:127.0.0.1%3A$P_HOST"
SECRETS=$(head -c32 /dev/urandom | base64)

start() { # dir port → pid
  (cd "$1" && PORT=$2 LISTEN_HOST=127.0.0.1 HOSTNAME=127.0.0.1 KV_PATH=:memory: LOG_LEVEL=warn \
    AUTH_PUBLIC_KEY="$JWK" AUTH_ISSUER="https://idp.bench/realms/ssi" AUTH_AUDIENCE=ssi-edge \
    AUTH_ALGORITHMS=ES256 SECRETS_KEY="$SECRETS" OUTBOUND_ALLOW_PRIVATE=true \
    DID_CACHE_TTL_SECONDS=3600 NODE_EXTRA_CA_CERTS="$TMP/ca.pem" \
    exec taskset -c 1 deno run -A src/main.ts >"$TMP/app-$2.log" 2>&1) &
  echo $!
}
PID_A=$(start "$A" "$P_A")
PIDS+=("$PID_A")
PID_B=$(start "$B" "$P_B")
PIDS+=("$PID_B")
for port in "$P_A" "$P_B"; do
  for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
  for did in "$KEY_DID" "$WEB_DID"; do
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "$AUTH" "http://127.0.0.1:$port/dids/$did")
    [ "$code" = 200 ] || { echo "warm-up of $did on :$port answered $code" >&2; cat "$TMP/app-$port.log" >&2; exit 1; }
  done
  curl -sf -H "$AUTH" "http://127.0.0.1:$port/me" >/dev/null
done

TICKS=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
run() { # build route url pid [header]
  local t0 t1 out rps requests us
  t0=$(cpu "$4")
  if [ -n "${5:-}" ]; then
    out=$(taskset -c 0 wrk -t1 -c"$CONNECTIONS" -d"$DURATION" -H "$5" "$3")
  else
    out=$(taskset -c 0 wrk -t1 -c"$CONNECTIONS" -d"$DURATION" "$3")
  fi
  t1=$(cpu "$4")
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  us=$(python3 -c "print(f'{($t1 - $t0) / $TICKS * 1e6 / $requests:.2f}')")
  echo "$1 $2 $rps $us" >>"$TMP/results.txt"
  printf '  %-2s %-8s %10s req/s   cpu %6s µs/req\n' "$1" "$2" "$rps" "$us"
}

echo "A = $A"
echo "B = $B"
echo "wrk -t1 -c$CONNECTIONS -d$DURATION, servers on CPU 1, wrk on CPU 0, $ROUNDS rounds"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  for route in health me key web; do
    for build in A B; do
      if [ $build = A ]; then port=$P_A; pid=$PID_A; else port=$P_B; pid=$PID_B; fi
      case $route in
        health) run $build $route "http://127.0.0.1:$port/health" "$pid" ;;
        me) run $build $route "http://127.0.0.1:$port/me" "$pid" "$AUTH" ;;
        key) run $build $route "http://127.0.0.1:$port/dids/$KEY_DID" "$pid" "$AUTH" ;;
        web) run $build $route "http://127.0.0.1:$port/dids/$WEB_DID" "$pid" "$AUTH" ;;
      esac
    done
  done
done

python3 - "$TMP/results.txt" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    build, route, rps, us = line.split()
    runs.setdefault((route, build), []).append((float(rps), float(us)))
print("\nmedians:            A req/s   B req/s   B/A     A µs/req  B µs/req  B-A µs")
for route in ("health", "me", "key", "web"):
    a = runs[(route, "A")]
    b = runs[(route, "B")]
    ar, br = statistics.median(r for r, _ in a), statistics.median(r for r, _ in b)
    au, bu = statistics.median(u for _, u in a), statistics.median(u for _, u in b)
    print(f"  {route:8s} {ar:15.0f} {br:9.0f} {br / ar:6.2f}x {au:9.2f} {bu:9.2f} {bu - au:+8.2f}")
EOF
