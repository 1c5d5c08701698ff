#!/usr/bin/env bash
# The lint ESLint and Prettier cannot do, run by `make lint`: hadolint over images/*.Dockerfile,
# actionlint over .github/workflows (it runs shellcheck on their `run:` scripts) and shellcheck
# over the repository's own shell scripts. The binaries come from the env file `make testenv`
# writes; variables already set in the environment win, as in the tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
shopt -s nullglob

env_file="${PELITA_TESTENV_DIR:-/tmp/pelita-testenv}/testenv.env"

setting() {
  local key=$1 value=${!1:-}
  if [[ -z $value && -f $env_file ]]; then
    value=$(sed -n "s/^$key=//p" "$env_file" | tail -n 1)
  fi
  if [[ -z $value ]]; then
    echo "lint: $key is neither set nor in $env_file: run make testenv" >&2
    return 1
  fi
  printf '%s\n' "$value"
}

hadolint=$(setting HADOLINT_BIN)
actionlint=$(setting ACTIONLINT_BIN)
shellcheck=$(setting SHELLCHECK_BIN)

dockerfiles=(images/*.Dockerfile)
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
mapfile -t scripts < <(find tools images -name '*.sh' -not -path '*/node_modules/*' | sort)

if ((${#dockerfiles[@]})); then "$hadolint" "${dockerfiles[@]}"; fi
if ((${#workflows[@]})); then "$actionlint" -shellcheck "$shellcheck" "${workflows[@]}"; fi
if ((${#scripts[@]})); then "$shellcheck" "${scripts[@]}"; fi
echo "lint: hadolint (${#dockerfiles[@]} Dockerfiles), actionlint (${#workflows[@]} workflows), shellcheck (${#scripts[@]} scripts): clean"
