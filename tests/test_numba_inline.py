"""The package's cheaper inlining (dominoai._numba_inline): the same machine
code, each inlined helper built once, and numba's own path for other code."""

from __future__ import annotations

import re
import textwrap

import pytest

numba = pytest.importorskip("numba")

import dominoai.engine.kernels  # noqa: E402,F401  (installs it, as every kernel module does)
from dominoai import _numba_inline  # noqa: E402

# helpers inlined into helpers: plus3 at five sites, twice at two
_SOURCE = textwrap.dedent("""
    from numba import njit

    @njit(inline="always")
    def plus3(x):
        return x + 3

    @njit(inline="always")
    def twice(x):
        return plus3(x) * 2 + plus3(x + 1)

    @njit
    def kernel(a, b):
        return twice(a) - twice(b) + plus3(a * b)
""")


def _module(name: str) -> dict:
    """The probe's functions as if defined in module ``name``."""
    space = {"__name__": name}
    exec(compile(_SOURCE, f"<{name}>", "exec"), space)
    return space


def _counting(monkeypatch) -> list[str]:
    """The callees whose untyped IR numba itself builds, in order."""
    built: list[str] = []
    run = _numba_inline._state["run"]

    def counted(self, func, enable_ssa=False):
        built.append(func.__name__)
        return run(self, func, enable_ssa)

    monkeypatch.setitem(_numba_inline._state, "run", counted)
    return built


def _asm(dispatcher) -> str:
    """The compiled machine code, function symbols masked (they carry ids)."""
    (cres,) = dispatcher.overloads.values()
    return re.sub(r"_ZN[0-9A-Za-z_$]+", "SYM", cres.library.get_asm_str())


def test_installed_when_the_kernels_are_imported():
    assert _numba_inline.installed()
    assert _numba_inline.install() is True   # a second call changes nothing


def test_a_helper_of_the_package_is_built_once_and_computes_the_same(monkeypatch):
    built = _counting(monkeypatch)
    ours = _module("dominoai._inline_probe")
    # by hand: twice(2) = 5*2 + 6 = 16, twice(5) = 8*2 + 9 = 25, plus3(10) = 13
    assert ours["kernel"](2, 5) == 16 - 25 + 13
    # twice once; plus3 once (for twice), its own site in kernel reuses it
    assert sorted(built) == ["plus3", "twice"]


def test_other_code_goes_through_numbas_inliner_unchanged(monkeypatch):
    built = _counting(monkeypatch)
    theirs = _module("someone_elses_package.probe")
    assert theirs["kernel"](2, 5) == 4
    # numba rebuilds at every site: twice at 2; plus3 twice per twice, once in kernel
    assert sorted(built) == ["plus3"] * 5 + ["twice"] * 2


def test_the_machine_code_is_numbas():
    # module names of one length: the symbols' lengths are in the code
    ours, theirs = _module("dominoai.probe_asm"), _module("userpkgx.probe_asm")
    assert ours["kernel"](7, 1) == theirs["kernel"](7, 1) == 10 * 2 + 11 - (4 * 2 + 5) + 10
    assert _asm(ours["kernel"]) == _asm(theirs["kernel"])
