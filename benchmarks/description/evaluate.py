#!/usr/bin/env python3
"""Scores mcp-scan's description rules on attacks.jsonl and benign.jsonl (see run.sh).

    evaluate.py BIN ATTACKS BENIGN [--unseen UNSEEN]... [--show-misses] [--show-fp] [--only-split S]

Each attack record's manifest is scanned as its own server (server name = record id); a record
counts as detected when any finding on it is MEDIUM or above. Benign tools are grouped by server
and scanned together (siblings matter: a tool naming a sibling is a workflow hint); a tool counts
as a false alarm when it has a finding at MEDIUM or above.

UNSEEN (unseen.jsonl) is a separate split that no rule was tuned on: poisoned records
(`"label": "poisoned"`, scored like attacks) and benign tools (`"label": "benign"`, scored like
BENIGN), both from sources outside the two corpora above, with provenance per record. `--unseen`
may be given more than once (unseen.jsonl, unseen2.jsonl). Records with a `split` field
(unseen2.jsonl: `tune`/`heldout`, fixed by a salted hash in build_unseen2.py) are reported per
split and per class; `--only-split S` limits the listed misses and false alarms to split S, so the
held-out half can be scored without reading its records.
"""
import collections, json, os, subprocess, sys, tempfile

RANK = {"INFO": 0, "LOW": 1, "MEDIUM": 2, "HIGH": 3, "CRITICAL": 4}

def scan(bin_, manifests):
    """Runs one mcp-scan process over the manifests; returns {server: [(kind, name, findings)]}."""
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, m in enumerate(manifests):
            p = os.path.join(d, f"{i}.json")
            with open(p, "w") as f:
                json.dump(m, f, ensure_ascii=False)
            paths.append(p)
        p = subprocess.run([bin_, "manifest", *paths, "--format", "raw", "--fail-on", "never"],
                           capture_output=True, text=True)
        if p.returncode not in (0, 3, 4):
            sys.exit(f"mcp-scan failed ({p.returncode}): {p.stderr[:2000]}")
        report = json.loads(p.stdout)
    out = collections.defaultdict(list)
    for e in report["entities"]:
        t = e["target"]
        out[t["server"]].append((t["kind"], t["name"], e["findings"]))
    return out

def top(findings):
    return max((RANK.get(f["severity"], 0) for f in findings), default=-1)

def main():
    bin_, attacks_path, benign_path = sys.argv[1:4]
    show_miss = "--show-misses" in sys.argv
    show_fp = "--show-fp" in sys.argv
    attacks = [json.loads(l) for l in open(attacks_path, encoding="utf-8") if l.strip()]
    ms = []
    for r in attacks:
        m = dict(r["manifest"])
        m["name"] = r["id"]
        ms.append(m)
    res = scan(bin_, ms)
    per = collections.defaultdict(lambda: [0, 0])
    threats = collections.defaultdict(collections.Counter)
    misses = []
    for r in attacks:
        ents = res.get(r["id"], [])
        fs = [f for _, _, fl in ents for f in fl]
        hit = top(fs) >= RANK["MEDIUM"]
        for key in ((r["class"], r["split"]), ("ALL", r["split"])):
            per[key][1] += 1
            per[key][0] += hit
        for f in fs:
            if RANK.get(f["severity"], 0) >= RANK["MEDIUM"]:
                threats[r["class"]][f.get("taxonomy", {}).get("threat") or f["rule_id"]] += 1
        if not hit:
            misses.append(r)
    print(f"== attack corpus ({len(attacks)} records), recall at MEDIUM+")
    print(f"{'class':<12} {'dev':>12} {'held-out':>12}")
    for cls in sorted({c for c, _ in per} - {"ALL"}) + ["ALL"]:
        cells = []
        for split in ("dev", "held-out"):
            hit, n = per.get((cls, split), [0, 0])
            cells.append(f"{hit}/{n} {hit / n:.2f}" if n else "-")
        print(f"{cls:<12} {cells[0]:>12} {cells[1]:>12}")
    if show_miss:
        for r in misses:
            print(f"  MISS {r['id']} [{r['split']}] {json.dumps(r['manifest'], ensure_ascii=True)[:300]}")

    benign = [json.loads(l) for l in open(benign_path, encoding="utf-8") if l.strip()]
    score_benign(bin_, benign, "benign corpus", show_fp)
    only = sys.argv[sys.argv.index("--only-split") + 1] if "--only-split" in sys.argv else None
    for i, a in enumerate(sys.argv):
        if a == "--unseen":
            score_unseen(bin_, sys.argv[i + 1], show_miss, show_fp, only)


def score_unseen(bin_, path, show_miss, show_fp, only=None):
    recs = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
    splits = sorted({r.get("split", "all") for r in recs})
    if only and only in splits:
        # Scoring one half must not show the other's numbers (the held-out half is read once).
        splits = [only]
        recs = [r for r in recs if r.get("split") == only]
    poisoned = [r for r in recs if r["label"] == "poisoned"]
    ms = []
    for r in poisoned:
        m = dict(r["manifest"])
        m["name"] = r["id"]
        ms.append(m)
    res = scan(bin_, ms)
    per = collections.defaultdict(lambda: [0, 0])
    misses = []
    for r in poisoned:
        fs = [f for _, _, fl in res.get(r["id"], []) for f in fl]
        hit = top(fs) >= RANK["MEDIUM"]
        for key in ((r["class"], r.get("split", "all")), ("ALL", r.get("split", "all"))):
            per[key][1] += 1
            per[key][0] += hit
        if not hit:
            misses.append(r)
    print(f"\n== {os.path.basename(path)}: {len(poisoned)} poisoned descriptions, recall at MEDIUM+")
    print(f"{'class':<12} " + " ".join(f"{s:>12}" for s in splits))
    for cls in sorted({c for c, _ in per} - {"ALL"}) + ["ALL"]:
        cells = []
        for split in splits:
            hit, n = per.get((cls, split), [0, 0])
            cells.append(f"{hit}/{n} {hit / n:.2f}" if n else "-")
        print(f"{cls:<12} " + " ".join(f"{c:>12}" for c in cells))
    if show_miss:
        for r in misses:
            if only and r.get("split") != only:
                continue
            print(f"  MISS {r['id']} [{r['class']}] ({r['source'][:80]}) {json.dumps(r['manifest']['tools'][0], ensure_ascii=True)[:300]}")
    benign = [r for r in recs if r["label"] == "benign"]
    for split in splits:
        part = [r for r in benign if r.get("split", "all") == split]
        if part:
            title = f"{os.path.basename(path)} benign" + (f" [{split}]" if split != "all" else "")
            score_benign(bin_, part, title, show_fp and (only is None or only == split))


def score_benign(bin_, benign, title, show_fp):
    by_server = collections.OrderedDict()
    for r in benign:
        by_server.setdefault(r["server"], []).append(r)
    ms = []
    for server, tools in by_server.items():
        ms.append({"name": server, "tools": [
            {"name": t["name"], "description": t["description"],
             "inputSchema": t.get("inputSchema") or {"type": "object"}} for t in tools]})
    res = scan(bin_, ms)
    n = flagged = 0
    fps = []
    for server, ents in res.items():
        for kind, name, fl in ents:
            n += 1
            if top(fl) >= RANK["MEDIUM"]:
                flagged += 1
                fps.append((server, name, fl))
    print(f"\n== {title}: {n} tools from {len(by_server)} servers")
    print(f"MEDIUM+ : {flagged} tools ({100 * flagged / max(n, 1):.2f}%)")
    if show_fp:
        for server, name, fl in fps:
            for f in fl:
                if RANK.get(f["severity"], 0) >= RANK["MEDIUM"]:
                    print(f"  FP {server}/{name} {f['rule_id']} {f['severity']}: {f['observation'][:260]}")


main()
