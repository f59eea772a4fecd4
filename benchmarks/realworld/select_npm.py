#!/usr/bin/env python3
"""Deterministic selection of the npm (TypeScript/JavaScript) real-world corpus (TS.md).

Procedure (fixed, so anyone can redo it and get the same list from the same name snapshot):
 1. The official reference servers: every `@modelcontextprotocol/server-*` name in OFFICIAL that
    the registry still serves (`npm view`), at its latest version.
 2. Universe for the others: a snapshot of npm's package names (TSV: name, version,
    downloads_a_month, summary). Keep names outside the `@modelcontextprotocol/` scope where the
    name or the summary contains "mcp" and the summary contains "server", and whose summary does
    not call the package a library for building or relaying servers (LIBRARY_WORDS). Order them
    by downloads a month, descending (popularity), ties by name.
 3. Walk that order; for each name look at the snapshot version's metadata (`npm view NAME@VER
    --json`: one look-up per candidate, no tarball). Accept when it
      - is not deprecated,
      - declares a `bin` (a way to start the server: the ground truth comes from running it),
      - depends directly on `@modelcontextprotocol/sdk` or `fastmcp` (dependencies or
        peerDependencies: it is an MCP server built on the SDK, not a bundle or a wrapper),
      - needs no native build (no preinstall/install/postinstall script, no gypfile).
    Reject otherwise, with the reason. Stop after N accepted.
 4. Split every accepted name (official ones too) by a salted hash: `ts-heldout` when
    int(sha256(SALT + name)[:8], 16) % 3 == 0, else `ts-dev` (split() below; fetch_npm.sh checks it).
 5. Write every candidate looked at with its verdict to npm_selection.tsv and print the servers.tsv
    rows (ecosystem npm, the tarball's integrity, the first bin's script as the entry).

Nothing here looks at what mcp-scan finds: acceptance and split are decided before any scan.

usage: select_npm.py --names NPM_TSV [--n 20] [--salt S] [--out npm_selection.tsv]
"""
import argparse
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SALT = "mcp-scan ts13 npm split 2026-11-24 "
OFFICIAL = ["filesystem", "memory", "everything", "sequential-thinking", "github", "gitlab", "google-maps",
            "postgres", "puppeteer", "slack", "brave-search", "gdrive", "redis", "everart",
            "aws-kb-retrieval-server", "sqlite", "fetch", "git", "time", "sentry"]
SDKS = ("@modelcontextprotocol/sdk", "fastmcp")
LIBRARY_WORDS = re.compile(r"\b(sdk|framework|proxy|gateway|adapter|transport|inspector|library|evaluat\w*|bridge)\b", re.I)


def split(name, salt=SALT, prefix="ts"):
    # The Go rows use the same rule and salt with prefix "go" (fetch_go.py checks them).
    half = "heldout" if int(hashlib.sha256((salt + name).encode()).hexdigest()[:8], 16) % 3 == 0 else "dev"
    return f"{prefix}-{half}"


def view(spec):
    p = subprocess.run(["npm", "view", spec, "--json"], capture_output=True, text=True, timeout=120, check=False)
    if p.returncode != 0:
        return None
    d = json.loads(p.stdout)
    return d[-1] if isinstance(d, list) else d


def verdict(meta):
    if meta is None:
        return "reject", "not served by the registry at the snapshot version"
    if meta.get("deprecated"):
        return "reject", "deprecated"
    bins = meta.get("bin") or {}
    if isinstance(bins, str):
        bins = {meta["name"]: bins}
    if not bins:
        return "reject", "no bin (no way to start it)"
    deps = {**(meta.get("peerDependencies") or {}), **(meta.get("dependencies") or {})}
    if not any(s in deps for s in SDKS):
        return "reject", "no direct dependency on @modelcontextprotocol/sdk or fastmcp"
    scripts = meta.get("scripts") or {}
    native = [s for s in ("preinstall", "install", "postinstall") if s in scripts]
    if native or meta.get("gypfile"):
        return "reject", "install script / native build (" + ",".join(native or ["gypfile"]) + ")"
    return "accept", "bin " + sorted(bins)[0]


def entry(meta):
    bins = meta.get("bin") or {}
    if isinstance(bins, str):
        return bins.removeprefix("./")
    # The bin named like the package (sans scope) when there is one, else the first by name.
    short = meta["name"].split("/")[-1]
    key = short if short in bins else sorted(bins)[0]
    return bins[key].removeprefix("./")


def row(meta):
    return "\t".join([meta["name"], meta["version"], split(meta["name"]), entry(meta), "-", "-", "-", "npm",
                      meta["dist"]["integrity"], "?"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--names", required=True)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--salt", default=SALT)
    ap.add_argument("--out", default=str(HERE / "npm_selection.tsv"))
    a = ap.parse_args()
    lines = [f"# candidates of the npm corpus in selection order (select_npm.py, --n {a.n}), with the verdict",
             "# package\tversion\tdownloads_a_month\tverdict\treason"]
    rows = []
    for o in OFFICIAL:
        meta = view(f"@modelcontextprotocol/server-{o}")
        if meta is None:
            lines.append(f"@modelcontextprotocol/server-{o}\t-\t-\treject\tnot served by the registry")
            continue
        v, why = verdict(meta)
        # Official servers are taken even when deprecated (the issue names them); only a missing
        # bin would make them unrunnable.
        v = "accept" if meta.get("bin") else "reject"
        lines.append(f"{meta['name']}\t{meta['version']}\t-\t{v}\tofficial; {why}")
        if v == "accept":
            rows.append(row(meta))
    cands = []
    for line in Path(a.names).read_text(errors="replace").splitlines()[1:]:
        f = line.split("\t")
        if len(f) < 4:
            continue
        name, ver, dl, summary = f[0], f[1], f[2], f[3]
        low = name.lower()
        if low.startswith("@modelcontextprotocol/"):
            continue
        if ("mcp" in low or "mcp" in summary.lower()) and "server" in summary.lower() and not LIBRARY_WORDS.search(summary):
            cands.append((-int(dl or 0), name, ver))
    cands.sort()
    accepted = 0
    for negdl, name, ver in cands:
        if accepted >= a.n:
            break
        meta = view(f"{name}@{ver}")
        v, why = verdict(meta)
        lines.append(f"{name}\t{ver}\t{-negdl}\t{v}\t{why}")
        print(f"{v:6} {name}@{ver}: {why}", file=sys.stderr)
        if v == "accept":
            accepted += 1
            rows.append(row(meta))
    Path(a.out).write_text("\n".join(lines) + "\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
