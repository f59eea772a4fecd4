#!/usr/bin/env bash
# Downloads the real-world corpus (servers.tsv: real Python MCP servers from PyPI at pinned
# versions) into a cache OUTSIDE the repository and unpacks each wheel's source:
#   $DIR/src/<pkg>-<ver>/     the package source (static analysis reads this)
#   $DIR/SPLIT                "dev <dir>" / "heldout <dir>" / "unseen <dir>" lines (the split column
#                             of servers.tsv)
# With --venv it also installs each package (with its dependencies) into $DIR/venv/<pkg> so the
# server can be run in the runtime sandbox for the ground truth (ground_truth.sh).
# DIR is ${MCP_SCAN_REALWORLD_DIR:-/tmp/mcp-realworld}. Idempotent; wheels only: downloading a
# wheel executes nothing (an sdist's build would run the package's setup code on the host).
# The split is deterministic: held-out when int(sha256(name)[:8], 16) % 3 == 0 (checked here);
# `unseen` rows were picked by select_unseen.py (nobody chose them) and keep their split.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${MCP_SCAN_REALWORLD_DIR:-/tmp/mcp-realworld}
py=${MCP_SCAN_REALWORLD_PYTHON:-}
with_venv=0
for a in "$@"; do
  case $a in
    --venv) with_venv=1 ;;
    *) echo "usage: fetch.sh [--venv]" >&2; exit 2 ;;
  esac
done
# Several servers need Python >= 3.12.
if [ -z "$py" ]; then
  for c in python3.13 python3.12 /root/.pyenv/versions/3.12.1/bin/python3 python3; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      py=$(command -v "$c"); break
    fi
  done
fi
[ -n "$py" ] || { echo "fetch.sh: needs a Python >= 3.12 (set MCP_SCAN_REALWORLD_PYTHON)" >&2; exit 1; }
pyver=$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
mkdir -p "$dir/dl" "$dir/src" "$dir/venv"
[ -x "$dir/tools/bin/pip" ] || "$py" -m venv "$dir/tools"
pip="$dir/tools/bin/pip"
uv=""
if [ "$with_venv" = 1 ]; then
  [ -x "$dir/tools/bin/uv" ] || "$pip" install -q --disable-pip-version-check uv >&2 || true
  [ -x "$dir/tools/bin/uv" ] && uv="$dir/tools/bin/uv"
fi
split_tmp=$(mktemp)
trap 'rm -f "$split_tmp"' EXIT
fail=0
while IFS=$'\t' read -r pkg ver split _entry _args _env deps eco _rest; do
  case $pkg in '#'*|'') continue ;; esac
  # Rows of other ecosystems (npm, go) have their own fetchers (TS.md).
  case ${eco:-pypi} in pypi) ;; *) continue ;; esac
  want=$("$py" -c 'import hashlib, sys; print("heldout" if int(hashlib.sha256(sys.argv[1].encode()).hexdigest()[:8], 16) % 3 == 0 else "dev")' "$pkg")
  if [ "${split#unseen}" = "$split" ] && [ "$want" != "$split" ]; then
    echo "fetch.sh: $pkg is in split '$split' but its hash puts it in '$want'" >&2; fail=1
  fi
  src="$dir/src/$pkg-$ver"
  whl_name=$(echo "$pkg" | tr '-' '_')
  if [ ! -d "$src" ]; then
    whl=$(ls "$dir/dl/$whl_name-$ver-"*.whl 2>/dev/null | head -1 || true)
    if [ -z "$whl" ]; then
      "$pip" download -q --disable-pip-version-check --no-deps --only-binary :all: \
        --python-version "$pyver" -d "$dir/dl" "$pkg==$ver" >&2 || { echo "fetch.sh: cannot download $pkg==$ver" >&2; fail=1; continue; }
      whl=$(ls "$dir/dl/$whl_name-$ver-"*.whl 2>/dev/null | head -1 || true)
    fi
    [ -n "$whl" ] || { echo "fetch.sh: no wheel for $pkg==$ver" >&2; fail=1; continue; }
    mkdir -p "$src.tmp"
    "$py" -m zipfile -e "$whl" "$src.tmp"
    mv "$src.tmp" "$src"
  fi
  echo "$split $src" >>"$split_tmp"
  # deps: extra pins the server needs to start (it was released against them: mcp<2 for the
  # 1.x API when its own metadata leaves mcp unbounded).
  specs=("$pkg==$ver")
  [ -n "${deps:-}" ] && [ "$deps" != "-" ] && read -r -a extra <<<"$deps" && specs+=("${extra[@]}")
  if [ "$with_venv" = 1 ] && [ "$(cat "$dir/venv/$pkg/.installed" 2>/dev/null)" != "${specs[*]}" ]; then
    echo "fetch.sh: installing ${specs[*]}" >&2
    rm -rf "$dir/venv/$pkg"
    if [ -n "$uv" ]; then
      "$uv" venv -q --python "$py" "$dir/venv/$pkg" &&
        VIRTUAL_ENV="$dir/venv/$pkg" "$uv" pip install -q --only-binary :all: --python "$dir/venv/$pkg/bin/python" "${specs[@]}" >&2 ||
        { echo "fetch.sh: install of $pkg failed" >&2; continue; }
    else
      "$py" -m venv "$dir/venv/$pkg" &&
        "$dir/venv/$pkg/bin/pip" install -q --disable-pip-version-check --only-binary :all: "${specs[@]}" >&2 ||
        { echo "fetch.sh: install of $pkg failed" >&2; continue; }
    fi
    echo "${specs[*]}" >"$dir/venv/$pkg/.installed"
  fi
done <"$here/servers.tsv"
sort "$split_tmp" >"$dir/SPLIT"
echo "fetch.sh: $(grep -c '^dev ' "$dir/SPLIT") dev, $(grep -c '^heldout ' "$dir/SPLIT") held-out, $(grep -c '^unseen ' "$dir/SPLIT" || true) unseen, $(grep -c "^unseen2-" "$dir/SPLIT" || true) unseen2, $(grep -c "^unseen3-" "$dir/SPLIT" || true) unseen3, $(grep -c "^unseen4-" "$dir/SPLIT" || true) unseen4, $(grep -c "^unseen5-" "$dir/SPLIT" || true) unseen5, $(grep -c "^unseen6-" "$dir/SPLIT" || true) unseen6, $(grep -c "^unseen7-" "$dir/SPLIT" || true) unseen7 packages in $dir/src (list: $dir/SPLIT)" >&2
exit $fail
