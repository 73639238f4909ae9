"""``import dominoai`` stays light: what each entry point imports, checked in a
fresh interpreter (``sys.modules`` at exit), and the lazy public names."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import dominoai
from dominoai import _numba_cache

HEAVY = ("pandas", "scipy", "pyarrow", "matplotlib")


def modules_after(code: str) -> set[str]:
    """The top-level packages in ``sys.modules`` when ``code`` has run (at
    exit, so a ``sys.exit`` in ``code`` is fine), in a fresh interpreter."""
    prog = ("import atexit, json, sys\n"
            "atexit.register(lambda: sys.__stdout__.write('\\nMODULES ' + json.dumps("
            "sorted({m.split('.')[0] for m in sys.modules})) + '\\n'))\n" + code)
    p = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=600)
    line = [x for x in p.stdout.splitlines() if x.startswith("MODULES ")]
    assert line, (p.returncode, p.stdout, p.stderr)
    return set(json.loads(line[-1][len("MODULES "):]))


@pytest.mark.parametrize("code", ["import dominoai", "import dominoai.engine",
                                  "import dominoai.engine.layout, dominoai.rules, dominoai.tiles"])
@pytest.mark.e2e
def test_import_loads_no_heavy_module(code):
    mods = modules_after(code)
    assert "dominoai" in mods
    assert not mods & {*HEAVY, "numba"}, mods & {*HEAVY, "numba"}


@pytest.mark.e2e
def test_help_loads_no_heavy_module():
    mods = modules_after("import runpy; sys.argv = ['dominoai', '--help']\n"
                         "runpy.run_module('dominoai', run_name='__main__', alter_sys=True)")
    assert "argparse" in mods
    assert not mods & {*HEAVY, "numba"}, mods & {*HEAVY, "numba"}


@pytest.mark.e2e
def test_light_modules_import_no_numba():
    """Every module :mod:`dominoai._numba_cache` counts as light imports no
    numba, so none of them can define a kernel before the cache is set."""
    mods = modules_after("import importlib\n" + "".join(
        f"importlib.import_module({m!r})\n" for m in sorted(_numba_cache.LIGHT_MODULES)))
    assert "numba" not in mods


@pytest.mark.e2e
def test_replay_loads_no_pandas(tmp_path):
    """A record replay needs the engine (numba, which itself imports a part of
    scipy) but not the tournament's tables."""
    from shared_cases import BLOCK
    f = tmp_path / "block.json"
    f.write_text(json.dumps(BLOCK))
    mods = modules_after("from dominoai.cli import main\n"
                         f"assert main(['replay', {str(f)!r}, '--json']) == 0")
    assert "numba" in mods
    assert not mods & {"pandas", "pyarrow", "matplotlib"}, mods


@pytest.mark.e2e
def test_cache_directory_is_set_before_the_first_kernel():
    code = ("import dominoai.engine.kernels, numba\n"
            "from dominoai import _numba_cache\n"
            "print(numba.config.CACHE_DIR == str(_numba_cache.cache_dir()))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert p.stdout.strip() == "True", p.stderr


def test_lazy_public_names():
    from dominoai import run_tournament
    from dominoai.tournament import run_tournament as rt
    assert run_tournament is rt
    for name in dominoai.__all__:
        assert getattr(dominoai, name) is not None, name
    assert set(dominoai.__all__) <= set(dir(dominoai))
    assert dominoai.bots.make_bot is dominoai.make_bot  # submodules as attributes
    with pytest.raises(AttributeError, match="no attribute 'nonesuch'"):
        dominoai.nonesuch  # noqa: B018
    ns: dict = {}
    exec("from dominoai import *", ns)
    assert {"Match", "run_tournament", "Rules"} <= set(ns)
