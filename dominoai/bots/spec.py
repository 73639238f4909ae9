"""The bot-spec grammar: how a bot and its parameters are written as text.

A *spec* is a bot's name, then optionally ``:`` and its parameters as
``key=value`` items joined by ``,`` (or by ``+``, which a comma-separated
list of bots needs)::

    insane
    insane:worlds=400,seed=3
    insane:worlds=400+rollouts=2        (the same as insane:worlds=400,rollouts=2)

A list of bots is comma-separated; a comma starts a new bot unless what
follows is ``key=value`` (so ``easy,insane:worlds=400,seed=3,hard`` is three
bots). The values stay text here; :func:`dominoai.bots.make_bot` types and
checks them against the bot's declared parameters.

>>> parse_spec("insane:worlds=400,seed=3")
('insane', {'worlds': '400', 'seed': '3'})
>>> split_bot_specs("easy,insane:worlds=400+rollouts=2,seed=3,hard")
['easy', 'insane:worlds=400,rollouts=2,seed=3', 'hard']

This module imports nothing but the standard library.
"""

from __future__ import annotations

import re

__all__ = ["SpecError", "parse_spec", "join_spec_params", "split_bot_specs"]


class SpecError(ValueError):
    """A spec that breaks the grammar. ``spec``: the text given; ``item``:
    the offending ``key=value`` item, or None."""

    def __init__(self, message: str, spec: str, item: str | None = None):
        super().__init__(message)
        self.spec = spec
        self.item = item


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"insane:worlds=400,seed=3"`` -> ``("insane", {"worlds": "400", "seed": "3"})``.

    :raises SpecError: an empty name, a parameter not written ``key=value``
        or a parameter given twice.
    """
    name, _, rest = str(spec).strip().partition(":")
    name = name.strip()
    if not name:
        raise SpecError(f"empty bot spec {spec!r}", str(spec))
    params: dict[str, str] = {}
    if rest.strip():
        for item in rest.split(","):
            k, eq, v = item.partition("=")
            if not eq or not k.strip():
                raise SpecError(f"bot spec {spec!r}: write parameters as key=value, got {item!r}",
                                str(spec), item)
            if k.strip() in params:
                raise SpecError(f"bot spec {spec!r}: parameter {k.strip()} given twice", str(spec), item)
            params[k.strip()] = v.strip()
    return name, params


def join_spec_params(spec: str) -> str:
    """``"insane:worlds=400+rollouts=2"`` -> ``"insane:worlds=400,rollouts=2"``: a
    ``+`` followed by ``name=`` joins two parameters (a ``+`` inside a number,
    ``1e+1``, stays)."""
    name, colon, rest = spec.partition(":")
    if not colon:
        return spec     # no parameters: "insane+worlds=5" stays as typed (an unknown bot)
    return name + colon + re.sub(r"\+(?=\s*[A-Za-z_][A-Za-z0-9_]*\s*=)", ",", rest)


def split_bot_specs(text: str) -> list[str]:
    """``"easy,insane:worlds=400,seed=3,hard"`` -> ``["easy", "insane:worlds=400,seed=3", "hard"]``:
    a comma starts a new bot unless what follows is ``key=value``; parameters
    may also be joined by ``+`` (:func:`join_spec_params`). Empty items are
    skipped."""
    out: list[str] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if out and "=" in item and ":" not in item and ":" in out[-1]:
            out[-1] += "," + item
        else:
            out.append(join_spec_params(item))
    return out
