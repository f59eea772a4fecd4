#!/usr/bin/env python3
"""Benign text on the `behavioral` surface: how many honest tools the description rules flag when
they read a real server's source (docstrings, `description=` strings, parameter docs) instead of a
manifest. See SURFACES5.md.

    surfaces_behavioral.py --bin BIN --wheels DIR [--fetch] [--packages FILE] [--work DIR]
                           [--json OUT] [--only-split tune|heldout] [--show]

Each `NAME==VERSION` of the package list (surfaces-behavioral-packages.txt) is a wheel in DIR
(`--fetch` gets the missing ones with `pip download --no-deps --only-binary :all:`; nothing is
installed or run). The wheel is unpacked into a scratch directory and scanned with `BIN behavioral
DIR --format raw --no-llm --fail-on never --server-name NAME`. A tool counts as a false alarm when
a description rule (`MCPS-D…`) has a finding on it at MEDIUM or above; other findings (static
rules on the code) are not this benchmark's subject and are only totalled. Packages are split into
`tune` and `heldout` by a salted SHA-256 of the package name, fixed before the first scan;
`--only-split` scores one half without showing the other, `--show` lists the flagged tools of the
halves shown.
"""
import argparse, collections, glob, hashlib, json, os, re, shutil, subprocess, sys, zipfile

SALT = "surfaces5/2026-11-24/descgen5"
RANK = {"INFO": 0, "LOW": 1, "MEDIUM": 2, "HIGH": 3, "CRITICAL": 4}
HERE = os.path.dirname(os.path.abspath(__file__))

def split_of(name):
    return "tune" if hashlib.sha256(f"{SALT}:{name}".encode()).digest()[0] % 2 == 0 else "heldout"

def norm(name):
    return re.sub(r"[-_.]+", "_", name).lower()

def find_wheel(wheels, name, version):
    for w in glob.glob(os.path.join(wheels, "*.whl")):
        parts = os.path.basename(w).split("-")
        if norm(parts[0]) == norm(name) and parts[1] == version:
            return w
    return None

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--wheels", required=True)
    ap.add_argument("--packages", default=os.path.join(HERE, "surfaces-behavioral-packages.txt"))
    ap.add_argument("--work", default="/tmp/mcp-scan-surfaces-behavioral")
    ap.add_argument("--fetch", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--only-split", choices=["tune", "heldout"])
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--timeout", type=int, default=900)
    a = ap.parse_args()

    pkgs = []
    for line in open(a.packages, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pkgs.append((name, version))
    os.makedirs(a.wheels, exist_ok=True)
    os.makedirs(a.work, exist_ok=True)
    rows, flagged_tools = [], []
    for name, version in pkgs:
        split = split_of(name)
        if a.only_split and split != a.only_split:
            continue
        whl = find_wheel(a.wheels, name, version)
        if whl is None and a.fetch:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
                            "-d", a.wheels, f"{name}=={version}"], check=False)
            whl = find_wheel(a.wheels, name, version)
        if whl is None:
            rows.append({"package": name, "version": version, "split": split, "error": "wheel missing"})
            continue
        src = os.path.join(a.work, norm(name))
        shutil.rmtree(src, ignore_errors=True)
        with zipfile.ZipFile(whl) as z:
            z.extractall(src, [m for m in z.namelist() if ".dist-info/" not in m])
        try:
            p = subprocess.run([a.bin, "behavioral", src, "--format", "raw", "--no-llm", "--fail-on", "never",
                                "--server-name", name], capture_output=True, text=True, timeout=a.timeout)
        except subprocess.TimeoutExpired:
            rows.append({"package": name, "version": version, "split": split, "error": f"timeout {a.timeout}s"})
            continue
        if p.returncode not in (0, 3, 4) or not p.stdout.strip():
            rows.append({"package": name, "version": version, "split": split, "error": f"exit {p.returncode}: {p.stderr[-300:]}"})
            continue
        report = json.loads(p.stdout)
        tools = [e for e in report["entities"] if e["target"]["kind"] == "tool"]
        desc_flag, other_flag = 0, 0
        for e in tools:
            med = [f for f in e["findings"] if RANK.get(f["severity"], 0) >= RANK["MEDIUM"]]
            d = [f for f in med if f["rule_id"].startswith("MCPS-D")]
            if d:
                desc_flag += 1
                flagged_tools.append((split, name, e["target"]["name"], d))
            elif med:
                other_flag += 1
        rows.append({"package": name, "version": version, "split": split, "tools": len(tools),
                     "description_medium": desc_flag, "other_medium_only": other_flag,
                     "coverage_gaps": len(report.get("coverage", {}).get("gaps", []))})
    splits = [a.only_split] if a.only_split else ["tune", "heldout"]
    print(f"{'package':<48} {'split':<8} {'tools':>6} {'D MED+':>7} {'gaps':>5}")
    for r in rows:
        if "error" in r:
            print(f"{r['package']:<48} {r['split']:<8} ERROR {r['error']}")
        else:
            print(f"{r['package']:<48} {r['split']:<8} {r['tools']:>6} {r['description_medium']:>7} {r['coverage_gaps']:>5}")
    for s in splits:
        part = [r for r in rows if r["split"] == s and "error" not in r]
        n = sum(r["tools"] for r in part)
        f = sum(r["description_medium"] for r in part)
        o = sum(r["other_medium_only"] for r in part)
        print(f"== {s}: {f}/{n} tools with a description finding at MEDIUM+ ({100 * f / max(n, 1):.2f}%) "
              f"from {len(part)} packages ({sum(1 for r in part if r['tools'])} with tools); "
              f"{o} more tools have only non-description findings at MEDIUM+")
    if a.show:
        for split, pkg, tool, fs in flagged_tools:
            for f in fs:
                print(f"  FP [{split}] {pkg}/{tool} {f['rule_id']} {f['severity']}: {f['observation'][:240]}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)

main()
