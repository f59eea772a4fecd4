#!/usr/bin/env python3
"""Speed of the description witness, and proof that a faster build finds the same things.

    speed.py --bin BIN [--base BASE_BIN] [--data SHARED_DATA_DIR] [--runs N] [--tools N]
             [--allow-different]

Builds a registry-sized manifest (10,000 tools by default) from the real descriptions of
benign.jsonl, attacks.jsonl and unseen.jsonl (repeated, with the sentences of each repeat
rotated and names made unique so that no two tools are identical), then times whole processes
of BIN (and BASE, interleaved run by run so that both see the same machine load):

  - `mcp-scan --version` (process start),
  - `mcp-scan manifest BIG --format raw` (the 10,000-tool manifest),
  - the same on the short synthetic descriptions of benchmarks/mcptox/run.sh's speed check,
  - `mcp-scan bench mcptox --format raw` (491 poisoned tools + the benign manifests),

reporting the median wall time and the median user+sys CPU time of N runs, and BIN/BASE
ratios. The machine is shared; CPU time is the steadier measure.

With BASE, it first checks that both binaries print byte-identical raw reports on the big
manifest, on every corpus of benchmarks/description (attack and unseen records one manifest
each, benign tools grouped by server, as evaluate.py scans them) and on MCPTox, and exits 1
when they differ (unless --allow-different: the rules changed on purpose). The data is read
in place and never copied into the repository.
"""
import argparse, hashlib, json, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def jsonl(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def rotate(text, k):
    """The text with its sentences rotated by k (a variant that reads like the original)."""
    parts = [p for p in text.replace("\n", " \n").split(". ") if p]
    if len(parts) < 2:
        return text
    k %= len(parts)
    return ". ".join(parts[k:] + parts[:k])


def corpora():
    """Manifests as evaluate.py scans them: {corpus name: [manifest, ...]}."""
    attacks, benign, unseen = jsonl("attacks.jsonl"), jsonl("benign.jsonl"), jsonl("unseen.jsonl")

    def records(rs):
        out = []
        for r in rs:
            m = dict(r["manifest"])
            m["name"] = r["id"]
            out.append(m)
        return out

    def by_server(rs):
        servers = {}
        for r in rs:
            servers.setdefault(r["server"], []).append(
                {"name": r["name"], "description": r["description"],
                 "inputSchema": r.get("inputSchema") or {"type": "object"}})
        return [{"name": s, "tools": t} for s, t in servers.items()]

    return {
        "attacks": records(attacks),
        "benign": by_server(benign),
        "unseen-poisoned": records([r for r in unseen if r["label"] == "poisoned"]),
        "unseen-benign": by_server([r for r in unseen if r["label"] == "benign"]),
    }


def big_manifest(n):
    """n tools from the real descriptions of all three corpora, repeated and varied."""
    pool = [{"name": r["name"], "description": r["description"],
             "inputSchema": r.get("inputSchema") or {"type": "object"}}
            for r in jsonl("benign.jsonl")]
    for r in jsonl("attacks.jsonl") + [r for r in jsonl("unseen.jsonl") if "manifest" in r]:
        pool.extend(r["manifest"].get("tools", []))
    pool.extend({"name": r["name"], "description": r["description"], "inputSchema": {"type": "object"}}
                for r in jsonl("unseen.jsonl") if r.get("label") == "benign")
    tools, seen = [], set()
    for i in range(n):
        t = dict(pool[i % len(pool)])
        rnd = i // len(pool)
        name = t.get("name") or "tool"
        name = name if rnd == 0 else f"{name}_r{rnd}"
        while name in seen:
            name += "_"
        seen.add(name)
        t["name"] = name
        if rnd and isinstance(t.get("description"), str):
            t["description"] = rotate(t["description"], rnd)
        tools.append(t)
    return {"name": "big", "tools": tools}


def synthetic_manifest(n):
    """The short, clean descriptions of benchmarks/mcptox/run.sh's speed check (same seed)."""
    import random
    random.seed(7)
    verbs = ["Returns", "Lists", "Creates", "Deletes", "Updates", "Searches", "Fetches", "Counts"]
    nouns = ["invoices", "tickets", "pages", "rows", "events", "users", "files", "messages", "orders"]
    extra = ["Results are paginated; pass the cursor from the previous call.",
             "Only works within the configured workspace.",
             "Use the `limit` parameter to cap the number of results.",
             "Times are in UTC unless a timezone is given.",
             "Fails if the item does not exist."]
    tools = []
    for i in range(n):
        noun = random.choice(nouns)
        desc = f"{random.choice(verbs)} {noun} of the connected account. " + " ".join(random.sample(extra, 2))
        props = {f"p{j}": {"type": "string", "description": f"Filter on {noun} field {j}."} for j in range(3)}
        tools.append({"name": f"tool_{i}_{noun}", "description": desc,
                      "inputSchema": {"type": "object", "properties": props}})
    return {"name": "big", "tools": tools}


def run(cmd, expect=(0, 3, 4)):
    """(wall seconds, user+sys CPU seconds, stdout) of one whole process."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    wall = time.perf_counter() - t
    # communicate() already reaped the child: take its CPU time from the children's totals.
    if p.returncode not in expect:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {err.decode()[:2000]}")
    return wall, out


def timed(cmd):
    before = os.times()
    wall, _ = run(cmd)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--base")
    ap.add_argument("--data", default=os.path.join(REPO, "..", "shared", "data"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--tools", type=int, default=10_000)
    ap.add_argument("--allow-different", action="store_true",
                    help="time BIN and BASE even when their reports differ (a rule change, not a speed-up)")
    a = ap.parse_args()
    poisoned = os.path.join(a.data, "mcptox", "poisoned_tools_491.jsonl")
    benign_dir = os.path.join(a.data, "manifests")
    have_mcptox = os.path.isfile(poisoned) and os.path.isdir(benign_dir)
    bins = {"new": a.bin} | ({"base": a.base} if a.base else {})

    with tempfile.TemporaryDirectory() as work:
        big = os.path.join(work, "big.json")
        with open(big, "w", encoding="utf-8") as f:
            json.dump(big_manifest(a.tools), f, ensure_ascii=False, indent=1)
        synth = os.path.join(work, "synthetic.json")
        with open(synth, "w", encoding="utf-8") as f:
            json.dump(synthetic_manifest(a.tools), f, indent=1)
        workloads = {
            "--version (process start)": ["--version"],
            f"manifest, {a.tools:,} real tools": ["manifest", big, "--format", "raw", "--fail-on", "never"],
            f"manifest, {a.tools:,} synthetic tools": ["manifest", synth, "--format", "raw", "--fail-on", "never"],
        }
        if have_mcptox:
            workloads["bench mcptox (491 + benign)"] = [
                "bench", "mcptox", "--data", poisoned, "--benign", benign_dir, "--format", "raw"]
        else:
            print(f"(MCPTox skipped: {poisoned} not found)")

        if a.base:
            checks = {"big manifest": workloads[f"manifest, {a.tools:,} real tools"],
                      "synthetic manifest": workloads[f"manifest, {a.tools:,} synthetic tools"]}
            if have_mcptox:
                checks["mcptox"] = workloads["bench mcptox (491 + benign)"]
            named = corpora()
            if have_mcptox:
                # The bench's raw report holds scores only: the findings themselves are compared
                # on each poisoned tool as a manifest of its own, and on the benign manifests.
                with open(poisoned, encoding="utf-8") as f:
                    recs = [json.loads(l) for l in f if l.strip()]
                named["mcptox-poisoned"] = [
                    {"name": str(r["id"]), "tools": [{"name": r.get("poisoned_tool_name") or "tool",
                                                      "description": r["description"]}]}
                    for r in recs]
                benign_files = sorted(os.path.join(benign_dir, n) for n in os.listdir(benign_dir)
                                      if n.endswith(".json"))
                checks[f"mcptox-benign ({len(benign_files)} manifests)"] = [
                    "manifest", *benign_files, "--format", "raw", "--fail-on", "never"]
            for name, ms in named.items():
                paths = []
                for i, m in enumerate(ms):
                    p = os.path.join(work, f"{name}-{i}.json")
                    with open(p, "w", encoding="utf-8") as f:
                        json.dump(m, f, ensure_ascii=False)
                    paths.append(p)
                checks[f"{name} ({len(ms)} manifests)"] = ["manifest", *paths, "--format", "raw", "--fail-on", "never"]
            print("== raw reports, new vs base (sha256)")
            differ = False
            for name, args in checks.items():
                outs = {k: run([b] + args)[1] for k, b in bins.items()}
                same = outs["new"] == outs["base"]
                differ |= not same
                digest = hashlib.sha256(outs["new"]).hexdigest()[:16]
                findings = outs["new"].count(b'"rule_id"')
                print(f"{name:<36} {'identical' if same else 'DIFFERENT':<10} {len(outs['new']):>9} bytes"
                      f"  {findings:>5} findings  {digest}")
            if differ and not a.allow_different:
                sys.exit("the raw reports differ")
            print()

        results = {k: {w: ([], []) for w in workloads} for k in bins}
        for _ in range(a.runs):
            for w, args in workloads.items():
                for k, b in bins.items():
                    wall, cpu = timed([b] + args)
                    results[k][w][0].append(wall)
                    results[k][w][1].append(cpu)
        print(f"== whole processes, median of {a.runs} (runs of new and base interleaved)")
        head = f"{'workload':<32} {'new wall':>9} {'new cpu':>8}"
        if a.base:
            head += f" {'base wall':>10} {'base cpu':>9} {'cpu new/base':>13}"
        print(head)
        for w in workloads:
            nw, nc = (statistics.median(x) for x in results["new"][w])
            line = f"{w:<32} {nw:>8.3f}s {nc:>7.3f}s"
            if a.base:
                bw, bc = (statistics.median(x) for x in results["base"][w])
                line += f" {bw:>9.3f}s {bc:>8.3f}s {nc / bc if bc else 0:>12.2f}x"
            print(line)
        load = os.getloadavg()[0]
        print(f"(load average {load:.2f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
