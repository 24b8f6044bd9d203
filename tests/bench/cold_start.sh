#!/usr/bin/env bash
# Cold start: spawn → first 200 of GET /dids/did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK,
# median of RUNS spawns each (interleaved), for a bare Deno.serve (tests/bench/bare_server.ts), the
# service (`deno run -A src/main.ts`, DID_RESOLUTION_PUBLIC=true, KV :memory:) with OpenTelemetry
# off and on (OTEL_DENO=true, exporting to a closed local port), and the Node.js server over
# did-resolver + key-did-resolver (tests/bench/node_resolver/server.mjs). The client polls every
# 2 ms. Prints the medians and each ratio against the targets (service ≤ 2× bare, ≥ 2.5× faster
# than Node).
#
#   tests/bench/cold_start.sh          # RUNS=9
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-9}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ ! -d tests/bench/node_resolver/node_modules ]; then
  (cd tests/bench/node_resolver && npm install --no-audit --no-fund --silent)
fi
eval "$(deno run -A tests/bench/bench_env.ts)"
echo '{"ok":true}' >"$TMP/body.json"
# Warm Deno's module cache (downloads, type stripping) so that every run is a process start only.
DID_RESOLUTION_PUBLIC=true KV_PATH=:memory: timeout 20 deno run -A src/main.ts >/dev/null 2>&1 &
sleep 5; kill %1 2>/dev/null || true; wait 2>/dev/null || true

echo "load average $(cut -d' ' -f1-3 /proc/loadavg); $(deno --version | head -1); node $(node --version); $RUNS runs each"
RUNS=$RUNS BODY="$TMP/body.json" python3 - <<'PY'
import os, statistics, subprocess, time, http.client, socket

DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
runs = int(os.environ["RUNS"])
base_env = dict(os.environ, KV_PATH=":memory:", DID_RESOLUTION_PUBLIC="true", LOG_LEVEL="warn",
                LISTEN_HOST="127.0.0.1")
otel = dict(base_env, OTEL_DENO="true", OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:4318",
            OTEL_SERVICE_NAME="ssi-edge-bench")

def cmd(name, port):
    if name == "bare":
        return ["deno", "run", "-A", "tests/bench/bare_server.ts", str(port), os.environ["BODY"]], base_env
    if name == "node":
        return ["node", "tests/bench/node_resolver/server.mjs"], dict(base_env, PORT=str(port))
    env = otel if name == "ours+otel" else base_env
    return ["deno", "run", "-A", "src/main.ts"], dict(env, PORT=str(port))

def once(name, port):
    argv, env = cmd(name, port)
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            if p.poll() is not None:
                raise SystemExit(f"{name} exited with {p.returncode}")
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                c.request("GET", f"/dids/{DID}")
                r = c.getresponse()
                r.read()
                c.close()
                if r.status == 200:
                    return (time.perf_counter() - t0) * 1000
            except (ConnectionRefusedError, ConnectionResetError, socket.timeout, http.client.HTTPException):
                pass
            time.sleep(0.002)
            if time.perf_counter() - t0 > 30:
                raise SystemExit(f"{name}: no 200 within 30 s")
    finally:
        p.kill()
        p.wait()

names = ["bare", "ours", "ours+otel", "node"]
times = {n: [] for n in names}
port = 18500
for i in range(runs):
    for n in names:
        port += 1
        times[n].append(once(n, port))
med = {n: statistics.median(v) for n, v in times.items()}
for n in names:
    print(f"  {n:10s} median {med[n]:7.1f} ms   (min {min(times[n]):.1f}, max {max(times[n]):.1f})")
for n in ["ours", "ours+otel"]:
    vb = med[n] / med["bare"]
    vn = med["node"] / med[n]
    print(f"{n}: {vb:.2f}x bare (target <= 2x: {'ok' if vb <= 2 else 'MISSED'}), "
          f"{vn:.2f}x faster than node (target >= 2.5x: {'ok' if vn >= 2.5 else 'MISSED'})")
PY
