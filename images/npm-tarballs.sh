#!/usr/bin/env bash
# Sourced by images/build.sh and tools/bench/images-node.sh: the Node and npm the images run, and
# npm tarballs fetched once into $CACHE (set by the caller), so both share one cached copy.

# Pinned: a new version is a new cache entry, so bumping one rebuilds the base images. (Read by
# the scripts that source this file, which shellcheck cannot see from here.)
# shellcheck disable=SC2034
NODE_VERSION=24.21.0
# shellcheck disable=SC2034
NPM_VERSION=11.19.1

# An npm tarball, fetched once into the cache (npm pack verifies its integrity).
npm_tarball() {
  local spec=$1 file
  file="$CACHE/$(echo "$spec" | tr '@/' '--').tgz"
  if [[ ! -s $file ]]; then
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "$spec" >/dev/null)
    mv "$tmp"/*.tgz "$file"
    rmdir "$tmp"
  fi
  printf '%s\n' "$file"
}
