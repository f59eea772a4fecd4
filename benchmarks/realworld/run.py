#!/usr/bin/env python3
"""Compares `mcp-scan behavioral --no-llm -f raw` on each corpus package with the ground truth.

Per package: tools listed (ground_truth.toml), tools found statically (matched by name), the
missing names, whether the scan found no tool at all, exit code, INCOMPLETE, and every finding at
MEDIUM or above with its judgement from judgements.toml (true | declared | false; "?" when not
judged yet). Totals per split: tools found / listed, MEDIUM+ findings by judgement, false HIGHs
per 100 listed tools.

usage: run.py --bin PATH [--split dev|heldout|unseen|unseen2[-dev|-heldout]|unseen3[-dev|-heldout]|unseen4[-dev|-heldout]|unseen5[-dev|-heldout]|unseen6[-dev|-heldout]|unseen7[-dev|-heldout]|ts[-dev|-heldout]|go[-dev|-heldout]|all] [--json OUT] [--only PKG ...] [--jobs N] [--totals]
(--totals: totals per split only, for a held-out half whose per-package results are not to be read;
`all` is every PyPI split; the npm and Go corpora (TS.md) are `ts` and `go`)
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("MCP_SCAN_REALWORLD_DIR", "/tmp/mcp-realworld"))
AT_LEAST_MEDIUM = ("CRITICAL", "HIGH", "MEDIUM")
TIMEOUT = int(os.environ.get("MCP_SCAN_REALWORLD_TIMEOUT", "900"))


# npm and Go rows (TS.md) live in caches of their own, laid out like the PyPI one ($DIR/src/<name>-<ver>).
ECO_CACHE = {
    "pypi": CACHE,
    "npm": Path(os.environ.get("MCP_SCAN_REALWORLD_TS_DIR", "/tmp/mcp-realworld-ts")),
    "go": Path(os.environ.get("MCP_SCAN_REALWORLD_GO_DIR", "/tmp/mcp-realworld-go")),
}


def dirname(pkg, ver):
    # Scoped npm names and Go module paths (`@scope/name`, `owner/repo`) as one directory name;
    # PyPI names are unchanged.
    return pkg.removeprefix("@").replace("/", "__") + "-" + ver


def rows():
    out = []
    for line in (HERE / "servers.tsv").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            f = line.split("\t")
            pkg, ver, split = f[:3]
            eco = f[7] if len(f) > 7 and f[7] != "-" else "pypi"
            out.append((pkg, ver, split, eco))
    return out


def load_toml(name, key):
    p = HERE / name
    return tomllib.loads(p.read_text()).get(key, {}) if p.exists() else {}


def finding_key(pkg, f):
    loc = f.get("location") or {}
    return f"{pkg}|{f['target']['name']}|{f['rule_id']}|{loc.get('file', '')}:{loc.get('line', '')}"


def judge(judgements, key):
    j = judgements.get(key)
    if j:
        return j["verdict"], j.get("reason", "")
    # Same server, tool and rule at another line (a binary may report another sink of the same
    # flow): use it only when every judgement of that triple agrees.
    prefix = key.rsplit("|", 1)[0] + "|"
    same = {v["verdict"] for k, v in judgements.items() if k.startswith(prefix)}
    if len(same) == 1:
        return same.pop() + "~", "judged at another line"
    return "?", ""


def scan(binary, pkg, ver, eco="pypi"):
    src = ECO_CACHE[eco] / "src" / dirname(pkg, ver)
    if not src.is_dir():
        fetcher = {"pypi": "fetch.sh", "npm": "fetch_npm.py", "go": "fetch_go.py"}[eco]
        return {"error": f"missing {src} (run {fetcher})"}
    try:
        p = subprocess.run([binary, "behavioral", str(src), "--no-llm", "-f", "raw", "--server-name", pkg],
                           capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        # A scan that does not finish found nothing: reported, never dropped from the totals.
        return {"error": f"scan did not finish in {TIMEOUT} s"}
    try:
        report = json.loads(p.stdout)
    except json.JSONDecodeError:
        return {"error": f"exit {p.returncode}, unreadable report: {p.stderr.strip()[-300:]}", "exit": p.returncode}
    return {"exit": p.returncode, "report": report}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--split", default="all", choices=["dev", "heldout", "unseen", "unseen2-dev", "unseen2-heldout", "unseen2",
                                                             "unseen3-dev", "unseen3-heldout", "unseen3",
                                                             "unseen4-dev", "unseen4-heldout", "unseen4",
                                                             "unseen5-dev", "unseen5-heldout", "unseen5",
                                                             "unseen6-dev", "unseen6-heldout", "unseen6",
                                                             "unseen7-dev", "unseen7-heldout", "unseen7",
                                                             "ts-dev", "ts-heldout", "ts", "go-dev", "go-heldout", "go", "all"])
    ap.add_argument("--json")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--jobs", type=int, default=2)
    # For a held-out half: print the totals only, so its per-package misses and findings stay unread.
    ap.add_argument("--totals", action="store_true")
    a = ap.parse_args()
    gt = load_toml("ground_truth.toml", "servers")
    judgements = load_toml("judgements.toml", "findings")
    # `all` is every PyPI split (as before the npm and Go rows came); `ts` and `go` name theirs.
    todo = [r for r in rows() if ((a.split == "all" and r[3] == "pypi") or r[2] == a.split or r[2].startswith(a.split + "-"))
            and (not a.only or r[0] in a.only)]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        scans = list(ex.map(lambda r: scan(a.bin, r[0], r[1], r[3]), todo))
    results = []
    for (pkg, ver, split, _eco), s in zip(todo, scans):
        listed = sorted(gt.get(pkg, {}).get("tools", []))
        res = {"package": pkg, "version": ver, "split": split, "listed": listed,
               "gt_source": gt.get(pkg, {}).get("source", "none")}
        if "error" in s:
            res.update(error=s["error"], exit=s.get("exit"), found=[], static=[], findings=[], incomplete=None,
                       no_tools=True, missing=listed)
            results.append(res)
            continue
        r = s["report"]
        static = sorted({e["target"]["name"] for e in r["entities"] if e["target"]["kind"] == "tool"})
        found = sorted(set(static) & set(listed))
        findings = []
        for e in r["entities"]:
            for f in e["findings"]:
                if f["severity"] in AT_LEAST_MEDIUM:
                    key = finding_key(pkg, f)
                    verdict, reason = judge(judgements, key)
                    findings.append({"key": key, "tool": f["target"]["name"], "rule": f["rule_id"],
                                     "severity": f["severity"], "observation": f["observation"],
                                     "verdict": verdict, "reason": reason})
        cov = r.get("coverage") or {}
        res.update(exit=s["exit"], static=static, found=found, missing=sorted(set(listed) - set(static)),
                   extra=sorted(set(static) - set(listed)), no_tools=not static,
                   incomplete=r["summary"].get("incomplete", 0) > 0 or bool(cov.get("gaps")),
                   gaps=len(cov.get("gaps") or []), findings=findings)
        results.append(res)

    for split in sorted({r["split"] for r in results}) if a.totals else ():
        sel = [r for r in results if r["split"] == split]
        print(f"{split}: scan errors {sum(1 for r in sel if 'error' in r)}  INCOMPLETE {sum(1 for r in sel if r.get('incomplete'))}")
    if not a.totals:
        print(f"{'package':40} {'split':7} {'found':>9} exit incompl  MEDIUM+ (verdicts)  missing")
    for res in results if not a.totals else ():
        if "error" in res:
            print(f"{res['package']:40} {res['split']:7} ERROR {res['error']}")
            continue
        verdicts = ",".join(f["verdict"] for f in res["findings"])
        miss = " ".join(res["missing"][:6]) + (" …" if len(res["missing"]) > 6 else "")
        flag = " NO-TOOLS" if res["no_tools"] else ""
        print(f"{res['package']:40} {res['split']:7} {len(res['found']):>4}/{len(res['listed']):<4} {res['exit']:>4} "
              f"{'yes' if res['incomplete'] else 'no':>7}  {len(res['findings']):>3} ({verdicts}){flag}  {miss}")
    if not a.totals:
        print()
        print("Findings at MEDIUM or above:")
    for res in results if not a.totals else ():
        for f in res.get("findings", []):
            print(f"  [{f['verdict']:8}] {f['severity']:8} {f['rule']:10} {res['package']}/{f['tool']}: {f['observation'][:160]}")
            print(f"             key {f['key']}")
    print()
    for split in ("dev", "heldout", "unseen", "unseen2-dev", "unseen2-heldout", "unseen3-dev", "unseen3-heldout",
                  "unseen4-dev", "unseen4-heldout", "unseen5-dev", "unseen5-heldout", "unseen6-dev", "unseen6-heldout",
                  "unseen7-dev", "unseen7-heldout", "ts-dev", "ts-heldout",
                  "go-dev", "go-heldout", "all"):
        sel = [r for r in results if split == "all" or r["split"] == split]
        if not sel:
            continue
        listed = sum(len(r["listed"]) for r in sel)
        found = sum(len(r["found"]) for r in sel)
        no_tools = sum(1 for r in sel if r.get("no_tools") and r["listed"])
        fs = [f for r in sel for f in r.get("findings", [])]
        by = lambda sev, v: sum(1 for f in fs if f["severity"] in sev and f["verdict"].rstrip("~") == v)
        high = ("CRITICAL", "HIGH")
        false_high = by(high, "false")
        print(f"{split:8} packages {len(sel)}  tools found {found}/{listed} ({100 * found / max(listed, 1):.1f}%)  "
              f"no-tools packages {no_tools}  MEDIUM+ {len(fs)} (HIGH+ {sum(1 for f in fs if f['severity'] in high)})  "
              f"false HIGH+ {false_high} ({100 * false_high / max(listed, 1):.2f} per 100 tools)  "
              f"false MEDIUM {by(('MEDIUM',), 'false')}  true {by(AT_LEAST_MEDIUM, 'true')}  "
              f"declared {by(AT_LEAST_MEDIUM, 'declared')}  unjudged {sum(1 for f in fs if f['verdict'] == '?')}")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.exit(main())
