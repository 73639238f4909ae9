"""What every subcommand's module shares: the one-line error of bad input
(:class:`UsageError`), the option of a library argument (:func:`flag`,
:func:`usage_error`), an argparse type for counts (:func:`int_at_least`)
and the preset names for the help (:func:`presets_help`).

Each package declares its own subcommand (``add_parser(sub)`` in its
command module) and :mod:`dominoai.cli` only dispatches; this module lies
beneath every package, so that none of them imports the command line.
It imports nothing but the standard library and :mod:`dominoai.errors`.

>>> flag("max_ms")
'--max-ms'
>>> int_at_least(1)("3")
3
"""

from __future__ import annotations

import argparse

from .errors import InputError

__all__ = ["PROG", "UsageError", "flag", "usage_error", "int_at_least", "presets_help"]

#: the command's name, as its messages begin
PROG = "dominoai"


class UsageError(Exception):
    """Bad input: reported as one ``dominoai: error:`` line, exit code 2."""


def flag(field: str) -> str:
    """The option of a library argument: ``max_ms`` -> ``--max-ms``."""
    return "--" + field.replace("_", "-")


def usage_error(e: Exception, **flags: str) -> UsageError:
    """The one-line error of a library exception; an :class:`InputError`
    names its argument as the option (``flags``: options not named after
    the argument, e.g. ``resume="--continue"``)."""
    if isinstance(e, InputError):
        return UsageError(e.worded(lambda f: flags.get(f) or flag(f)))
    return UsageError(str(e))


def int_at_least(lo: int, hi: int | None = None):
    """An argparse type: an integer of at least ``lo`` (and at most ``hi``
    when given; argparse names the option: ``argument --hands: must be at
    least 1 (got -3)``)."""
    def conv(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer (got {text!r})") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo} (got {v})")
        if hi is not None and v > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi} (got {v})")
        return v
    return conv


def presets_help() -> str:
    """The preset names, for the help (the rules load numpy: not on import)."""
    from .rules import preset_names
    return ", ".join(preset_names())
