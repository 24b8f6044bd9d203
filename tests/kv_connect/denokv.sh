#!/usr/bin/env bash
# Builds the self-hosted KV server the KV Connect tests run against, once, and prints its path.
# `cargo install denokv --locked` at a pinned version into a cache folder outside the repository
# (shared by every clone and worktree of this machine; DENOKV_ROOT overrides it); later runs find
# the binary there and build nothing. The build runs under `nice` (it takes minutes on two cores).
set -euo pipefail
VERSION=0.14.0
root="${DENOKV_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/ssi-edge/denokv-$VERSION}"
bin="$root/bin/denokv"
if [[ ! -x "$bin" ]]; then
  command -v cargo >/dev/null || { echo "denokv.sh: cargo is not installed; it builds denokv." >&2; exit 1; }
  echo "denokv.sh: building denokv $VERSION into $root (once)" >&2
  start=$SECONDS
  nice -n 10 cargo install denokv --version "=$VERSION" --locked --root "$root" >&2
  echo "denokv.sh: built in $((SECONDS - start)) s" >&2
fi
echo "$bin"
