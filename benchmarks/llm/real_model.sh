#!/usr/bin/env bash
# The alignment check against a real local model (on demand, not CI): scans each target with
# `mcp-scan behavioral` and the LLM on, one request at a time, and prints per target the tools,
# the LLM's findings by severity, requests, prompt tokens and latency (from serve_local.mjs's
# log), and the model's answers per mode and qualification (from mcp-scan's own summary line).
#
#   benchmarks/llm/setup_local_model.sh
#   node benchmarks/llm/serve_local.mjs --port 8088 2> /tmp/serve.log &
#   benchmarks/llm/real_model.sh --bin target/debug/mcp-scan --server-log /tmp/serve.log \
#       --format json-schema --out /tmp/llm-real fixtures/python/honest_server ...
#
# Each answer format gets its own answer cache (--out/cache-FORMAT), so re-running a slice
# costs nothing and the two formats never share answers.
set -uo pipefail
bin="" log="" out="" format="json-schema" base="http://127.0.0.1:8088/v1"
model="qwen2.5-coder-1.5b-instruct-q4_k_m" timeout=600 deadline=3600
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --server-log) log=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --format) format=$2; shift 2 ;;
    --base-url) base=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ -x "$bin" ] && [ -f "$log" ] && [ -n "$out" ] || { echo "real_model.sh: give --bin, --server-log and --out" >&2; exit 1; }
mkdir -p "$out"
for t in "${targets[@]}"; do
  name=$(echo "$t" | tr '/' '_' | sed 's/^[._]*//')
  before=$(wc -l < "$log")
  start=$(date +%s.%N)
  "$bin" behavioral "$t" --llm-provider llamacpp --llm-model "$model" --llm-base-url "$base" \
    --llm-concurrency 1 --llm-timeout "$timeout" --llm-deadline "$deadline" \
    --llm-answer-format "$format" --llm-cache-dir "$out/cache-$format" \
    -f raw -o "$out/$name.$format.json" 2> "$out/$name.$format.err"
  code=$?
  end=$(date +%s.%N)
  tail -n +"$((before + 1))" "$log" | grep '^request:' > "$out/$name.$format.requests" || true
  python3 - "$t" "$out/$name.$format.json" "$out/$name.$format.err" "$out/$name.$format.requests" "$code" "$start" "$end" <<'PY'
import json, re, sys
target, raw, err, reqs, code, start, end = sys.argv[1:8]
try:
    r = json.load(open(raw))
except Exception:
    r = {}
llm = {"CRITICAL": 0, "HIGH": 0, "MEDIUM": 0, "LOW": 0, "INFO": 0}
incomplete = 0
tools = 0
for e in r.get("entities", []):
    if e["target"]["kind"] != "tool" or e["target"]["server"] == "mcp-scan-qualification":
        continue
    tools += 1
    for f in e.get("findings", []):
        if f.get("rule_id") == "MCPS-L001":
            llm[f["severity"]] = llm.get(f["severity"], 0) + 1
    st = {a["analyzer"]: a.get("state") for a in e.get("analyzers", [])}
    if st.get("llm") not in (None, "complete"):
        incomplete += 1
lines = [l for l in open(reqs)]
ms = [int(m.group(1)) for l in lines for m in [re.search(r" (\d+) ms", l)] if m]
pt = [int(m.group(1)) for l in lines for m in [re.search(r"prompt=(\d+)", l)] if m]
summary = [l.strip() for l in open(err) if "llm " in l and "request(s)" in l]
print(json.dumps({
    "target": target, "exit": int(code), "tools": tools,
    "llm_findings": {k: v for k, v in llm.items() if v}, "llm_incomplete": incomplete,
    "requests": len(lines), "prompt_tokens_max": max(pt, default=0),
    "prompt_tokens_mean": round(sum(pt) / len(pt)) if pt else 0,
    "latency_ms_mean": round(sum(ms) / len(ms)) if ms else 0, "wall_s": round(float(end) - float(start)),
    "llm_run": r.get("llm"), "summary": summary[-1] if summary else None,
}))
PY
done
