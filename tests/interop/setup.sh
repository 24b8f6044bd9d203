#!/usr/bin/env bash
# Installs the Node.js dependencies of the interop peers: the Credo DIDComm issuer
# (tests/interop/credo_peer), the Credo OpenID4VCI issuer (tests/interop/oid4vc_peer), the
# Universal Resolver clients (tests/interop/ur_clients), the PLC directory (tests/interop/plc_peer)
# and the chain peer (tests/interop/chain_peer: a local anvil node, the did:ethr and did:polygon
# registries and the drivers themselves; anvil's binary comes in its platform package, so the
# skipped install scripts are not needed).
# Idempotent: runs `npm ci` only when a peer's node_modules is missing or was installed from a
# different package-lock.json. Needs node + npm and the npm registry, nothing else
# (install scripts are skipped: @2060.io/ffi-napi has no prebuilt binary and is unused).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  # Not an error here: the interop tests say they are skipped and why (under CI=true they fail).
  echo "setup.sh: node and npm are not installed; the interop peers cannot be installed" >&2
  exit 0
fi

install_peer() {
  local peer_dir="$here/$1"
  local stamp="$peer_dir/node_modules/.peer_lock.sha256"
  local want have
  want="$(sha256sum "$peer_dir/package-lock.json" "$peer_dir/package.json" | sha256sum | cut -d' ' -f1)"
  have="$(cat "$stamp" 2>/dev/null || true)"
  if [[ -d "$peer_dir/node_modules" && "$want" == "$have" ]]; then
    echo "setup.sh: $1 node_modules up to date"
    return
  fi
  echo "setup.sh: installing $1 dependencies (npm ci)"
  (cd "$peer_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  echo "$want" >"$stamp"
}

install_peer credo_peer
install_peer oid4vc_peer
install_peer ur_clients
install_peer chain_peer
install_peer plc_peer
echo "setup.sh: done"
