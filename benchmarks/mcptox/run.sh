#!/usr/bin/env bash
# MCPTox benchmark for the description rules, plus the 10,000-tool speed check.
#
#   benchmarks/mcptox/run.sh [SHARED_DATA_DIR]    (default: ../shared/data next to the repo)
#
# Builds the release binary, prints the MCPTox scores (table and raw JSON), then times whole
# processes (median of 5 runs each): `mcp-scan --version` as the baseline (process start),
# `mcp-scan rules` (start + compiling every rule), the whole benchmark (491 poisoned + benign
# manifests) and `mcp-scan manifest` on a generated 10,000-tool manifest. The data is read in
# place and never copied into the repository.
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
data="${1:-$repo/../shared/data}"
poisoned="$data/mcptox/poisoned_tools_491.jsonl"
benign="$data/manifests"
[ -f "$poisoned" ] || { echo "missing $poisoned (pass the shared data directory)" >&2; exit 1; }
[ -d "$benign" ] || { echo "missing $benign" >&2; exit 1; }

target="${CARGO_TARGET_DIR:-$repo/target}"
cargo build --release --quiet --manifest-path "$repo/Cargo.toml" -p mcp-scan --no-default-features
bin="$target/release/mcp-scan"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== mcp-scan bench mcptox --data $poisoned --benign $benign"
"$bin" bench mcptox --data "$poisoned" --benign "$benign"
"$bin" bench mcptox --data "$poisoned" --benign "$benign" --format raw > "$work/bench.json"
echo "(raw JSON: $(wc -c < "$work/bench.json") bytes)"

python3 - "$work/big.json" <<'PY'
# 10,000 tools with varied, ordinary descriptions and schemas (a registry-sized manifest).
import json, random, sys
random.seed(7)
verbs = ["Returns", "Lists", "Creates", "Deletes", "Updates", "Searches", "Fetches", "Counts"]
nouns = ["invoices", "tickets", "pages", "rows", "events", "users", "files", "messages", "orders"]
extra = ["Results are paginated; pass the cursor from the previous call.",
         "Only works within the configured workspace.",
         "Use the `limit` parameter to cap the number of results.",
         "Times are in UTC unless a timezone is given.",
         "Fails if the item does not exist."]
tools = []
for i in range(10_000):
    n = random.choice(nouns)
    desc = f"{random.choice(verbs)} {n} of the connected account. " + " ".join(random.sample(extra, 2))
    props = {f"p{j}": {"type": "string", "description": f"Filter on {n} field {j}."} for j in range(3)}
    tools.append({"name": f"tool_{i}_{n}", "description": desc,
                  "inputSchema": {"type": "object", "properties": props}})
json.dump({"name": "big", "tools": tools}, open(sys.argv[1], "w"), indent=1)
PY

python3 - "$bin" "$poisoned" "$benign" "$work/big.json" <<'PY'
import statistics, subprocess, sys, time
bin_, poisoned, benign, big = sys.argv[1:]
def median(args, expect):
    times = []
    for _ in range(5):
        t = time.perf_counter()
        p = subprocess.run([bin_] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t)
        if p.returncode != expect:
            sys.exit(f"{args}: exit {p.returncode}, expected {expect}: {p.stderr.decode()}")
    return statistics.median(times)
base = median(["--version"], 0)
rules = median(["rules"], 0)
bench = median(["bench", "mcptox", "--data", poisoned, "--benign", benign, "--format", "raw"], 0)
big_t = median(["manifest", big, "--format", "raw"], 0)
print()
print("== whole-process wall time, median of 5")
print(f"{'command':<44} {'seconds':>8} {'x baseline':>11}")
for name, t in [("mcp-scan --version (baseline)", base), ("mcp-scan rules", rules),
                ("bench mcptox (491 + benign manifests)", bench),
                ("manifest, 10,000 tools (raw report)", big_t)]:
    print(f"{name:<44} {t:>8.3f} {t / base:>10.1f}x")
PY
