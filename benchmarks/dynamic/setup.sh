#!/usr/bin/env bash
# Installs the real servers and the peer tool the dynamic benchmarks run (idempotent):
#   .venv/bench-servers venv with mcp-server-time and mcp-server-fetch (PyPI)
#   .venv/bench-behave  venv with mcp-behave (needs mcp<2)
#   .venv/bench-node    npm prefix with @modelcontextprotocol/server-filesystem and server-memory
#   .venv/bench-more    venv with mcp-server-git, excel-mcp-server, office-word-mcp-server (mcp 2)
#   .venv/bench-mcp1    venv with mcp-server-sqlite, mcp-server-duckdb, cli-mcp-server (mcp<2:
#                       they use the 1.x low-level Server API)
#   .venv/bench-node-more npm prefix with server-everything, server-sequential-thinking,
#                       server-github and @upstash/context7-mcp
# The servers added for the false-positive hunt are pinned: real_servers.sh expects their
# findings exactly.
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
pinned() { # dir, pinned specs (name==version)...: reinstalls when the list changes
  local dir=$1; shift
  if [ -x "$dir/bin/python" ] && [ "$(cat "$dir/.mcp-scan-specs" 2>/dev/null)" = "$*" ]; then return; fi
  [ -x "$dir/bin/python" ] || python3 -m venv "$dir"
  "$dir/bin/pip" install -q --disable-pip-version-check "$@" >&2
  echo "$*" >"$dir/.mcp-scan-specs"
}
pinned "$bench/bench-more" mcp-server-git==2026.10.19 excel-mcp-server==2.2.2 office-word-mcp-server==1.1.11 \
  fastmcp==4.1.2
pinned "$bench/bench-mcp1" mcp-server-sqlite==2025.4.25 mcp-server-duckdb==1.1.0 cli-mcp-server==0.2.5 "mcp==1.30.0"
node_more=(@modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/server-sequential-thinking@2026.8.31
  @modelcontextprotocol/server-github@2025.4.8 @upstash/context7-mcp@4.1.1)
if [ "$(cat "$bench/bench-node-more/.mcp-scan-specs" 2>/dev/null)" != "${node_more[*]}" ]; then
  mkdir -p "$bench/bench-node-more"
  (cd "$bench/bench-node-more" && npm install --silent --no-audit --no-fund --prefix "$bench/bench-node-more" \
    "${node_more[@]}" >&2)
  echo "${node_more[*]}" >"$bench/bench-node-more/.mcp-scan-specs"
fi
