"""Module docstring."""
import os, os.path
import subprocess as sp
from pathlib import Path
from . import sibling
from ..util import send as s
from pkg.helpers import *

TIMEOUT = 5
a = b = []
x, (y, *rest) = 1, (2, 3)
obj.attr = data["key"][0]
count += 1
total: int = 0
declared_only: str


def plain(path, *args, mode: str = "r", **kwargs):
    global TIMEOUT
    if path.startswith("/"):
        return None
    elif path == "":
        raise ValueError("empty")
    else:
        pass
    while count > 0:
        count -= 1
        if count == 3:
            break
        continue
    else:
        print("done")
    for i, item in enumerate(args):
        del kwargs[item]
    try:
        fh = open(path, mode)
    except (OSError, ValueError) as exc:
        raise RuntimeError("bad") from exc
    except Exception:
        pass
    else:
        data = fh.read()
    finally:
        fh.close()
    with open(path) as f, lock:
        f.write("x")
    assert path, "need a path"
    return data


async def fetch(url: str) -> bytes:
    async with session.get(url) as resp:
        async for chunk in resp.content:
            yield chunk
    await asyncio.sleep(1)


def dispatch(cmd):
    match cmd:
        case "start" | "go":
            run()
        case {"op": op} if op:
            other()
        case _:
            fallback()
