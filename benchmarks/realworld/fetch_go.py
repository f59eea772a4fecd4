#!/usr/bin/env python3
"""The Go real-world corpus (TS.md): Go MCP servers' source, reconstructed file by file from the
stored copies of their public GitHub repositories, into a cache OUTSIDE the repository:

  $DIR/src/<owner>__<repo>-<pin>/<path>    one file per row of go_files.tsv
  $DIR/SPLIT                                "<split> <src dir>" lines (the `go` rows of servers.tsv)

DIR is ${MCP_SCAN_REALWORLD_GO_DIR:-/tmp/mcp-realworld-go}. No Go toolchain is on this machine
and the Go module proxy is not reachable, so the servers can neither be fetched as modules nor
built or run here; their source comes from the search tool's stored repository copies
(`read_file repo=<repo> path=<path> commit=<commit>`, 16,000 characters a page), which a shell
script cannot call. So this script does not download: it checks the reconstructed tree against
go_files.tsv (repository, pin, path, the commit of the stored version used, its length in
characters as the store reports it, sha256 of the file) and prints, for every file missing or
different, the exact look-up that restores it. `--record` rewrites the sha256 column from the
tree after a transcription (the character count is the store's and must already match).

<pin> is the commit of the server's registration file; the store keeps each file at the commits
that changed it, so a file that did not change there comes from another stored commit (its own
column says which). go_files.tsv lists only the files the servers' entry points and tool
registrations need (see TS.md for what each server's tree holds and leaves out).

usage: fetch_go.py [--record]
"""
import argparse
import hashlib
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from select_npm import split as salted_split  # noqa: E402
DIR = Path(os.environ.get("MCP_SCAN_REALWORLD_GO_DIR", "/tmp/mcp-realworld-go"))
LIST = HERE / "go_files.tsv"
COLS = ["repo", "pin", "path", "commit", "chars", "sha256"]


def dirname(repo, pin):
    return repo.replace("/", "__") + "-" + pin


def rows():
    out = []
    for line in LIST.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            out.append(dict(zip(COLS, line.split("\t"))))
    return out


def split_rows():
    out = {}
    for line in (HERE / "servers.tsv").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            f = line.split("\t")
            if len(f) > 7 and f[7] == "go":
                out[(f[0], f[1])] = f[2]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    rs = rows()
    bad = 0
    for r in rs:
        p = DIR / "src" / dirname(r["repo"], r["pin"]) / r["path"]
        if not p.is_file():
            print(f"missing  {p}\n         read_file repo={r['repo']} path={r['path']} commit={r['commit']} "
                  f"({r['chars']} characters)", file=sys.stderr)
            bad = 1
            continue
        text = p.read_text(encoding="utf-8")
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if str(len(text)) != r["chars"]:
            print(f"length   {p}: {len(text)} characters, the stored version has {r['chars']}", file=sys.stderr)
            bad = 1
        if a.record:
            r["sha256"] = digest
        elif digest != r.get("sha256"):
            print(f"differs  {p}: sha256 {digest} (listed {r.get('sha256')})\n         read_file repo={r['repo']} "
                  f"path={r['path']} commit={r['commit']}", file=sys.stderr)
            bad = 1
    if a.record:
        head = [line for line in LIST.read_text().splitlines() if line.startswith("#")]
        LIST.write_text("\n".join(head + ["\t".join(r[c] for c in COLS) for r in rs]) + "\n")
    splits = split_rows()
    lines = []
    for (repo, pin), split in sorted(splits.items()):
        if split != salted_split(repo, prefix="go"):
            print(f"split    {repo}: {split!r} but the salted hash puts it in {salted_split(repo, prefix='go')!r}", file=sys.stderr)
            bad = 1
        d = DIR / "src" / dirname(repo, pin)
        if d.is_dir():
            lines.append(f"{split} {d}")
    (DIR / "SPLIT").parent.mkdir(parents=True, exist_ok=True)
    (DIR / "SPLIT").write_text("\n".join(sorted(lines)) + "\n")
    print(f"fetch_go: {len(rs)} files of {len({(r['repo'], r['pin']) for r in rs})} servers checked, "
          f"{'some missing or different' if bad else 'all present and identical'} ({DIR / 'src'})", file=sys.stderr)
    return bad


if __name__ == "__main__":
    sys.exit(main())
