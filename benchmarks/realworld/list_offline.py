#!/usr/bin/env python3
"""Lists the tools of a server object offline, for ground_truth.toml entries with
source = "import" (servers that do not start over stdio without credentials or services).

Run it with the package's own venv, with no network:
    unshare -rn $DIR/venv/<pkg>/bin/python list_offline.py MODULE ATTR
imports MODULE (which builds the server at import time) and prints the number and the sorted
names of `MODULE.ATTR.list_tools()`. Servers built by a function (note says which) need the
same three lines with that function called first.
"""
import asyncio
import importlib
import sys


async def main():
    server = getattr(importlib.import_module(sys.argv[1]), sys.argv[2])
    tools = await server.list_tools()
    print(len(tools))
    print(" ".join(sorted(t.name for t in tools)))


if __name__ == "__main__":
    asyncio.run(main())
