"""Bad input to a library call, naming the argument it came from.

The library words its errors with its own parameter names
(``jobs must be a positive number of processes or -1 (got 0)``); an
:class:`InputError` also carries the parameter (``field``) and the value, so
that a front end can name the argument its own way: the command line says
``--jobs`` (:meth:`InputError.worded`).

>>> e = InputError("chunk", 9, "$chunk must be between 1 and $hands (8) (got 9)", "hands")
>>> str(e)
'chunk must be between 1 and hands (8) (got 9)'
>>> e.worded(lambda name: "--" + name)
'--chunk must be between 1 and --hands (8) (got 9)'

This module imports nothing but the standard library.
"""

from __future__ import annotations

import math
import numbers
from string import Template
from typing import Any, Callable

__all__ = ["InputError", "is_int", "check_int", "check_number", "check_jobs"]


class InputError(ValueError):
    """A bad argument. ``field``: the parameter's name (``"jobs"``);
    ``value``: what was given; ``fields``: every parameter the message
    names (``field`` first). ``str(err)`` names them as the Python call
    does."""

    def __init__(self, field: str, value: Any, text: str, *also: str):
        self.field = field
        self.value = value
        self.fields = (field, *also)
        self.text = text
        super().__init__(self.worded(str))

    def worded(self, name: Callable[[str], str]) -> str:
        """The message with each parameter it names written ``name(field)``
        (``$field`` in the template)."""
        return Template(self.text).safe_substitute({f: name(f) for f in self.fields})


def is_int(value: Any) -> bool:
    """True for an integer (Python's or numpy's), False for a bool or anything else."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_int(field: str, value: Any, lo: int | None = None, hi: int | None = None,
              *, what: str | None = None, also: tuple[str, ...] = ()) -> int:
    """``value`` as an ``int`` when it is an integer within ``lo .. hi``
    (either bound may be None).

    :param what: how the message describes a good value (default
        ``"an integer of at least LO"``, ``"between LO and HI"``, ...).
    :param also: other parameters ``what`` names (``$name``).
    :raises InputError: a bool, a non-integer or a value out of range.
    """
    if not is_int(value) or (lo is not None and value < lo) or (hi is not None and value > hi):
        if what is None:
            what = ("an integer" if lo is None and hi is None else
                    f"an integer of at least {lo}" if hi is None else
                    f"an integer of at most {hi}" if lo is None else f"an integer between {lo} and {hi}")
        raise InputError(field, value, f"${field} must be {what} (got {value!r})", *also)
    return int(value)


def check_number(field: str, value: Any, *, positive: bool = False, what: str | None = None) -> float:
    """``value`` as a ``float`` when it is a finite real number (and above 0
    when ``positive``).

    :raises InputError: a bool, a non-number, an infinite or NaN value, or
        (``positive``) one not above 0.
    """
    ok = (isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
          and (not positive or value > 0))
    if not ok:
        what = what or ("a positive number" if positive else "a finite number")
        raise InputError(field, value, f"${field} must be {what} (got {value!r})")
    return float(value)


def check_jobs(value: Any, field: str = "jobs") -> int:
    """``value`` as an ``int`` when it is a number of worker processes: a
    positive integer, or -1 for every core.

    :raises InputError: anything else (0, below -1, a bool, not an integer).
    """
    if not is_int(value) or value == 0 or value < -1:
        raise InputError(field, value, f"${field} must be a positive number of processes or -1 (got {value!r})")
    return int(value)
