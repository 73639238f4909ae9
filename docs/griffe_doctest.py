"""A griffe extension for the API pages: the docstrings are reST, and their
doctest blocks (``>>>`` lines and the output after them) would read as
Markdown; each block is fenced as Python code instead, and ``:raises A, B:``
is split into one line per exception."""
from __future__ import annotations

import re

import griffe

_RAISES = re.compile(r"^(\s*):raises ([\w.]+), ([\w.]+):(.*)$")


def fence_doctests(text: str) -> str:
    """``text`` with every doctest block fenced as ```` ```python ````."""
    out, block, indent = [], [], ""
    for line in text.split("\n") + [""]:
        stripped = line.strip()
        if block:
            if stripped and (line.startswith(indent) or not line.strip()):
                block.append(line[len(indent):])
                continue
            out += [indent + "```python"] + [indent + b for b in block] + [indent + "```"]
            block = []
        if stripped.startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = [line[len(indent):]]
            continue
        m = _RAISES.match(line)
        if m:
            out += [f"{m[1]}:raises {m[2]}:{m[4]}", f"{m[1]}:raises {m[3]}:{m[4]}"]
            continue
        out.append(line)
    return "\n".join(out[:-1])


class FenceDoctests(griffe.Extension):
    def on_object(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
