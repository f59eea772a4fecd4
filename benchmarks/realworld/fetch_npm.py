#!/usr/bin/env python3
"""Downloads the npm (TypeScript/JavaScript) real-world corpus: the `npm` rows of servers.tsv,
pinned to an exact version and the tarball's integrity hash, into a cache OUTSIDE the repository:

  $DIR/dl/<name>-<ver>.tgz     the registry's tarball (`npm pack NAME@VER`, which runs no code
                               for a registry spec; --ignore-scripts besides), checked against the
                               row's integrity (sha512, as the registry's dist.integrity)
  $DIR/src/<name>-<ver>/       the package as published (what static analysis reads), unpacked
                               with tarfile's `data` filter: no absolute paths, no `..`, no links
                               leaving the tree, no devices, no set-id bits
  $DIR/run/<name>-<ver>/       a copy with its production dependencies
                               (`npm install --omit=dev --ignore-scripts`: no install script of
                               any dependency runs on the host), what the runtime sandbox starts
  $DIR/SPLIT                   "<split> <src dir>" lines

<name> is the package name without a leading `@`, `/` written `__` (dirname() below; run.py and
ground_truth.py use the same). DIR is ${MCP_SCAN_REALWORLD_TS_DIR:-/tmp/mcp-realworld-ts}.
Idempotent. Also checks each row's split against its salted hash (select_npm.split) and its
`ships` column against the tarball: `ts-src` when the package ships TypeScript source (a .ts/.tsx/
.mts/.cts file that is not a declaration file), `js` when it ships only JavaScript (a build output
such as dist/ or build/, or hand-written JS).

usage: fetch_npm.py [--no-install] [--only NAME ...]
"""
import argparse
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from select_npm import split as salted_split  # noqa: E402

DIR = Path(os.environ.get("MCP_SCAN_REALWORLD_TS_DIR", "/tmp/mcp-realworld-ts"))
TS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")


def dirname(pkg, ver):
    return pkg.removeprefix("@").replace("/", "__") + "-" + ver


def rows(ecosystem="npm"):
    out = []
    for line in (HERE / "servers.tsv").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        f = (line.split("\t") + ["-"] * 10)[:10]
        if f[7] == ecosystem:
            out.append(dict(zip(["package", "version", "split", "entry", "args", "env", "deps", "ecosystem", "pin", "ships"], f)))
    return out


def integrity_ok(path, want):
    algo, _, b64 = want.partition("-")
    h = hashlib.new(algo, path.read_bytes()).digest()
    return base64.b64encode(h).decode() == b64


def ships(tree):
    for p in tree.rglob("*"):
        if "node_modules" in p.parts:
            continue
        n = p.name
        if n.endswith(TS_SUFFIXES) and not n.endswith((".d.ts", ".d.mts", ".d.cts")):
            return "ts-src"
    return "js"


def unpack(tgz, dest):
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        with tarfile.open(tgz, "r:gz") as t:
            t.extractall(tmp, filter="data")
    except (tarfile.TarError, OSError):
        # A member the data filter refuses (absolute path, `..`, a link out of the tree) fails the row.
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    # npm tarballs hold one top directory (usually `package/`).
    tops = list(tmp.iterdir())
    root = tops[0] if len(tops) == 1 and tops[0].is_dir() else tmp
    shutil.move(str(root), str(dest))
    shutil.rmtree(tmp, ignore_errors=True)


def fetch(r, install):
    name = dirname(r["package"], r["version"])
    tgz = DIR / "dl" / f"{name}.tgz"
    if not tgz.exists():
        p = subprocess.run(["npm", "pack", f"{r['package']}@{r['version']}", "--ignore-scripts", "--json",
                            "--pack-destination", str(DIR / "dl")], capture_output=True, text=True, timeout=300, check=False)
        if p.returncode != 0:
            return f"cannot download: {p.stderr.strip()[-200:]}"
        got = DIR / "dl" / json.loads(p.stdout)[0]["filename"].replace("/", "-").removeprefix("@")
        if not got.exists():
            cands = sorted((DIR / "dl").glob("*.tgz"), key=lambda q: q.stat().st_mtime)
            got = cands[-1]
        got.rename(tgz)
    if not integrity_ok(tgz, r["pin"]):
        tgz.rename(tgz.with_suffix(".tgz.bad"))
        return "integrity mismatch (tarball moved aside)"
    src = DIR / "src" / name
    if not src.is_dir():
        try:
            unpack(tgz, src)
        except (tarfile.TarError, OSError) as e:
            return f"refused to unpack: {e}"
    shipped = ships(src)
    msg = []
    if r["ships"] != shipped:
        msg.append(f"ships column says {r['ships']!r}, the tarball ships {shipped!r}")
    if r["split"] != salted_split(r["package"]):
        msg.append(f"split {r['split']!r} but the salted hash puts it in {salted_split(r['package'])!r}")
    run = DIR / "run" / name
    if install and not (run / ".installed").exists():
        shutil.rmtree(run, ignore_errors=True)
        shutil.copytree(src, run, symlinks=True)
        argv = ["npm", "install", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock",
                "--loglevel=error"]
        p = subprocess.run(argv, cwd=run, capture_output=True, text=True, timeout=900, check=False)
        if p.returncode != 0 and "EBADDEVENGINES" in p.stderr:
            # `devEngines` constrains the package's own development, not a production install: dropped from the
            # run copy only (src/ keeps the published package.json).
            pj = json.loads((run / "package.json").read_text())
            pj.pop("devEngines", None)
            (run / "package.json").write_text(json.dumps(pj, indent=2) + "\n")
            msg.append("note: devEngines dropped from the run copy's package.json")
            p = subprocess.run(argv, cwd=run, capture_output=True, text=True, timeout=900, check=False)
        if p.returncode != 0 and "ERESOLVE" in p.stderr:
            # A peer-dependency conflict in the published manifest: npm 6's resolution, as its users got.
            msg.append("note: installed with --legacy-peer-deps (peer-dependency conflict)")
            p = subprocess.run(argv + ["--legacy-peer-deps"], cwd=run, capture_output=True, text=True, timeout=900,
                               check=False)
        if p.returncode != 0:
            msg.append(f"npm install failed: {p.stderr.strip()[-300:]}")
        else:
            (run / ".installed").write_text(f"{r['package']}@{r['version']}\n")
    return "; ".join(msg) or None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-install", action="store_true")
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    for d in ("dl", "src", "run"):
        (DIR / d).mkdir(parents=True, exist_ok=True)
    fail = 0
    lines = []
    for r in rows():
        src = DIR / "src" / dirname(r["package"], r["version"])
        if a.only and r["package"] not in a.only:
            # SPLIT lists every row already fetched, whatever --only picks.
            if src.is_dir():
                lines.append(f"{r['split']} {src}")
            continue
        err = fetch(r, not a.no_install)
        if err:
            print(f"fetch_npm: {r['package']}@{r['version']}: {err}", file=sys.stderr)
            if any(not m.startswith("note:") for m in err.split("; ")):
                fail = 1
        if (DIR / "src" / dirname(r["package"], r["version"])).is_dir():
            lines.append(f"{r['split']} {DIR / 'src' / dirname(r['package'], r['version'])}")
    (DIR / "SPLIT").write_text("\n".join(sorted(lines)) + "\n")
    print(f"fetch_npm: {sum(1 for x in lines if x.startswith('ts-dev '))} ts-dev, "
          f"{sum(1 for x in lines if x.startswith('ts-heldout '))} ts-heldout packages in {DIR / 'src'}", file=sys.stderr)
    return fail


if __name__ == "__main__":
    sys.exit(main())
