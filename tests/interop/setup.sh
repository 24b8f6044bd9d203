#!/usr/bin/env bash
# Installs the interop peers. Node.js dependencies: the Credo DIDComm issuer
# (tests/interop/credo_peer), the Credo OpenID4VCI issuer (tests/interop/oid4vc_peer), the
# Universal Resolver clients (tests/interop/ur_clients), the PLC directory (tests/interop/plc_peer)
# and the chain peer (tests/interop/chain_peer: a local anvil node, the did:ethr and did:polygon
# registries and the drivers themselves; anvil's binary comes in its platform package, so the
# skipped install scripts are not needed).
# Idempotent: runs `npm ci` only when a peer's node_modules is missing or was installed from a
# different package-lock.json. Needs node + npm and the npm registry, nothing else
# (install scripts are skipped: @2060.io/ffi-napi has no prebuilt binary and is unused).
# Python: ACA-Py (tests/interop/acapy_peer), into a virtual environment of its own from the
# hash-pinned requirements.txt, again only when the venv is missing or was installed from other
# requirements (a stamp of their sha256). Needs python3 (3.9-3.12) and PyPI.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

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

install_acapy() {
  local dir="$here/acapy_peer"
  local venv="$dir/venv"
  local stamp="$venv/.peer_requirements.sha256"
  local want have
  want="$(sha256sum "$dir/build-requirements.txt" "$dir/requirements.txt" | sha256sum | cut -d' ' -f1)"
  have="$(cat "$stamp" 2>/dev/null || true)"
  # (a venv whose python no longer runs, e.g. a moved folder, is made again)
  if [[ "$want" == "$have" ]] && "$venv/bin/python" -c 'import aries_cloudagent' 2>/dev/null; then
    echo "setup.sh: acapy_peer venv up to date"
    return
  fi
  echo "setup.sh: installing acapy_peer (pip --require-hashes into acapy_peer/venv)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  local pip=("$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes)
  # setuptools first: the two sdists are then built without build isolation (which would fetch
  # an unpinned setuptools).
  "${pip[@]}" -r "$dir/build-requirements.txt"
  "${pip[@]}" --no-build-isolation -r "$dir/requirements.txt"
  echo "$want" >"$stamp"
}

# Not an error here when a runtime is missing: the interop tests say they are skipped and why
# (under CI=true they fail).
if command -v node >/dev/null && command -v npm >/dev/null; then
  install_peer credo_peer
  install_peer oid4vc_peer
  install_peer ur_clients
  install_peer chain_peer
  install_peer plc_peer
else
  echo "setup.sh: node and npm are not installed; the Node.js interop peers cannot be installed" >&2
fi
if command -v python3 >/dev/null &&
  python3 -c 'import sys; sys.exit(0 if (3, 9) <= sys.version_info[:2] <= (3, 12) else 1)'; then
  install_acapy
else
  echo "setup.sh: python3 3.9-3.12 is not installed; the ACA-Py peer cannot be installed" >&2
fi
echo "setup.sh: done"
