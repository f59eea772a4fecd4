#!/usr/bin/env bash
# Tracing overhead of `mcp-scan dynamic`, measured side by side in one run: the same scan of the
# bench fixture traced and --untraced (same sandbox, client and sinks; only strace differs).
#   stat mode: the hot loop's syscall is not in the traced set, so --seccomp-bpf keeps it in the kernel
#   read mode: open()/read()/close in a loop, the workload STACK.md measured strace on (every open
#              traced: the 4.5x target of issue 5)
#   open mode: os.open/os.close and nothing else, the worst case (every iteration is one traced call)
# Reports the median of RUNS whole-process wall times and the ratio traced/untraced, plus the
# median duration of the tool call itself (from calls.jsonl). Usage: overhead.sh [RUNS]
# A second table measures the hot loops alone (no MCP session) untraced, under strace (the
# runtime's flags and traced set) and under the eBPF tracer of crates/mcp-scan-trace (its
# `ebpf_run` example: cargo build --release -p mcp-scan-trace --example ebpf_run, or set
# MCP_SCAN_EBPF_RUN), in the same run; skipped when that binary is missing. LOOPS_ONLY=1 runs
# just that table.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-5}
bin=${MCP_SCAN_BIN:-$root/target/release/mcp-scan}
py=${MCP_SCAN_TEST_PYTHON:-$root/.venv/mcp2/bin/python}
loops_only=${LOOPS_ONLY:-0} # 1: only the second table
[ "$loops_only" = 1 ] || [ -x "$bin" ] || { echo "build first: cargo build --release -p mcp-scan (or set MCP_SCAN_BIN)" >&2; exit 1; }
server="$root/fixtures/runtime/bench_server/server.py"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

one() { # mode n traced|untraced -> "wall call" seconds
  local mode=$1 n=$2 kind=$3 flag=() out="$tmp/out-$RANDOM"
  [ "$kind" = untraced ] && flag=(--untraced)
  local t0 t1
  t0=$(date +%s.%N)
  "$bin" dynamic "${flag[@]}" --no-probes --calls 1 --timeout 120 --fail-on never --format raw \
    --env "BENCH_MODE=$mode" --env "BENCH_N=$n" --out-dir "$out" -- "$py" "$server" >/dev/null 2>&1 || true
  t1=$(date +%s.%N)
  local call
  call=$(python3 -c 'import json,sys; c=[json.loads(l) for l in open(sys.argv[1])]; print(c[0]["end"]-c[0]["start"])' "$out/calls.jsonl")
  echo "$(echo "$t1 - $t0" | bc -l) $call"
}

[ "$loops_only" = 1 ] || printf '%-6s %8s %12s %12s %8s %12s %12s %8s\n' mode n untraced_s traced_s ratio untr_call_s tr_call_s ratio
for spec in "stat 200000" "read 20000" "open 20000"; do
  [ "$loops_only" = 1 ] && break
  set -- $spec
  : >"$tmp/u"; : >"$tmp/t"
  for _ in $(seq "$runs"); do
    one "$1" "$2" untraced >>"$tmp/u"
    one "$1" "$2" traced >>"$tmp/t"
  done
  uw=$(cut -d' ' -f1 "$tmp/u" | median); tw=$(cut -d' ' -f1 "$tmp/t" | median)
  uc=$(cut -d' ' -f2 "$tmp/u" | median); tc=$(cut -d' ' -f2 "$tmp/t" | median)
  printf '%-6s %8s %12.3f %12.3f %8.2f %12.3f %12.3f %8.2f\n' "$1" "$2" "$uw" "$tw" "$(echo "$tw/$uw" | bc -l)" "$uc" "$tc" "$(echo "$tc/$uc" | bc -l)"
done

ebpf_run=${MCP_SCAN_EBPF_RUN:-$root/target/release/examples/ebpf_run}
if [ ! -x "$ebpf_run" ]; then
  echo "(eBPF rows skipped: build $ebpf_run or set MCP_SCAN_EBPF_RUN)" >&2
  exit 0
fi
# The bench server's loops (fixtures/runtime/bench_server/server.py), timed inside the process.
loop='import os, sys, time
mode, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t = time.perf_counter()
if mode == "read":
    for _ in range(n):
        with open(path) as f:
            f.read()
else:
    for _ in range(n):
        os.close(os.open(path, os.O_RDONLY))
print(time.perf_counter() - t)'
target="$tmp/notes.txt"; printf 'some notes\n' >"$target"
set_=$("$ebpf_run" --syscalls)
loop_one() { # mode n untraced|strace|ebpf -> loop seconds
  local mode=$1 n=$2 kind=$3
  case $kind in
    untraced) python3 -c "$loop" "$mode" "$n" "$target" ;;
    strace) strace -f --seccomp-bpf -qq -e signal=none -e "trace=$set_" -o "$tmp/strace.out" \
              python3 -c "$loop" "$mode" "$n" "$target" ;;
    ebpf) "$ebpf_run" -- python3 -c "$loop" "$mode" "$n" "$target" 2>"$tmp/ebpf.err"
          grep -q ' lost=0 ' "$tmp/ebpf.err" || echo "eBPF run lost events: $(cat "$tmp/ebpf.err")" >&2 ;;
  esac
}
echo
printf '%-6s %8s %12s %12s %8s %12s %8s\n' loop n untraced_s strace_s ratio ebpf_s ratio
for spec in "read 20000" "open 20000"; do
  set -- $spec
  : >"$tmp/lu"; : >"$tmp/ls"; : >"$tmp/le"
  for _ in $(seq "$runs"); do
    loop_one "$1" "$2" untraced >>"$tmp/lu"
    loop_one "$1" "$2" strace >>"$tmp/ls"
    loop_one "$1" "$2" ebpf >>"$tmp/le"
  done
  u=$(median <"$tmp/lu"); st=$(median <"$tmp/ls"); e=$(median <"$tmp/le")
  printf '%-6s %8s %12.4f %12.4f %8.2f %12.4f %8.2f\n' "$1" "$2" "$u" "$st" "$(echo "$st/$u" | bc -l)" "$e" "$(echo "$e/$u" | bc -l)"
done
