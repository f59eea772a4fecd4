#!/usr/bin/env python3
"""Deterministic selection of the `unseen` split: Python MCP servers from PyPI that nobody on the
project picked (so nobody tuned the analyzer on them).

Procedure (fixed, so anyone can redo it and get the same list from the same name snapshot):
 1. Universe: a snapshot of PyPI's project names with their latest version and summary (a TSV
    with columns name, version, month, rank, summary; the one used is dated 2026-11, 27,203
    names containing "mcp"). Keep names that contain "mcp", whose summary contains the word
    "server" (the author says it is a server) and is not the uv template text, and that are not
    already in servers.tsv (dev/heldout) nor mcp's own SDK packages.
 2. Order them by sha256(SALT + name) (hex, ascending). The order does not depend on anything the
    analyzer does.
 3. Walk that order; for each name download the pinned version's wheel only (`pip download
    --no-deps --only-binary :all:`: a wheel download runs no code). Accept when the wheel
      - declares a console script (a way to start the server: ground truth comes from running it),
      - ships Python source that imports `mcp` or `fastmcp`.
    Reject otherwise, with the reason. Stop after N accepted.
 4. Write every candidate looked at with its verdict to unseen_selection.tsv, and print the
    servers.tsv rows (split `unseen`, entry = the first console script) for the accepted ones.

Nothing here looks at what mcp-scan finds: acceptance is decided before any scan.

usage: select_unseen.py --names PYPI_TSV [--n 30] [--dl DIR] [--salt S] [--out TSV] [--split NAME]
(the run recorded in unseen_selection.tsv: --n 30 with Python 3.12's pip, the default salt.)

Second unseen split (`unseen2`, recorded in unseen2_selection.tsv):
    select_unseen.py --names PYPI_TSV --n 40 --salt "mcp-scan unseen2 split 2026-11-24 " \
        --out unseen2_selection.tsv --split unseen2
It also excludes every package looked at in an earlier selection (*_selection.tsv), accepted or
not, and splits the accepted ones in two halves by a fixed rule (`half` below): unseen2-dev (may
be tuned on) and unseen2-heldout (measured once at the end, its misses not read).
unseen3 … unseen7 the same way, each with its own salt (UNSEEN3.md … UNSEEN7.md); unseen5, unseen6 and
unseen7 took its names from the machine's PyPI list cut to names containing "mcp" (UNSEEN5.md says how).
"""
import argparse
import hashlib
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SALT = "mcp-scan unseen split 2026-11-23 "
SDK = {"mcp", "fastmcp", "fastmcp-slim"}
IMPORTS_MCP = re.compile(rb"^\s*(from|import)\s+(mcp|fastmcp)(\.|\s|$)", re.M)
TEMPLATE = "add your description here"


def known(out_name):
    out = set()
    for line in (HERE / "servers.tsv").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            out.add(line.split("\t")[0].lower())
    # Packages looked at by an earlier selection, whatever the verdict (not the one being written).
    for sel in HERE.glob("*selection.tsv"):
        if sel.name == out_name:
            continue
        for line in sel.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                out.add(line.split("\t")[0].lower())
    return out


def half(split, name):
    """The fixed rule of the two halves: parity of the first byte of sha256(salt + "half " + name)."""
    if split == "unseen":
        return split
    h = hashlib.sha256((SALT + "half " + name.lower()).encode()).digest()[0]
    return f"{split}-heldout" if h % 2 else f"{split}-dev"


def universe(path, out_name):
    seen = known(out_name)
    rows = []
    with open(path, encoding="utf-8", errors="replace") as f:
        next(f)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 5:
                continue
            name, ver, _month, _rank, summary = parts[:5]
            low = name.lower()
            if "mcp" not in low or low in seen or low in SDK:
                continue
            if not re.search(r"\bserver\b", summary, re.I) or TEMPLATE in summary.lower():
                continue
            rows.append((name, ver, summary))
    rows.sort(key=lambda r: hashlib.sha256((SALT + r[0].lower()).encode()).hexdigest())
    return rows


def inspect(whl):
    with zipfile.ZipFile(whl) as z:
        names = z.namelist()
        scripts = []
        for n in names:
            if n.endswith(".dist-info/entry_points.txt"):
                section = None
                for line in z.read(n).decode(errors="replace").splitlines():
                    line = line.strip()
                    if line.startswith("["):
                        section = line.strip("[]").strip()
                    elif section == "console_scripts" and "=" in line:
                        scripts.append(line.split("=")[0].strip())
        imports = any(n.endswith(".py") and IMPORTS_MCP.search(z.read(n)) for n in names)
    return scripts, imports


def main():
    global SALT
    ap = argparse.ArgumentParser()
    ap.add_argument("--names", required=True)
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--dl", default=None)
    ap.add_argument("--pip", default=sys.executable + " -m pip")
    ap.add_argument("--salt", default=SALT)
    ap.add_argument("--out", default="unseen_selection.tsv")
    ap.add_argument("--split", default="unseen")
    a = ap.parse_args()
    SALT = a.salt
    dl = Path(a.dl or tempfile.mkdtemp())
    dl.mkdir(parents=True, exist_ok=True)
    log, accepted = [], []
    for name, ver, summary in universe(a.names, a.out):
        if len(accepted) >= a.n:
            break
        stem = re.sub(r"[-_.]+", "_", name).lower()
        whl = next((p for p in dl.glob("*.whl") if p.name.lower().startswith(f"{stem}-{ver}-")), None)
        if whl is None:
            p = subprocess.run(a.pip.split() + ["download", "-q", "--disable-pip-version-check", "--no-deps",
                                                "--only-binary", ":all:", "--python-version", "3.12", "-d", str(dl),
                                                f"{name}=={ver}"], capture_output=True, text=True, check=False)
            whl = next((p for p in dl.glob("*.whl") if p.name.lower().startswith(f"{stem}-{ver}-")), None)
            if whl is None:
                log.append((name, ver, "reject", "no wheel for py3.12 at the snapshot version"))
                continue
        scripts, imports = inspect(whl)
        if not scripts:
            log.append((name, ver, "reject", "no console script"))
        elif not imports:
            log.append((name, ver, "reject", "no source importing mcp or fastmcp"))
        else:
            # The server's own script: the one named after the package, else one naming mcp.
            script = next((c for c in scripts if c.lower() == name.lower()),
                          next((c for c in scripts if "mcp" in c.lower()), scripts[0]))
            log.append((name, ver, "accept", "console script " + script))
            accepted.append((name, ver, script))
    with open(HERE / a.out, "w") as f:
        f.write(f"# candidates of the {a.split} split in selection order (select_unseen.py, salt {a.salt!r}), with the verdict\n")
        f.write("# package\tversion\tverdict\treason\n")
        for row in log:
            f.write("\t".join(row) + "\n")
    for name, ver, script in accepted:
        print(f"{name}\t{ver}\t{half(a.split, name)}\t{script}\t-\t-\t-")
    print(f"{len(accepted)} accepted of {len(log)} looked at", file=sys.stderr)


if __name__ == "__main__":
    main()
