#!/usr/bin/env python3
"""Calibrates and measures the scorer of `mcp-scan scan` on the labelled sets.

For every labelled server it runs `mcp-scan scan -f raw` (with `--run` where the set is run:
the server starts inside the project's sandbox, never on the host network) and reads, per
labelled unit (a server for the runtime fixtures, a tool for the Python fixtures and Cisco's
samples):

- per witness (static, description, llm, runtime): whether a finding that witness took part in
  reaches the threshold (HIGH by default) on the unit;
- merged: whether any finding (after the scorer merged the witnesses) reaches it;
- the unit's trust score (a server's for runtime fixtures, the tool's otherwise).

Labels:
- runtime fixtures (fixtures/runtime/*/expected.toml): `exit = 3` malicious, `exit = 0` benign;
  run with `--run` (and static over the same folder);
- Python fixtures (fixtures/python/*/expected.toml): a tool with an expected finding at HIGH or
  above is malicious, a listed tool without one benign; run with `--run` where the server starts;
- Cisco's behavioral set (../shared/data/cisco-behavioral): labels.toml's tools malicious, the
  honest tools of its safe/mixed scripts benign; static + description only unless --cisco-run.

Prints the per-witness and merged table and the trust-band calibration table (markdown).
"""

import argparse
import json
import subprocess
import sys
import tempfile
import tomllib
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
ORDER = ["INFO", "LOW", "MEDIUM", "HIGH", "CRITICAL"]
WITNESSES = ["static", "description", "llm", "runtime"]
BANDS = [20, 40, 50, 60, 80]


def at_least(sev: str, threshold: str) -> bool:
    return ORDER.index(sev) >= ORDER.index(threshold)


def scan(binary, targets, command, run, timeout):
    with tempfile.TemporaryDirectory(prefix="mcp-scan-calibrate-") as home:
        args = [binary, "scan", "-f", "raw", "--color", "never", "--timeout", "10", "--seed", "11"]
        if run:
            args.append("--run")
        args += [str(t) for t in targets]
        if command:
            args += ["--"] + command
        env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_CACHE_HOME": home + "/c",
               "XDG_DATA_HOME": home + "/d", "LANG": "C.UTF-8"}
        try:
            r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return {"entities": [], "servers": [], "error": "timeout"}
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError:
        return {"entities": [], "servers": [], "error": r.stderr.strip()[-300:]}


def unit_row(findings, threshold):
    row = {w: False for w in WITNESSES}
    row["merged"] = False
    for f in findings:
        if not at_least(f["severity"], threshold):
            continue
        row["merged"] = True
        for a in f["analyzers"]:
            row[a] = True
    return row


def runtime_fixtures(a, out):
    root = REPO / "fixtures/runtime"
    for d in sorted(p for p in root.iterdir() if (p / "expected.toml").is_file()):
        exp = tomllib.loads((d / "expected.toml").read_text())
        if exp.get("exit") not in (0, 3):
            continue
        if a.only and a.only not in d.name:
            continue
        rep = scan(a.bin, [d], [a.python, str(d / "server.py")], True, a.timeout)
        findings = [f for e in rep.get("entities", []) for f in e.get("findings", [])]
        row = unit_row(findings, a.threshold)
        servers = rep.get("servers") or [{}]
        row.update(set="runtime fixtures", unit=d.name, malicious=exp["exit"] == 3,
                   trust=servers[0].get("trust"), error=rep.get("error"))
        out.append(row)
        print(f"  {d.name}: trust={row['trust']} merged={row['merged']}", file=sys.stderr)


def python_fixtures(a, out):
    root = REPO / "fixtures/python"
    for d in sorted(p for p in root.iterdir() if (p / "expected.toml").is_file()):
        if a.only and a.only not in d.name:
            continue
        exp = tomllib.loads((d / "expected.toml").read_text())
        bad = {f["tool"] for f in exp.get("finding", []) if f.get("severity") in ("HIGH", "CRITICAL")}
        tools = set(exp.get("tools", [])) | bad
        script = d / "server.py"
        run = a.python_run and script.is_file()
        rep = scan(a.bin, [d], [a.python, str(script)] if run else None, run, a.timeout)
        by_tool = {e["target"]["name"]: e for e in rep.get("entities", []) if e["target"]["kind"] == "tool"}
        for t in sorted(tools):
            e = by_tool.get(t, {})
            row = unit_row(e.get("findings", []), a.threshold)
            row.update(set="Python fixtures", unit=f"{d.name}/{t}", malicious=t in bad,
                       trust=e.get("trust"), error=rep.get("error"))
            out.append(row)
        print(f"  {d.name}: {len(tools)} tools", file=sys.stderr)


def cisco(a, out):
    data = Path(a.cisco)
    labels = tomllib.loads((REPO / "benchmarks/cisco/labels.toml").read_text())
    safe = [("safe_fastmcp_server.py", None), ("helpers_only_server.py", None),
            ("mcp_plus_helpers_server.py", None), ("mixed_fastmcp_server.py", {"echo", "add"})]
    items = [(data / "data" / s["path"], set(s["tools"]), None) for s in labels["sample"]]
    items += [(data / "scripts" / name, set(), honest) for name, honest in safe]
    for path, bad, honest in items:
        if a.only and a.only not in path.name:
            continue
        cmd = [a.python, str(path)] if a.cisco_run else None
        rep = scan(a.bin, [path], cmd, a.cisco_run, a.timeout)
        for e in rep.get("entities", []):
            if e["target"]["kind"] != "tool":
                continue
            name = e["target"]["name"]
            if not bad and honest is not None and name not in honest:
                continue
            if bad and name not in bad:
                continue
            row = unit_row(e.get("findings", []), a.threshold)
            row.update(set="Cisco samples", unit=f"{path.name}/{name}", malicious=bool(bad),
                       trust=e.get("trust"), error=rep.get("error"))
            out.append(row)
        # A labelled tool the scan did not even find is a miss, not a silent gap.
        seen = {e["target"]["name"] for e in rep.get("entities", [])}
        for t in sorted(bad - seen):
            row = {w: False for w in WITNESSES}
            row.update(merged=False, set="Cisco samples", unit=f"{path.name}/{t}", malicious=True,
                       trust=None, error="tool not found")
            out.append(row)


def tables(rows, threshold):
    lines = [f"Per witness and merged, findings at {threshold} or above:", "",
             "| set | malicious | benign | " + " | ".join(f"{w} caught / FP" for w in WITNESSES)
             + " | merged caught / FP |", "|---" * (4 + len(WITNESSES)) + "|"]
    by_set = defaultdict(list)
    for r in rows:
        by_set[r["set"]].append(r)
    by_set["all"] = rows
    for s, rs in by_set.items():
        mal = [r for r in rs if r["malicious"]]
        ben = [r for r in rs if not r["malicious"]]
        cells = [f"{sum(r[w] for r in mal)} / {sum(r[w] for r in ben)}" for w in WITNESSES + ["merged"]]
        lines.append(f"| {s} | {len(mal)} | {len(ben)} | " + " | ".join(cells) + " |")
    lines += ["", "Trust score calibration (share of units with trust below t; a unit with no "
              "score counts as 0):", "",
              "| set | " + " | ".join(f"malicious < {t} | benign < {t}" for t in BANDS)
              + " | mean trust malicious | mean trust benign |",
              "|---" * (3 + 2 * len(BANDS)) + "|"]
    for s, rs in by_set.items():
        mal = [r["trust"] or 0 for r in rs if r["malicious"]]
        ben = [r["trust"] or 0 for r in rs if not r["malicious"]]
        pct = lambda xs, t: f"{100 * sum(x < t for x in xs) / len(xs):.0f}%" if xs else "-"
        mean = lambda xs: f"{sum(xs) / len(xs):.1f}" if xs else "-"
        cells = [f"{pct(mal, t)} | {pct(ben, t)}" for t in BANDS]
        lines.append(f"| {s} | " + " | ".join(cells) + f" | {mean(mal)} | {mean(ben)} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--python", default=str(REPO / ".venv/mcp2/bin/python"))
    ap.add_argument("--sets", default="runtime,python,cisco")
    ap.add_argument("--cisco", default=str(REPO / "../shared/data/cisco-behavioral"))
    ap.add_argument("--cisco-run", action="store_true", help="also run Cisco's samples (sandboxed)")
    ap.add_argument("--no-python-run", dest="python_run", action="store_false")
    ap.add_argument("--threshold", default="HIGH", choices=ORDER)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--only", help="only units whose folder/file name contains this")
    ap.add_argument("--json", help="write every row here")
    a = ap.parse_args()
    rows = []
    sets = a.sets.split(",")
    if "runtime" in sets:
        runtime_fixtures(a, rows)
    if "python" in sets:
        python_fixtures(a, rows)
    if "cisco" in sets:
        cisco(a, rows)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    print(tables(rows, a.threshold))
    errors = [r for r in rows if r.get("error")]
    if errors:
        print(f"\n{len(errors)} unit(s) with a scan error or missing tool, e.g. "
              f"{errors[0]['unit']}: {errors[0]['error']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
