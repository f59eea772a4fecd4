#!/usr/bin/env python3
"""Collects real tool descriptions from published MCP servers into benign.jsonl.

Sources (each record says which):
  * manifests: the shared tools/list captures (`--manifests DIR`, e.g. ../shared/data/manifests);
  * npm: packages fetched with `npm pack <pkg>` into `--npm DIR` (tarballs), tool names and
    descriptions read from their JavaScript/TypeScript with the patterns servers use
    (`server.tool("name", "description", …)`, `registerTool("name", {description: …})`, tool
    objects `{name: "…", description: "…", inputSchema: …}`);
  * pypi: wheels fetched with `pip download --no-deps --only-binary :all: <pkg>` into `--pypi
    DIR`, read with Python's `ast` (never imported): functions decorated with `@….tool(…)`
    (name and description from the decorator, else the function name and its docstring, as
    FastMCP does) and `Tool(name="…", description="…")` with literal strings;
  * live: tools/list answers (JSON) in `--live DIR`.
Nothing is executed. One record per tool:
  {"server", "package", "version", "obtained", "name", "description", "inputSchema"?}

    python3 benchmarks/description/collect_benign.py --manifests ../shared/data/manifests \
        --npm /tmp/desc-npm > benchmarks/description/benign.jsonl
"""
import argparse, ast, inspect, json, os, re, sys, tarfile, zipfile

STR = r'''(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)'''
CONCAT = rf'{STR}(?:\s*\+\s*{STR})*'

def js_string(p):
    q, body = p[0], p[1:-1]
    if q == "`":
        if "${" in body:
            return None  # computed text: not what the model sees as written
        body = body.replace("\\`", "`")
    elif q == "'":
        body = re.sub(r'(?<!\\)"', '\\"', body.replace("\\'", "'"))
    try:
        return json.loads('"' + body.replace("\n", "\\n").replace("\t", "\\t") + '"')
    except json.JSONDecodeError:
        return body

def unquote(lit):
    out = []
    for p in re.findall(STR, lit, re.S):
        v = js_string(p)
        if v is None:
            return None
        out.append(v)
    return "".join(out)

PATTERNS = [
    # server.tool("name", "description", ...) / server.registerTool("name", {... description: "..." })
    re.compile(rf'\.(?:tool|addTool)\(\s*(?P<name>{STR})\s*,\s*(?P<desc>{CONCAT})\s*,', re.S),
    re.compile(rf'registerTool\(\s*(?P<name>{STR})\s*,\s*\{{(?:(?!registerTool)[\s\S]){{0,1500}}?\bdescription\s*:\s*(?P<desc>{CONCAT})', re.S),
    # { name: "x", description: "..." } with a schema nearby
    re.compile(rf'\bname\s*:\s*(?P<name>{STR})\s*,\s*(?:title\s*:\s*{STR}\s*,\s*)?description\s*:\s*(?P<desc>{CONCAT})\s*,?\s*(?:inputSchema|input_schema|parameters|schema|annotations)\b', re.S),
    re.compile(rf'"name"\s*:\s*(?P<name>{STR})\s*,\s*"description"\s*:\s*(?P<desc>{CONCAT})\s*,\s*"(?:inputSchema|input_schema|parameters)"', re.S),
]
NAME_OK = re.compile(r'^[A-Za-z][A-Za-z0-9_.:-]{1,63}$')

def from_js(text):
    for pat in PATTERNS:
        for m in pat.finditer(text):
            yield unquote(m.group("name")), unquote(m.group("desc"))

def npm(dirpath):
    for tgz in sorted(os.listdir(dirpath)):
        if not tgz.endswith(".tgz"):
            continue
        with tarfile.open(os.path.join(dirpath, tgz)) as tf:
            meta, files = {}, []
            for mem in tf.getmembers():
                if not mem.isfile() or mem.size > 8_000_000:
                    continue
                if mem.name == "package/package.json":
                    meta = json.load(tf.extractfile(mem))
                elif re.search(r'\.(m?js|cjs|ts)$', mem.name) and "/node_modules/" not in mem.name \
                        and not mem.name.endswith((".d.ts", ".map", ".test.js", ".spec.js")):
                    files.append((mem.name, tf.extractfile(mem).read().decode("utf-8", "replace")))
            seen = {}
            # Prefer sources (src/) over bundles: same tool found in both is one record.
            for path, text in sorted(files, key=lambda f: ("/src/" not in f[0], f[0])):
                for name, desc in from_js(text):
                    if not name or not desc or not NAME_OK.match(name) or len(desc) < 8:
                        continue
                    seen.setdefault(name, (desc, path))
            for name, (desc, path) in seen.items():
                yield {"server": meta.get("name", tgz), "package": f"npm:{meta.get('name', tgz)}",
                       "version": meta.get("version", "?"), "obtained": f"npm pack; static read of {path[8:]}",
                       "name": name, "description": desc}

def const_str(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = const_str(node.left), const_str(node.right)
        return a + b if a is not None and b is not None else None
    return None

def from_py(text):
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in node.decorator_list:
                call = dec if isinstance(dec, ast.Call) else None
                target = call.func if call else dec
                if not (isinstance(target, ast.Attribute) and target.attr == "tool"):
                    continue
                kw = {k.arg: const_str(k.value) for k in (call.keywords if call else [])}
                name = kw.get("name") or (const_str(call.args[0]) if call and call.args else None) or node.name
                desc = kw.get("description") or (inspect.cleandoc(ast.get_docstring(node, clean=False) or "") or None)
                yield name, desc
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if fname == "Tool":
                kw = {k.arg: const_str(k.value) for k in node.keywords}
                if kw.get("name") and kw.get("description"):
                    yield kw["name"], kw["description"]

def pypi(dirpath):
    for whl in sorted(os.listdir(dirpath)):
        if not whl.endswith(".whl"):
            continue
        pkg, version = whl.split("-")[0], whl.split("-")[1]
        seen = {}
        with zipfile.ZipFile(os.path.join(dirpath, whl)) as z:
            for n in sorted(z.namelist()):
                if not n.endswith(".py") or "/tests/" in n or n.startswith("tests/"):
                    continue
                for name, desc in from_py(z.read(n).decode("utf-8", "replace")):
                    if name and desc and NAME_OK.match(name) and len(desc) >= 8:
                        seen.setdefault(name, (desc, n))
        for name, (desc, path) in seen.items():
            yield {"server": pkg.replace("_", "-"), "package": f"pypi:{pkg.replace('_', '-')}",
                   "version": version, "obtained": f"pip download (wheel); static read of {path}",
                   "name": name, "description": desc}

def manifests(dirpath, how):
    for fn in sorted(os.listdir(dirpath)):
        if not fn.endswith(".json"):
            continue
        d = json.load(open(os.path.join(dirpath, fn)))
        d = d.get("result", d)
        server = d.get("name") or d.get("serverInfo", {}).get("name") or fn[:-5]
        version = d.get("version") or d.get("serverInfo", {}).get("version") or "?"
        for t in d.get("tools", []):
            if isinstance(t.get("description"), str):
                yield {"server": server, "package": server, "version": version,
                       "obtained": f"{how} ({fn})", "name": t["name"],
                       "description": t["description"], "inputSchema": t.get("inputSchema")}

ap = argparse.ArgumentParser()
ap.add_argument("--manifests")
ap.add_argument("--live")
ap.add_argument("--npm")
ap.add_argument("--pypi")
a = ap.parse_args()
out = []
if a.manifests:
    out += manifests(a.manifests, "tools/list capture")
if a.live:
    out += manifests(a.live, "live tools/list in the sandbox")
if a.npm:
    out += npm(a.npm)
if a.pypi:
    out += pypi(a.pypi)
# The same tool text from two sources (a capture and the package) counts once.
seen, uniq = set(), []
for r in out:
    key = (r["name"], r["description"])
    if key not in seen:
        seen.add(key)
        uniq.append(r)
out = uniq
for r in out:
    sys.stdout.write(json.dumps(r, ensure_ascii=False) + "\n")
