#!/usr/bin/env bash
# Runs `mcp-scan dynamic` on four real servers installed from the registries (see setup.sh) and
# fails unless each scan is complete with no finding at HIGH or above. Everything the servers do
# happens inside the sandbox's network namespace (no route out; sinks answer).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MCP_SCAN_BIN:-$root/target/release/mcp-scan}
[ -x "$bin" ] || { echo "build first: cargo build --release -p mcp-scan (or set MCP_SCAN_BIN)" >&2; exit 1; }
"$root/benchmarks/dynamic/setup.sh"
node_mods="$root/.venv/bench-node/node_modules/@modelcontextprotocol"
status=0
run() { # name, command...
  local name=$1; shift
  local t0 t1 code
  t0=$(date +%s.%N)
  set +e
  "$bin" dynamic --timeout 20 --fail-on high --format summary --color never \
    --env MEMORY_FILE_PATH=/home/sandbox/workspace/memory.json -- "$@" >"/tmp/mcp-scan-real-$name.txt" 2>&1
  code=$?
  set -e
  t1=$(date +%s.%N)
  printf '%-12s exit %d  %6.2fs  %s\n' "$name" "$code" "$(echo "$t1 - $t0" | bc -l)" \
    "$(grep -m1 '^Findings:' "/tmp/mcp-scan-real-$name.txt" || echo 'no findings line')"
  if [ "$code" -ne 0 ]; then status=1; cat "/tmp/mcp-scan-real-$name.txt"; fi
}
run time "$root/.venv/bench-servers/bin/mcp-server-time"
run fetch "$root/.venv/bench-servers/bin/mcp-server-fetch"
run filesystem node "$node_mods/server-filesystem/dist/index.js" /home/sandbox/workspace
run memory node "$node_mods/server-memory/dist/index.js"
exit $status
