#!/usr/bin/env bash
# End to end on mcp-server-time, side by side in one run (median of RUNS whole-process times):
#   untraced   mcp-scan dynamic --untraced (same sandbox, same calls, no strace)  = baseline
#   traced     mcp-scan dynamic --tracer strace (strace -f --seccomp-bpf)
#   ebpf       mcp-scan dynamic --tracer ebpf (only when BPF loads here: root, or CAP_BPF+CAP_PERFMON)
#   mcp-behave the peer tool (strace without seccomp), inside `unshare -rn` so that even the peer's
#              run has no route out
# Usage: e2e_time.sh [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-5}
bin=${MCP_SCAN_BIN:-$root/target/release/mcp-scan}
[ -x "$bin" ] || { echo "build first: cargo build --release -p mcp-scan (or set MCP_SCAN_BIN)" >&2; exit 1; }
"$root/benchmarks/dynamic/setup.sh"
server="$root/.venv/bench-servers/bin/mcp-server-time"
behave="$root/.venv/bench-behave/bin/mcp-behave"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
timeit() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }
: >"$tmp/u"; : >"$tmp/t"; : >"$tmp/e"; : >"$tmp/b"
ebpf=0
"$bin" dynamic --tracer ebpf --fail-on never --format raw -- "$server" >/dev/null 2>&1 && ebpf=1
for _ in $(seq "$runs"); do
  timeit "$bin" dynamic --untraced --fail-on never --format raw -- "$server" >>"$tmp/u"
  timeit "$bin" dynamic --tracer strace --fail-on never --format raw -- "$server" >>"$tmp/t"
  [ "$ebpf" = 1 ] && timeit "$bin" dynamic --tracer ebpf --fail-on never --format raw -- "$server" >>"$tmp/e"
  timeit unshare -rn "$behave" --json --no-dns --fail-on never "$server" >>"$tmp/b"
done
u=$(median <"$tmp/u"); t=$(median <"$tmp/t"); b=$(median <"$tmp/b")
printf 'untraced %.3fs  traced %.3fs (%.2fx untraced)  mcp-behave %.3fs (traced is %.2fx faster)\n' \
  "$u" "$t" "$(echo "$t/$u" | bc -l)" "$b" "$(echo "$b/$t" | bc -l)"
if [ "$ebpf" = 1 ]; then
  e=$(median <"$tmp/e")
  printf 'ebpf %.3fs (%.2fx untraced)\n' "$e" "$(echo "$e/$u" | bc -l)"
else
  echo "ebpf: not measured (--tracer ebpf cannot load here)"
fi
