#!/usr/bin/env python3
"""Ground truth of which tools each corpus server really lists, taken from the server itself.

Runs every package of servers.tsv (installed by `fetch.sh --venv`) inside mcp-scan's runtime
sandbox (no network): `mcp-scan dynamic --untraced --no-probes --calls 1 --timeout 10 --out-dir
DIR -- <venv>/bin/<entry> <args>` with the row's `--env K=V` values, and reads `tools/list` from
the manifest.json it writes. Rewrites ground_truth.toml: a live listing replaces the entry; a
server that did not start keeps its hand-counted entry (source = "hand") if it has one, else is
reported so that someone counts its tools by hand from the source (source = "hand") or lists them
from the server object built offline (source = "import": the package's venv imports the module
that builds the server under `unshare -rn` and prints `list_tools()`; note says how).

npm rows (ecosystem column, TS.md) run `node <fetch_npm.py's run copy>/<entry>` the same way (timeout
20 s) and also keep the resources, resource templates and prompts they list; a server that answers
initialize and lists no tool has none. Go rows are counted by hand (no toolchain here).

usage: ground_truth.py --bin PATH [--only PKG ...] [--jobs N]
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
TS_CACHE = Path(os.environ.get("MCP_SCAN_REALWORLD_TS_DIR", "/tmp/mcp-realworld-ts"))


def servers():
    rows = []
    for line in (HERE / "servers.tsv").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        pkg, ver, split, entry, args, env, _deps, eco, _pin, ships = (line.split("\t") + ["-"] * 10)[:10]
        rows.append(
            {
                "package": pkg,
                "version": ver,
                "split": split,
                "entry": entry,
                "args": [] if args == "-" else args.split(" "),
                "env": [] if env == "-" else env.split(" "),
                "ecosystem": "pypi" if eco == "-" else eco,
                "ships": ships,
            }
        )
    return rows


def npm_dir(row):
    return row["package"].removeprefix("@").replace("/", "__") + "-" + row["version"]


def run_live(binary, row):
    if row["ecosystem"] == "go":
        # No Go toolchain and no module proxy here: Go servers are counted by hand (TS.md).
        return None, "Go servers cannot be built here"
    if row["ecosystem"] == "npm":
        # fetch_npm.py's copy with production dependencies, started by the host's node.
        run = TS_CACHE / "run" / npm_dir(row)
        if not (run / ".installed").exists():
            return None, "not installed (run fetch_npm.py)"
        cmd = ["node", str(run / row["entry"])]
        out = TS_CACHE / "gt" / npm_dir(row)
        timeout = "20"
    else:
        venv = CACHE / "venv" / row["package"]
        if not (venv / ".installed").exists():
            return None, "not installed (run fetch.sh --venv)"
        entry = row["entry"]
        if entry == "-":
            return None, "no console script"
        # `python -m module` entries are written `-m:module`.
        if entry.startswith("-m:"):
            cmd = [str(venv / "bin" / "python"), "-m", entry[3:]]
        else:
            cmd = [str(venv / "bin" / entry)]
        out = CACHE / "gt" / row["package"]
        timeout = "10"
    subprocess.run(["rm", "-rf", str(out)], check=False)
    argv = [binary, "dynamic", "--untraced", "--no-probes", "--calls", "1", "--timeout", timeout,
            "--startup-timeout", "120", "--out-dir", str(out)]
    for kv in row["env"]:
        argv += ["--env", kv]
    argv += ["--"] + cmd + row["args"]
    try:
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600, check=False)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    manifest = out / "manifest.json"
    if not manifest.exists():
        return None, "no manifest (server did not start)"
    m = json.loads(manifest.read_text())
    tools = sorted(t["name"] for t in m.get("tools") or [])
    if row["ecosystem"] != "pypi":
        # npm rows also keep what else the server lists (resources, templates, prompts).
        extra = {k: sorted(x.get("uri") or x.get("uriTemplate") or x.get("name", "") for x in m.get(k) or [])
                 for k in ("resources", "resource_templates", "prompts")}
        if not tools and m.get("server_info"):
            # A server that answered initialize and listed no tool (a relay, a client) has none.
            return ([], extra), None
        if tools:
            return (tools, extra), None
    if not tools:
        err = (out / "stderr.log").read_text(errors="replace").strip().splitlines()[-1:] if (out / "stderr.log").exists() else []
        return None, "listed no tools" + (f": {err[0][:160]}" if err else "")
    return tools, None


def toml_str(s):
    return json.dumps(s, ensure_ascii=False)


def write(gt, rows):
    lines = [
        "# Ground truth of the real-world corpus: the tools each server lists (tools/list).",
        "# source = \"live\": listed by the server itself, run by ground_truth.py in mcp-scan's",
        "# runtime sandbox (no network) from the pinned PyPI release; source = \"hand\": the server",
        "# does not start without credentials or services, tools counted by hand from the source",
        "# (note says where); source = \"import\": listed offline from the server object that the",
        "# package builds, in its venv under `unshare -rn` (note says how). Package versions are",
        "# pinned in servers.tsv.",
        "",
    ]
    for row in rows:
        e = gt.get(row["package"])
        if not e:
            continue
        lines.append(f"[servers.{toml_str(row['package'])}]")
        lines.append(f"version = {toml_str(row['version'])}")
        lines.append(f"split = {toml_str(row['split'])}")
        if e.get("ecosystem"):
            lines.append(f"ecosystem = {toml_str(e['ecosystem'])}")
        if e.get("ships"):
            lines.append(f"ships = {toml_str(e['ships'])}")
        lines.append(f"source = {toml_str(e['source'])}")
        if e.get("note"):
            lines.append(f"note = {toml_str(e['note'])}")
        lines.append("tools = [")
        for t in e["tools"]:
            lines.append(f"  {toml_str(t)},")
        lines.append("]")
        for k in ("resources", "resource_templates", "prompts"):
            if e.get(k):
                lines.append(f"{k} = [" + ", ".join(toml_str(x) for x in e[k]) + "]")
        lines.append("")
    (HERE / "ground_truth.toml").write_text("\n".join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    rows = servers()
    path = HERE / "ground_truth.toml"
    gt = tomllib.loads(path.read_text())["servers"] if path.exists() else {}
    todo = [r for r in rows if not a.only or r["package"] in a.only]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        results = dict(zip([r["package"] for r in todo], ex.map(lambda r: run_live(a.bin, r), todo)))
    missing = []
    for r in todo:
        tools, why = results[r["package"]]
        extra = {}
        if isinstance(tools, tuple):
            tools, extra = tools
        if tools is not None:
            gt[r["package"]] = {"source": "live", "tools": tools,
                                "note": "tools/list in the sandbox" + (" with dummy " + " ".join(kv.split("=")[0] for kv in r["env"]) if r["env"] else "")}
            if r["ecosystem"] != "pypi":
                gt[r["package"]].update(ecosystem=r["ecosystem"], ships=r["ships"], **extra)
            print(f"live  {r['package']:40} {len(tools)} tools")
        elif gt.get(r["package"], {}).get("source") in ("hand", "import"):
            print(f"{gt[r['package']]['source']:5} {r['package']:40} {len(gt[r['package']]['tools'])} tools ({why})")
        else:
            gt.pop(r["package"], None)
            missing.append(r["package"])
            print(f"NONE  {r['package']:40} {why}")
    write(gt, rows)
    if missing:
        print(f"{len(missing)} without ground truth: {' '.join(missing)}", file=sys.stderr)


if __name__ == "__main__":
    main()
