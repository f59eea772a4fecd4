#!/usr/bin/env python3
"""Scores `mcp-scan behavioral --no-llm -f raw` on Cisco's behavioral set against labels.toml.

A sample is detected when one of its labelled tools has a finding at MEDIUM or above whose rule
is acceptable for it (labels.toml: the rules of its category's behaviours and of its own). The
held-out split is about a third of each category, chosen by the sha256 of the file name, so it
does not move when samples or rules change. Safe servers: every finding at MEDIUM or above on a
tool that is not malicious counts against us.
"""

import argparse
import hashlib
import json
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEVERE = {"MEDIUM", "HIGH", "CRITICAL"}
# Honest tools of Cisco's safe, helper and mixed servers (scripts/): nothing at MEDIUM or above.
SAFE = [
    ("safe_fastmcp_server.py", None),
    ("helpers_only_server.py", None),
    ("mcp_plus_helpers_server.py", None),
    ("mixed_fastmcp_server.py", {"echo", "add"}),
]
# Honest tools inside malicious samples: judged like the safe servers.
HONEST_IN_SAMPLES = {"data-exfiltration/postmark_bcc_exfiltration.py": {"list_templates", "get_delivery_stats"}}


def split_of(path: str, by_cat: dict) -> str:
    cat, name = path.split("/", 1)
    ranked = sorted(by_cat[cat], key=lambda p: hashlib.sha256(p.split("/", 1)[1].encode()).hexdigest())
    held = set(ranked[: round(len(ranked) / 3)])
    return "heldout" if path in held else "dev"


def scan(binary: str, target: Path) -> dict:
    r = subprocess.run([binary, "behavioral", str(target), "--no-llm", "-f", "raw"],
                       capture_output=True, text=True, timeout=300)
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError:
        return {"entities": [], "error": r.stderr.strip()[-300:]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--data", required=True, help="cisco-behavioral directory (data/ and scripts/)")
    ap.add_argument("--split", choices=["dev", "heldout", "all"], default="all")
    ap.add_argument("--json", help="write per-sample results here")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every miss")
    a = ap.parse_args()
    labels = tomllib.loads((HERE / "labels.toml").read_text())
    beh = labels["behaviour"]
    cats = labels["category"]
    samples = labels["sample"]
    by_cat = defaultdict(list)
    for s in samples:
        by_cat[s["path"].split("/", 1)[0]].append(s["path"])
    data = Path(a.data)
    found = {str(p.relative_to(data / "data")) for p in (data / "data").glob("*/*.py")}
    missing = found - {s["path"] for s in samples}
    if missing:
        print(f"unlabelled samples: {sorted(missing)}", file=sys.stderr)
        return 1

    per_cat = defaultdict(lambda: [0, 0])
    results = []
    honest_severe = []
    for s in samples:
        split = split_of(s["path"], by_cat)
        if a.split != "all" and split != a.split:
            continue
        cat = s["path"].split("/", 1)[0]
        ok_rules = set()
        for b in cats[cat]["behaviours"] + s["behaviours"]:
            ok_rules.update(beh[b]["rules"])
        report = scan(a.bin, data / "data" / s["path"])
        hits, side = [], []
        for e in report.get("entities", []):
            name = e["target"]["name"]
            for f in e.get("findings", []):
                if f["severity"] not in SEVERE:
                    continue
                if name in HONEST_IN_SAMPLES.get(s["path"], set()):
                    honest_severe.append((s["path"], name, f["rule_id"], f["severity"]))
                elif name in s["tools"]:
                    (hits if f["rule_id"] in ok_rules else side).append(f["rule_id"])
        detected = bool(hits)
        per_cat[cat][0] += detected
        per_cat[cat][1] += 1
        results.append({"path": s["path"], "split": split, "detected": detected,
                        "rules": sorted(set(hits)), "side_rules": sorted(set(side)),
                        "tools_found": [e["target"]["name"] for e in report.get("entities", [])]})
    for script, honest in SAFE:
        report = scan(a.bin, data / "scripts" / script)
        for e in report.get("entities", []):
            name = e["target"]["name"]
            if honest is not None and name not in honest:
                continue
            for f in e.get("findings", []):
                if f["severity"] in SEVERE:
                    honest_severe.append((script, name, f["rule_id"], f["severity"]))

    total = sum(v[0] for v in per_cat.values())
    n = sum(v[1] for v in per_cat.values())
    print(f"split: {a.split}")
    print(f"{'category':40} detected")
    for cat in sorted(per_cat):
        d, m = per_cat[cat]
        print(f"{cat:40} {d}/{m}")
    print(f"{'TOTAL':40} {total}/{n}")
    print(f"honest tools with a finding at MEDIUM or above: {len(honest_severe)}")
    for h in honest_severe:
        print(f"  {h[0]} {h[1]}: {h[2]} {h[3]}")
    if a.verbose:
        for r in results:
            if not r["detected"]:
                print(f"MISS {r['path']} ({r['split']}) side={r['side_rules']} tools={r['tools_found']}")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
