"""``import dominoai`` stays light: what each entry point imports, checked in a
fresh interpreter (``sys.modules`` at exit), and the lazy public names."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dominoai

HEAVY = ("pandas", "scipy", "pyarrow", "matplotlib")
#: modules of the package that import no numba: the command line's parser,
#: the rules and tiles, the engine's constants, the cache's bookkeeping
LIGHT_MODULES = ("dominoai", "dominoai.__main__", "dominoai._numba_cache", "dominoai._compile",
                 "dominoai._files", "dominoai.cli", "dominoai.rules", "dominoai.tiles",
                 "dominoai.engine", "dominoai.engine.layout")


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
def test_import_loads_no_heavy_module(code):
    mods = modules_after(code)
    assert "dominoai" in mods
    assert not mods & {*HEAVY, "numba"}, mods & {*HEAVY, "numba"}


def test_help_loads_no_heavy_module():
    mods = modules_after("import runpy; sys.argv = ['dominoai', '--help']\n"
                         "runpy.run_module('dominoai', run_name='__main__', alter_sys=True)")
    assert "argparse" in mods
    assert not mods & {*HEAVY, "numba"}, mods & {*HEAVY, "numba"}


def test_light_modules_import_no_numba():
    """The parser, the rules and the engine's constants import no numba."""
    mods = modules_after("import importlib\n" + "".join(
        f"importlib.import_module({m!r})\n" for m in sorted(LIGHT_MODULES)))
    assert "numba" not in mods


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


def test_import_changes_nothing_outside_the_package():
    """Neither ``import dominoai`` nor loading the kernels installs an import
    hook or changes numba's settings or the environment."""
    code = ("import os, sys, numba\n"
            "def seen(): return (list(sys.meta_path), list(sys.path_hooks), numba.config.CACHE_DIR, "
            "os.environ.get('NUMBA_CACHE_DIR'))\n"
            "before = seen()\n"
            "import dominoai\n"
            "after_import = seen()\n"
            "import dominoai.engine.kernels, dominoai.bots\n"
            "print(before == after_import, before == seen())")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env)
    assert p.stdout.split() == ["True", "True"], p.stderr


_CALLEE = "from numba import njit\n\n\n@njit(cache=True)\ndef value():\n    return {}\n"
_CALLER = textwrap.dedent("""\
    from pathlib import Path

    from numba import njit

    {fresh}
    from .callee import value


    @njit(cache=True)
    def twice():
        return 2 * value()
    """)


def _run_twice(tmp_path: Path, fresh: bool, cache_dir: Path | None) -> list[tuple[int, int]]:
    """A two-module package (``caller.twice`` calls ``callee.value``) run in
    three fresh interpreters: as written, after ``value`` changed from 1 to
    5, and again unchanged. Returns ``(twice(), cache hits)`` per run."""
    pkg = tmp_path / ("fresh" if fresh else "plain")
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "caller.py").write_text(_CALLER.format(fresh=(
        "from dominoai._numba_cache import ensure_fresh\n\nensure_fresh(Path(__file__).parent)\n"
        if fresh else "")))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(Path(dominoai.__file__).parents[1])])
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    code = (f"from {pkg.name}.caller import twice\n"
            "print(twice(), sum(twice.stats.cache_hits.values()))")
    out = []
    for v in (1, 5, 5):
        (pkg / "callee.py").write_text(_CALLEE.format(v))
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                           env=env, cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        a, b = p.stdout.split()
        out.append((int(a), int(b)))
    return out


@pytest.mark.parametrize("numba_cache_dir", [False, True], ids=["beside-sources", "NUMBA_CACHE_DIR"])
def test_a_changed_callee_recompiles_the_caller(tmp_path, numba_cache_dir):
    """numba alone keeps the caller's stale code when only a kernel it calls
    in another file changed; :func:`~dominoai._numba_cache.ensure_fresh`
    drops the package's cache then, and loads it from the cache otherwise."""
    cache = tmp_path / "numba-cache" if numba_cache_dir else None
    plain = _run_twice(tmp_path, False, cache)
    assert [v for v, _ in plain] == [2, 2, 2], "numba now tracks callees: the stamp may be unneeded"
    fresh = _run_twice(tmp_path, True, cache)
    assert [v for v, _ in fresh] == [2, 10, 10]
    assert fresh[0][1] == 0 and fresh[1][1] == 0   # compiled: the first run, then after the change
    assert fresh[2][1] >= 1                          # unchanged: loaded from numba's cache


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
