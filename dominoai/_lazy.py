"""Public names of a package loaded on first use (PEP 562).

A package whose modules load numba, pandas or JAX keeps ``import`` light by
naming its public names and where they live, and importing a module only
when one of its names is first asked for::

    __getattr__, __dir__ = lazy_names(__name__, {"VectorEnv": "env"}, globals(), __all__)

Importing this module imports nothing but :mod:`importlib`.
"""

from __future__ import annotations

import importlib
from typing import Callable, Iterable

__all__ = ["lazy_names"]


def lazy_names(package: str, where: dict[str, str], namespace: dict, public: Iterable[str],
               submodules: Iterable[str] = ()) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``.

    :param package: the package's ``__name__``.
    :param where: public name -> the module that defines it, relative to the
        package (``"env"``) or written with its leading dots
        (``"..nets.model"``).
    :param namespace: the package's ``globals()``: a name once loaded is
        stored there, so later look-ups find it without a call.
    :param public: the package's ``__all__``, listed by ``__dir__``.
    :param submodules: submodules reachable as attributes (``dominoai.tune``),
        imported on first use too.
    :returns: ``(__getattr__, __dir__)``; ``__getattr__`` raises
        ``AttributeError`` for any other name.
    """
    public = frozenset(public)
    submodules = frozenset(submodules)

    def __getattr__(name: str):
        if name in where:
            module = where[name]
            value = getattr(importlib.import_module(module if module.startswith(".") else f".{module}", package),
                            name)
        elif name in submodules:
            value = importlib.import_module(f".{name}", package)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | public | submodules)

    return __getattr__, __dir__
