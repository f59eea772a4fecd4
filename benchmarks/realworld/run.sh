#!/usr/bin/env bash
# Static witness on the real-world corpus: `mcp-scan behavioral <src> --no-llm -f raw` on every
# package that fetch.sh unpacked, compared with ground_truth.toml (tools the servers list) and
# judgements.toml (MEDIUM+ findings judged true / declared / false by reading the code).
#   run.sh [--bin PATH] [--split dev|heldout|unseen|unseen2[-dev|-heldout]|all] [--json OUT]
# Tune only on the dev split; measure held-out at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${MCP_SCAN_BIN:-${CARGO_TARGET_DIR:-$root/target}/debug/mcp-scan}
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --split|--json|--jobs) args+=("$1" "$2"); shift 2 ;;
    --only) args+=("$@"); break ;;
    *) echo "usage: run.sh [--bin PATH] [--split dev|heldout|unseen|unseen2[-dev|-heldout]|all] [--json OUT] [--jobs N] [--only PKG...]" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "run.sh: no binary at $bin (cargo build -p mcp-scan --no-default-features, or --bin)" >&2; exit 1; }
dir=${MCP_SCAN_REALWORLD_DIR:-/tmp/mcp-realworld}
[ -f "$dir/SPLIT" ] || "$here/fetch.sh"
exec python3 "$here/run.py" --bin "$bin" "${args[@]}"
