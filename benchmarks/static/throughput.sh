#!/usr/bin/env bash
# Front-end throughput of the static analysis on a large real tree: the installed site-packages
# of a venv holding `mcp` and its dependencies (target/bench-venv), with the default skips
# overridden so site-packages (and its tests) are scanned.
#
# Measures, whole-process, in this one run:
#   - our front-end (discover + parse + lower + entry points) end to end: wall time, lines/s,
#     peak RSS (/usr/bin/time -v), on all cores;
#   - the same with one worker thread;
#   - a baseline: CPython's own parser (`ast.parse` of every file, one process), as a ratio;
#   - linearity: a tree holding about half the lines vs the full tree;
#   - `mcp-scan behavioral` end to end on the same tree, when the binary has that command.
# Prints a markdown table; paste it into docs/benchmarks.md with the date.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
runs="${RUNS:-3}"
venv="$root/target/bench-venv"

if ! [ -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import mcp' 2>/dev/null; then
  echo "throughput: creating $venv with mcp" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "mcp==1.30.0" >&2
fi
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

echo "throughput: building release binaries" >&2
cargo build -q --release -p mcp-scan-lang --example parse_tree >&2
parse_tree="$CARGO_TARGET_DIR/release/examples/parse_tree"
# MCP_SCAN_BIN measures a binary built elsewhere (e.g. the merged release build) without
# rebuilding. Otherwise build one without the AWS Bedrock SDK, which the measurement never uses and
# which costs most of a cold release build on 2 cores.
mcp_scan="${MCP_SCAN_BIN:-}"
if [ -z "$mcp_scan" ] && grep -qi behavioral crates/mcp-scan/src/cli.rs \
   && cargo build -q --release -p mcp-scan --no-default-features >&2 \
   && "$CARGO_TARGET_DIR/release/mcp-scan" behavioral --help >/dev/null 2>&1; then
  mcp_scan="$CARGO_TARGET_DIR/release/mcp-scan"
fi

# Half tree: whole top-level packages copied until about half the lines are in.
half="$root/target/bench-half"
if ! [ -d "$half" ]; then
  mkdir -p "$half"
  total=$(find "$site" -name '*.py' -print0 | xargs -0 cat | wc -l)
  acc=0
  for entry in $(ls "$site" | sort); do
    n=$(find "$site/$entry" -name '*.py' -print0 2>/dev/null | xargs -0 -r cat | wc -l)
    if [ $((acc + n)) -le $((total / 2 + total / 20)) ]; then
      cp -r "$site/$entry" "$half/"
      acc=$((acc + n))
    fi
  done
fi

# Best of $runs: wall seconds, CPU seconds (user + sys) and peak RSS (KiB) of a command. CPU time
# is reported because the machine is shared: wall time inflates with other people's load, CPU
# time much less so.
measure() {
  local best="" cpu="" rss=0 out wall c kb
  for _ in $(seq "$runs"); do
    # exit 3/4 (findings / incomplete) are results, not failures
    out=$({ /usr/bin/time -v "$@" >/dev/null; } 2>&1 || true)
    wall=$(echo "$out" | awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
    c=$(echo "$out" | awk -F': ' '/User time \(seconds\)/ {u=$2} /System time \(seconds\)/ {s=$2} END {print u+s}')
    kb=$(echo "$out" | awk -F': ' '/Maximum resident set size/ {print $2}')
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall; fi
    if [ -z "$cpu" ] || awk "BEGIN{exit !($c < $cpu)}"; then cpu=$c; fi
    [ "$kb" -gt "$rss" ] && rss=$kb
  done
  echo "$best $cpu $rss"
}

stats() { "$parse_tree" --all "$1" | head -1; }
full_stats=$(stats "$site")
half_stats=$(stats "$half")
lines_full=$(echo "$full_stats" | sed 's/.* lines=\([0-9]*\).*/\1/')
lines_half=$(echo "$half_stats" | sed 's/.* lines=\([0-9]*\).*/\1/')
files_full=$(echo "$full_stats" | sed 's/.*files=\([0-9]*\).*/\1/')
incomplete=$(echo "$full_stats" | sed 's/.*incomplete=\([0-9]*\).*/\1/')

load_before=$(cut -d' ' -f1 /proc/loadavg)
read -r t_full c_full rss_full < <(measure "$parse_tree" --all "$site")
read -r t_one c_one rss_one < <(RAYON_NUM_THREADS=1 measure "$parse_tree" --all "$site")
read -r t_half c_half rss_half < <(measure "$parse_tree" --all "$half")
baseline_py='import sys, ast, pathlib
n = 0
for p in pathlib.Path(sys.argv[1]).rglob("*.py"):
    try:
        ast.parse(p.read_bytes())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    n += 1
'
read -r t_py c_py rss_py < <(measure "$venv/bin/python" -c "$baseline_py" "$site")

lps() { awk "BEGIN{printf \"%.0f\", $1 / $2}"; }
ratio() { awk "BEGIN{printf \"%.2f\", $1 / $2}"; }
cores=$(nproc)
echo
echo "tree: $site ($files_full files, $lines_full lines; half tree $lines_half lines); $cores cores; best of $runs"
echo
echo "| measurement | wall s | lines/s (wall) | CPU s | lines per CPU-second | peak RSS MiB |"
echo "|---|---|---|---|---|---|"
row() { echo "| $1 | $2 | $(lps "$5" "$2") | $3 | $(lps "$5" "$3") | $(($4 / 1024)) |"; }
row "front-end, full tree, all cores" "$t_full" "$c_full" "$rss_full" "$lines_full"
row "front-end, full tree, 1 thread" "$t_one" "$c_one" "$rss_one" "$lines_full"
row "front-end, half tree, all cores" "$t_half" "$c_half" "$rss_half" "$lines_half"
row "baseline: CPython ast.parse, full tree, 1 process" "$t_py" "$c_py" "$rss_py" "$lines_full"
if [ -n "$mcp_scan" ]; then
  read -r t_cmd c_cmd rss_cmd < <(measure "$mcp_scan" behavioral --no-llm --include '**' -f raw "$site")
  row "mcp-scan behavioral --no-llm, full tree" "$t_cmd" "$c_cmd" "$rss_cmd" "$lines_full"
fi
load_after=$(cut -d' ' -f1 /proc/loadavg)
echo
echo "- speed-up over CPython ast.parse: wall $(ratio "$t_py" "$t_full")x, CPU $(ratio "$c_py" "$c_full")x"
echo "- parallel speed-up (1 thread → $cores): $(ratio "$t_one" "$t_full")x"
echo "- linearity: lines ratio full/half $(ratio "$lines_full" "$lines_half"), wall ratio $(ratio "$t_full" "$t_half"), CPU ratio $(ratio "$c_full" "$c_half")"
echo "- files flagged incomplete (diagnostics): $incomplete"
echo "- 1-minute load average before/after: $load_before / $load_after"
