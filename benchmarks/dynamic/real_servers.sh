#!/usr/bin/env bash
# Runs `mcp-scan dynamic` on real servers installed from the registries (see setup.sh) and fails
# unless each scan exits with its expected code and its findings at MEDIUM or above are exactly
# the expected ones (true observations on that server, listed below as `tool RULE`): a new false
# positive, a lost true finding or an INCOMPLETE scan fails the run. Everything the servers do
# happens inside the sandbox's network namespace (no route out; sinks answer).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MCP_SCAN_BIN:-$root/target/release/mcp-scan}
# The tracer (`auto`, `ebpf`, `strace`): run it once with each to compare the backends.
tracer=${MCP_SCAN_TRACER:-auto}
[ -x "$bin" ] || { echo "build first: cargo build --release -p mcp-scan (or set MCP_SCAN_BIN)" >&2; exit 1; }
"$root/benchmarks/dynamic/setup.sh"
node_mods="$root/.venv/bench-node/node_modules/@modelcontextprotocol"
more_mods="$root/.venv/bench-node-more/node_modules"
more="$root/.venv/bench-more/bin"
mcp1="$root/.venv/bench-mcp1/bin"
# Pins of this run only (a server's pins must not come from an earlier run with other settings).
pins=$(mktemp -d)
trap 'rm -rf "$pins"' EXIT
status=0
run() { # name, expected exit, expected findings at MEDIUM+ ("tool RULE" per line), [--env K=V...] -- command...
  local name=$1 want=$2 expect=$3; shift 3
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  local t0 t1 code out="/tmp/mcp-scan-real-$name.json"
  t0=$(date +%s.%N)
  set +e
  XDG_DATA_HOME="$pins/$name" "$bin" dynamic --tracer "$tracer" --timeout 20 --format raw "${opts[@]}" \
    --env MEMORY_FILE_PATH=/home/sandbox/workspace/memory.json -- "$@" >"$out" 2>"/tmp/mcp-scan-real-$name.err"
  code=$?
  set -e
  t1=$(date +%s.%N)
  local got
  got=$(python3 - "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
bad = sorted({f"{f['target']['name']} {f['rule_id']}" for e in r["entities"] for f in e["findings"]
              if f["severity"] in ("CRITICAL", "HIGH", "MEDIUM")})
print(f"findings {s['findings']} {s['by_severity']} incomplete {s['incomplete']}")
print("\n".join(bad))
PY
) || got="unreadable report"
  local summary=${got%%$'\n'*} seen=""
  [ "$got" != "$summary" ] && seen=${got#*$'\n'}
  local want_set
  want_set=$(printf '%s\n' "$expect" | sed '/^$/d' | sort)
  printf '%-14s exit %d  %6.2fs  %s\n' "$name" "$code" "$(echo "$t1 - $t0" | bc -l)" "$summary"
  if [ "$code" -ne "$want" ] || [ "$seen" != "$want_set" ]; then
    status=1
    echo "  want exit $want and MEDIUM+ findings:"; printf '    %s\n' "$want_set"
    echo "  got  exit $code and:"; printf '    %s\n' "$seen"
    tail -5 "/tmp/mcp-scan-real-$name.err"
  fi
}
run time 0 "" -- "$root/.venv/bench-servers/bin/mcp-server-time"
run fetch 0 "" -- "$root/.venv/bench-servers/bin/mcp-server-fetch"
run filesystem 0 "" -- node "$node_mods/server-filesystem/dist/index.js" /home/sandbox/workspace
run memory 0 "" -- node "$node_mods/server-memory/dist/index.js"
run seq-thinking 0 "" -- node "$more_mods/@modelcontextprotocol/server-sequential-thinking/dist/index.js"
# Talks to api.github.com only; its tools and server name say GitHub (no token: 401s).
run github 0 "" -- node "$more_mods/@modelcontextprotocol/server-github/dist/index.js"
run context7 0 "" -- node "$more_mods/@upstash/context7-mcp/dist/index.js"
run excel 0 "" -- "$more/excel-mcp-server" stdio
run duckdb 0 "" -- "$mcp1/mcp-server-duckdb" --db-path /home/sandbox/workspace/test.duckdb
run cli 0 "" --env ALLOWED_DIR=/home/sandbox/workspace --env ALLOWED_COMMANDS=all --env ALLOWED_FLAGS=all \
  -- "$mcp1/cli-mcp-server"
# The workspace starts empty: git init it at startup (as a user's checkout would be), then serve it.
run git 0 "" -- "$more/python" -c 'import os, subprocess, sys
subprocess.run(["git", "init", "-q"], check=True)
sys.argv = ["mcp-server-git", "--repository", os.getcwd()]
from mcp_server_git import main
main()'
# True observations: get-env returns the environment (canary tokens included); the gzip tool
# fetches any URL it is given, the metadata address too (GZIP_ALLOWED_DOMAINS is empty by default).
run everything 3 "get-env MCPS-R001
gzip-file-as-resource MCPS-R008" -- node "$more_mods/@modelcontextprotocol/server-everything/dist/index.js"
# True observation: describe_table pastes its argument into `PRAGMA table_info(...)`.
run sqlite 3 "describe_table MCPS-R014" -- "$mcp1/mcp-server-sqlite" --db-path /home/sandbox/workspace/test.db
# True observations: six tools open any path they are given (../../etc/passwd included), and
# fastmcp checks PyPI for a newer version of itself at startup, undeclared.
run word 3 "Word Document Server MCPS-R003
get_document_xml MCPS-R007
insert_header_near_text MCPS-R007
insert_line_or_paragraph_near_text MCPS-R007
insert_numbered_list_near_text MCPS-R007
replace_block_between_manual_anchors MCPS-R007
replace_paragraph_block_below_header MCPS-R007" -- "$more/word_mcp_server"
exit $status
