#!/usr/bin/env bash
# Installs the real servers and the peer tool the dynamic benchmarks run (idempotent):
#   .venv/bench-servers venv with mcp-server-time and mcp-server-fetch (PyPI)
#   .venv/bench-behave  venv with mcp-behave (needs mcp<2)
#   .venv/bench-node    npm prefix with @modelcontextprotocol/server-filesystem and server-memory
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bench="$root/.venv"
mkdir -p "$bench"
venv() { # dir, packages...
  local dir=$1; shift
  if [ -x "$dir/bin/python" ] && "$dir/bin/pip" show "$@" >/dev/null 2>&1; then return; fi
  python3 -m venv "$dir"
  "$dir/bin/pip" install -q --disable-pip-version-check "$@" >&2
}
venv "$bench/bench-servers" mcp-server-time mcp-server-fetch
venv "$bench/bench-behave" mcp-behave "mcp<2"
if [ ! -d "$bench/bench-node/node_modules/@modelcontextprotocol/server-memory" ]; then
  mkdir -p "$bench/bench-node"
  (cd "$bench/bench-node" && npm install --silent --no-audit --no-fund --prefix "$bench/bench-node" \
    @modelcontextprotocol/server-filesystem @modelcontextprotocol/server-memory >&2)
fi
