"""Shared parts of the unseen-set builders (build_unseen5.py, build_unseen6.py, build_unseen7.py).

A builder lists poisoned tools as (class, source, tool) and honest look-alikes as
(server, name, description, properties) or (source, server, name, description, properties), then
calls `build`, which adds every tool that
`collect_benign.py` read from the packages (skipping tools whose name and text an earlier file
already holds) and prints one JSON record a line.
"""
import base64, hashlib, json, os, sys

ZWJ = "\u200d"
WJ = "\u2060"
ZWSP = "\u200b"
SHY = "\u00ad"


def b64(s):
    return base64.b64encode(s.encode()).decode()


def hexed(s):
    return s.encode().hex()


def tags(s):
    """Unicode tag characters: invisible in most renderers, read by the model."""
    return "".join(chr(0xE0000 + ord(c)) for c in s)


def split_of(salt, key):
    """tune or heldout, fixed by a salted SHA-256 of the key before any result is read."""
    return "tune" if hashlib.sha256(f"{salt}:{key}".encode()).digest()[0] % 2 == 0 else "heldout"


def tool(name, desc, props=None, required=None, **extra):
    schema = {"type": "object", "properties": props if props is not None else {"input": {"type": "string"}}}
    if required:
        schema["required"] = required
    t = {"name": name, "description": desc, "inputSchema": schema}
    t.update(extra)
    return t


def S(d=None, **kw):
    return {"type": "string", **({"description": d} if d else {}), **kw}


I = {"type": "integer"}
N = {"type": "number"}
B = {"type": "boolean"}


def build(prefix, salt, poisoned, lookalike, earlier, collected, out=sys.stdout):
    """Prints the set: poisoned records `<prefix>-NNN`, the look-alikes, then the collected tools."""
    recs = []
    for i, (cls, src, t) in enumerate(poisoned, 1):
        rid = f"{prefix}-{i:03d}"
        manifest = {"name": rid, **(t if "tools" in t else {"tools": [t]})}
        recs.append({"id": rid, "label": "poisoned", "class": cls, "split": split_of(salt, rid), "source": src,
                     "manifest": manifest})
    for item in lookalike:
        # (server, name, description, properties), or with its own source first
        src, (server, name, desc, props) = (item[0], item[1:]) if len(item) == 5 else (
            f"honest twin of an {prefix} poisoned tool (the same tool without its payload), wording ours", item)
        recs.append({"label": "benign", "split": split_of(salt, server), "server": server, "source": src,
                     "name": name, "description": desc, "inputSchema": {"type": "object", "properties": props}})
    here = os.path.dirname(os.path.abspath(__file__))
    seen = set()
    for f in earlier:
        for line in open(os.path.join(here, f), encoding="utf-8"):
            r = json.loads(line)
            if "description" in r:
                seen.add((r["name"], r["description"]))
    dropped = 0
    for path in collected:
        for line in open(path, encoding="utf-8"):
            r = json.loads(line)
            if (r["name"], r["description"]) in seen:
                dropped += 1
                continue
            rec = {"label": "benign", "split": split_of(salt, r["server"]), "server": r["server"],
                   "source": f"{r['package']}@{r['version']} ({r['obtained']})",
                   "name": r["name"], "description": r["description"]}
            if r.get("inputSchema"):
                rec["inputSchema"] = r["inputSchema"]
            recs.append(rec)
    for r in recs:
        print(json.dumps(r, ensure_ascii=False), file=out)
    print(f"dropped {dropped} collected tools already in another benchmark file", file=sys.stderr)
