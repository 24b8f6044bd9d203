#!/usr/bin/env bash
# Installs the Node.js dependencies of the Credo interop peer (tests/interop/credo_peer).
# Idempotent: runs `npm ci` only when node_modules is missing or was installed from a
# different package-lock.json. Needs node + npm and the npm registry, nothing else
# (install scripts are skipped: @2060.io/ffi-napi has no prebuilt binary and is unused).
set -euo pipefail

peer_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/credo_peer" && pwd)"
stamp="$peer_dir/node_modules/.credo_peer_lock.sha256"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  # Not an error here: the interop tests say they are skipped and why (under CI=true they fail).
  echo "setup.sh: node and npm are not installed; the interop peers cannot be installed" >&2
  exit 0
fi

want="$(sha256sum "$peer_dir/package-lock.json" "$peer_dir/package.json" | sha256sum | cut -d' ' -f1)"
have="$(cat "$stamp" 2>/dev/null || true)"

if [[ -d "$peer_dir/node_modules" && "$want" == "$have" ]]; then
  echo "setup.sh: credo_peer node_modules up to date"
  exit 0
fi

echo "setup.sh: installing credo_peer dependencies (npm ci)"
(cd "$peer_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
echo "$want" >"$stamp"
echo "setup.sh: done"
