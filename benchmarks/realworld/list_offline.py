#!/usr/bin/env python3
"""Lists the tools of a server object offline, for ground_truth.toml entries with
source = "import" (servers that do not start over stdio without credentials or services).

Run it with the package's own venv, with no network:
    unshare -rn $DIR/venv/<pkg>/bin/python list_offline.py MODULE ATTR
imports MODULE (which builds the server at import time) and prints the number and the sorted
names of `MODULE.ATTR.list_tools()`. Servers built by a function (note says which) need the
same three lines with that function called first.

    unshare -rn $DIR/venv/<pkg>/bin/python list_offline.py --package PKG [--env K=V ...]
imports every module of the installed package PKG (a module that fails to import is skipped and
named on stderr) and lists the tools of every server object (an instance of a class named
FastMCP, MCPServer or Server from the mcp/fastmcp packages) found in their module globals,
as the union of their names. Servers built only inside a function are not found this way.
"""
import asyncio
import importlib
import os
import pkgutil
import sys

SERVER_CLASSES = {"FastMCP", "MCPServer"}


def servers_in(module):
    out = []
    for v in list(vars(module).values()):
        for k in type(v).__mro__:
            if k.__name__ in SERVER_CLASSES and k.__module__.split(".")[0] in ("mcp", "fastmcp"):
                out.append(v)
                break
    return out


async def list_package(pkg):
    root = importlib.import_module(pkg)
    mods = [root]
    for info in pkgutil.walk_packages(getattr(root, "__path__", []), pkg + "."):
        if info.name.rsplit(".", 1)[-1] in ("__main__",):
            continue
        try:
            mods.append(importlib.import_module(info.name))
        except BaseException as e:  # noqa: BLE001 - a module needing a service is skipped, named
            print(f"skip {info.name}: {type(e).__name__}: {str(e)[:120]}", file=sys.stderr)
    names, seen = set(), set()
    for m in mods:
        for s in servers_in(m):
            if id(s) in seen:
                continue
            seen.add(id(s))
            tools = await s.list_tools()
            print(f"server {m.__name__} {len(tools)} tools", file=sys.stderr)
            names.update(t.name for t in tools)
    print(len(names))
    print(" ".join(sorted(names)))


async def main():
    if sys.argv[1] == "--package":
        for kv in sys.argv[3:]:
            if kv != "--env":
                k, _, v = kv.partition("=")
                os.environ[k] = v
        await list_package(sys.argv[2])
        return
    server = getattr(importlib.import_module(sys.argv[1]), sys.argv[2])
    tools = await server.list_tools()
    print(len(tools))
    print(" ".join(sorted(t.name for t in tools)))


if __name__ == "__main__":
    asyncio.run(main())
