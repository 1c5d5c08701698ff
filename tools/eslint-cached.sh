#!/usr/bin/env bash
# ESLint over the repository for `make lint`, with its cache: a warm tree lints only the files
# that changed. ESLint's cache knows each file's own content, but the type-aware rules
# (no-floating-promises, no-unsafe-*, ...) also read the types a file imports, so a changed
# signature can break a file whose content did not change. The cache is therefore kept per
# "type surface": the declarations `tsc -b` emits for every workspace (dist/**/*.d.ts), the test
# support files other tests import, and the compiler settings. An edit inside a function keeps
# the cache; a changed export starts a new one (a full run). Run after `tsc -b` (`make lint`
# builds first). Usage: tools/eslint-cached.sh <cache dir> [eslint arguments...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

cache_root=$1
shift

surface=$(
  {
    find services tools operator charts images -path '*/node_modules' -prune -o -type f \
      \( -path '*/dist/*.d.ts' -o \( -path '*/test/*' -name '*.ts' ! -name '*.test.ts' \) \) -print
    printf '%s\n' tsconfig.json tsconfig.check.json
  } | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16
)
cache="$cache_root/$surface"
# Caches of earlier surfaces are never read again.
mkdir -p "$cache_root"
find "$cache_root" -mindepth 1 -maxdepth 1 ! -name "$surface" -exec rm -rf {} +

exec npx eslint --cache --cache-strategy content --cache-location "$cache/" "$@"
