#!/usr/bin/env bash
# Cisco's behavioral set, offline and without an LLM: per-category detection on the labelled
# tools, and findings at MEDIUM or above on Cisco's honest tools.
#   benchmarks/cisco/run.sh [--bin PATH] [--split dev|heldout|all] [-v] [--json FILE]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
bin="${CARGO_TARGET_DIR:-$repo/target}/debug/mcp-scan"
data="$repo/../shared/data/cisco-behavioral"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --data) data="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ -x "$bin" ] || { echo "no mcp-scan binary at $bin (cargo build -p mcp-scan --no-default-features, or --bin PATH)" >&2; exit 1; }
[ -d "$data/data" ] || { echo "Cisco's set is not at $data (expected ../shared/data/cisco-behavioral beside the repository)" >&2; exit 1; }
exec python3 "$here/score.py" --bin "$bin" --data "$data" "${args[@]}"
