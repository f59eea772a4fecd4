#!/usr/bin/env bash
# Description witness beyond MCPTox: recall per attack class on the dev and held-out splits of
# benchmarks/description/attacks.jsonl, the MEDIUM+ rate on the real tool descriptions of
# benchmarks/description/benign.jsonl, then the MCPTox regression guard and speed checks
# (benchmarks/mcptox/run.sh).
#
#   benchmarks/description/run.sh [SHARED_DATA_DIR]   (default: ../shared/data next to the repo)
#   SHOW=1 benchmarks/description/run.sh              (also list dev misses and benign alarms)
#
# Rebuild the corpora with build_attacks.py and collect_benign.py (see their headers). Tune on
# the dev split only; the held-out split is the honest number. unseen.jsonl is a third split
# from other sources (vulnerable-MCP labs, attack write-ups, PyPI servers not in benign.jsonl),
# one provenance per record; see benchmarks/description/UNSEEN.md for what was measured when.
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
data="${1:-$repo/../shared/data}"
target="${CARGO_TARGET_DIR:-$repo/target}"
cargo build --release --quiet --manifest-path "$repo/Cargo.toml" -p mcp-scan --no-default-features
bin="$target/release/mcp-scan"

extra=()
[ -n "${SHOW:-}" ] && extra=(--show-misses --show-fp)
python3 "$repo/benchmarks/description/evaluate.py" "$bin" \
  "$repo/benchmarks/description/attacks.jsonl" "$repo/benchmarks/description/benign.jsonl" \
  --unseen "$repo/benchmarks/description/unseen.jsonl" \
  --unseen "$repo/benchmarks/description/unseen2.jsonl" "${extra[@]}"
echo
if [ -f "$data/mcptox/poisoned_tools_491.jsonl" ]; then
  "$repo/benchmarks/mcptox/run.sh" "$data"
else
  echo "(MCPTox skipped: $data/mcptox/poisoned_tools_491.jsonl not found)"
fi
