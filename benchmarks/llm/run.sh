#!/usr/bin/env bash
# Scores the LLM alignment check against ground truth (benchmarks/llm/ground_truth.toml) with any
# OpenAI-compatible endpoint, printing accuracy, mean tokens per tool and requests per tool (first
# scan and re-scan through the answer cache).
#
#   benchmarks/llm/run.sh --base-url http://127.0.0.1:8080/v1 --model qwen2.5-7b-instruct
#   benchmarks/llm/run.sh --base-url https://api.openai.com/v1 --model gpt-4.1-mini --api-key-env OPENAI_API_KEY
#   benchmarks/llm/run.sh --stub     # the test stub (a keyword rule, not a model): exercises the script
#
# Options: --from-fixtures also scores `mcp-scan behavioral fixtures/python/<server>` summaries of
# every server named in the ground truth (needs the behavioral command); --concurrency N.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

base_url="" model="" key_env="" stub=0 from_fixtures=0 concurrency=4
while [ $# -gt 0 ]; do
  case "$1" in
    --base-url) base_url=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --api-key-env) key_env=$2; shift 2 ;;
    --concurrency) concurrency=$2; shift 2 ;;
    --stub) stub=1; shift ;;
    --from-fixtures) from_fixtures=1; shift ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done

cargo build -q -p mcp-scan-llm --examples >&2
bin="$CARGO_TARGET_DIR/debug/examples"
work=$(mktemp -d)
stub_pid=""
cleanup() { [ -n "$stub_pid" ] && kill "$stub_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

if [ "$stub" = 1 ]; then
  "$bin/llm_stub" --port-file "$work/port" --seconds 600 &
  stub_pid=$!
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  [ -s "$work/port" ] || { echo "run.sh: stub did not start" >&2; exit 1; }
  base_url="http://127.0.0.1:$(cat "$work/port")/v1"
  model="stub-keyword-rule"
fi
[ -n "$base_url" ] && [ -n "$model" ] || { echo "run.sh: give --base-url and --model, or --stub" >&2; exit 1; }

cases=("$root/benchmarks/llm/cases.json")
if [ "$from_fixtures" = 1 ]; then
  cargo build -q -p mcp-scan >&2
  for server in $(sed -n 's/^server = "\(.*\)"/\1/p' benchmarks/llm/ground_truth.toml | sort -u); do
    dir="fixtures/python/$server"
    [ -d "$dir" ] || continue
    # Exit 3 (findings) is expected for the malicious fixtures.
    "$CARGO_TARGET_DIR/debug/mcp-scan" behavioral "$dir" --no-llm -f raw -o "$work/$server.json" || [ $? -eq 3 ] || [ $? -eq 4 ]
    cases+=("$work/$server.json")
  done
fi

args=(--base-url "$base_url" --model "$model" --concurrency "$concurrency" --ground-truth benchmarks/llm/ground_truth.toml)
[ -n "$key_env" ] && args+=(--api-key-env "$key_env")
echo "command: benchmarks/llm/run.sh $( [ "$stub" = 1 ] && echo --stub || echo --base-url "$base_url" --model "$model")$( [ "$from_fixtures" = 1 ] && echo ' --from-fixtures')"
"$bin/llm_bench" "${args[@]}" "${cases[@]}"
