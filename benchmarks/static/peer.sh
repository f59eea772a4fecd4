#!/usr/bin/env bash
# Ours vs Cisco's `cisco-ai-mcp-scanner` behavioral scan on the same fixture tree, timed as whole
# processes in this one run. Cisco's analyzer needs an LLM: it is pointed at llm_stub.py, an
# OpenAI-compatible server on 127.0.0.1 answering every request with a fixed "no mismatch"
# verdict (so its time is its own pipeline plus loopback round-trips, i.e. a lower bound).
#
# Everything runs inside a fresh user + network namespace (`unshare -rn`) holding only loopback:
# neither tool can reach anything else, whatever it tries (telemetry, model price lists).
#
# Ours: `mcp-scan behavioral` when the binary has that command, else the front-end alone
# (parse_tree example), which the output says.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
tree="${1:-$root/fixtures/python}"
runs="${RUNS:-3}"
venv="$root/target/peer-venv"

if ! [ -x "$venv/bin/mcp-scanner" ]; then
  echo "peer: installing cisco-ai-mcp-scanner into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check cisco-ai-mcp-scanner >&2
fi
peer_version=$("$venv/bin/pip" show cisco-ai-mcp-scanner 2>/dev/null | awk '/^Version:/ {print $2}')

if grep -qi behavioral crates/mcp-scan/src/cli.rs; then
  cargo build -q --release -p mcp-scan >&2
  ours=("$CARGO_TARGET_DIR/release/mcp-scan" behavioral --no-llm "$tree" -f raw)
  ours_label="mcp-scan behavioral (static, --no-llm)"
else
  cargo build -q --release -p mcp-scan-lang --example parse_tree >&2
  ours=("$CARGO_TARGET_DIR/release/examples/parse_tree" "$tree")
  ours_label="mcp-scan-lang front-end only (parse_tree; behavioral not wired yet)"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%q ' "${ours[@]}" > "$work/ours.cmd"

cat > "$work/inner.sh" <<INNER
set -euo pipefail
ip link set lo up
python3 "$root/benchmarks/static/llm_stub.py" "$work/port" &
stub=\$!
for _ in \$(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=\$(cat "$work/port")
export LITELLM_LOCAL_MODEL_COST_MAP=True
export HOME="$work/home"; mkdir -p "\$HOME"
llm_env=(MCP_SCANNER_LLM_API_KEY=stub-key "MCP_SCANNER_LLM_BASE_URL=http://127.0.0.1:\$port/v1" MCP_SCANNER_LLM_MODEL=openai/stub)
now() { date +%s.%N; }
# best NAME CMD...: best-of-$runs wall seconds into \$best_NAME.
best() {
  local name=\$1; shift
  local b="" t0 t1 d rc codes=""
  for i in \$(seq $runs); do
    t0=\$(now); rc=0; "\$@" > "$work/\$name.out" 2> "$work/\$name.err" || rc=\$?; t1=\$(now)
    codes="\$codes\${codes:+,}\$rc"
    d=\$(echo "\$t1 - \$t0" | bc)
    if [ -z "\$b" ] || [ \$(echo "\$d < \$b" | bc) -eq 1 ]; then b=\$d; fi
  done
  echo "\$name \$b \$codes"
}
best ours env -u MCP_SCANNER_LLM_API_KEY -u MCP_SCAN_LLM_API_KEY bash -c "\$(cat $work/ours.cmd)"
best peer env "\${llm_env[@]}" "$venv/bin/mcp-scanner" behavioral "$tree" --format raw
kill \$stub
INNER
declare -A t rcs
while read -r name secs codes; do t[$name]=$secs; rcs[$name]=$codes; done < <(unshare -rn bash "$work/inner.sh" 2>"$work/inner.err")
files=$(find "$tree" -name '*.py' | wc -l)
lines=$(find "$tree" -name '*.py' -print0 | xargs -0 cat | wc -l)
echo
echo "tree: $tree ($files .py files, $lines lines); best of $runs; cisco-ai-mcp-scanner $peer_version"
echo
echo "| tool | wall s (best) | exit codes of the runs |"
echo "|---|---|---|"
echo "| $ours_label | ${t[ours]} | ${rcs[ours]} |"
echo "| cisco-ai-mcp-scanner behavioral (LLM stub on 127.0.0.1) | ${t[peer]} | ${rcs[peer]} |"
echo
echo "- ratio (peer / ours static): $(echo "scale=1; ${t[peer]} / ${t[ours]}" | bc)x"
echo "- LLM requests served by the stub (all peer runs): $(cat "$work/port.count" 2>/dev/null || echo 0)"
echo "- peer tools in its last report: $(grep -o '"tool_name"' "$work/peer.out" 2>/dev/null | wc -l)"
sed 's/^/  inner: /' "$work/inner.err" >&2 || true
tail -3 "$work/peer.err" | sed 's/^/  peer stderr: /' >&2 || true
