#!/usr/bin/env bash
# The floor under benchmarks/dynamic/overhead.sh: plain strace (no sandbox, no mcp-scan) on the
# same Python loops, side by side with the untraced loop, to show which part of the overhead is
# ptrace itself and what each strace option costs. The loop touches only a scratch file.
#   minimal: -f --seccomp-bpf -e trace=openat,execve,connect      (STACK.md's 4.2x configuration)
#   ours:    the flags and syscall set mcp-scan uses (crates/mcp-scan-dynamic/src/trace.rs)
#   ours+y:  ours plus -y (descriptor paths decoded by strace; mcp-scan resolves paths itself)
#   pipe:    ours, written to a pipe read by a blocking reader (`cat`) instead of /dev/null
# Each cell is the loop's own time (perf_counter inside Python), median of RUNS.
# Usage: strace_floor.sh [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-5}
set_=$(grep -A40 'TRACED_SYSCALLS: &\[&str\]' "$root/crates/mcp-scan-dynamic/src/trace.rs" \
  | sed -n '2,/^];/p' | grep -o '"[a-z0-9_]*"' | tr -d '"' | paste -sd,)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo hello >"$tmp/f.txt"
cat >"$tmp/loop.py" <<'PY'
import os, sys, time
mode, n, p = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t = time.perf_counter()
if mode == "read":
    for _ in range(n):
        with open(p) as f:
            f.read()
else:
    for _ in range(n):
        os.close(os.open(p, os.O_RDONLY))
print(f"{time.perf_counter() - t:.4f}")
PY
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ours=(-f --seccomp-bpf -ttt -qq -s 4096 -e signal=none -e "trace=$set_")
printf '%-5s %9s %9s %6s %9s %6s %9s %6s %9s %6s\n' mode untraced minimal x ours x ours+y x pipe x
for mode in read open; do
  args=("$mode" 20000 "$tmp/f.txt")
  : >"$tmp/u"; : >"$tmp/m"; : >"$tmp/o"; : >"$tmp/y"; : >"$tmp/p"
  for _ in $(seq "$runs"); do
    python3 "$tmp/loop.py" "${args[@]}" >>"$tmp/u"
    strace -f --seccomp-bpf -e trace=openat,execve,connect -o /dev/null python3 "$tmp/loop.py" "${args[@]}" >>"$tmp/m"
    strace "${ours[@]}" -o /dev/null python3 "$tmp/loop.py" "${args[@]}" >>"$tmp/o"
    strace "${ours[@]}" -y -o /dev/null python3 "$tmp/loop.py" "${args[@]}" >>"$tmp/y"
    { strace "${ours[@]}" -o /proc/self/fd/3 python3 "$tmp/loop.py" "${args[@]}" 3>&1 >&4 | cat >/dev/null; } 4>>"$tmp/p"
  done
  u=$(median <"$tmp/u")
  row="$mode $u"
  for f in m o y p; do
    v=$(median <"$tmp/$f")
    row="$row $v $(echo "$v / $u" | bc -l)"
  done
  # shellcheck disable=SC2086
  printf '%-5s %9.3f %9.3f %6.2f %9.3f %6.2f %9.3f %6.2f %9.3f %6.2f\n' $row
done
