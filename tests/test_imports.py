"""``import dominoai`` stays light: what each entry point imports, checked in a
fresh interpreter (``sys.modules`` at exit), and the lazy public names."""

from __future__ import annotations

import json
import functools
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dominoai

HEAVY = ("pandas", "scipy", "pyarrow", "matplotlib")
#: the modules that declare the subcommands, read by ``dominoai --help``
COMMAND_MODULES = ("dominoai.records_command", "dominoai.viewer_command", "dominoai.simulate_command",
                   "dominoai.play.command", "dominoai.serve.command", "dominoai.tournament.command",
                   "dominoai.plots_command", "dominoai.tune.command", "dominoai.bots_command",
                   "dominoai.learn.command")
#: modules of the package that import no numba: the command line's parser
#: and its subcommands' modules, the rules and tiles, the engine's
#: constants, the cache's bookkeeping
LIGHT_MODULES = ("dominoai", "dominoai.__main__", "dominoai._numba_cache", "dominoai._compile",
                 "dominoai._files", "dominoai._lazy", "dominoai.cli", "dominoai._cli_support", *COMMAND_MODULES,
                 "dominoai.rules", "dominoai.tiles", "dominoai.engine", "dominoai.engine.layout")


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
    """The parser, the rules and the engine's constants import no numba."""
    mods = modules_after("import importlib\n" + "".join(
        f"importlib.import_module({m!r})\n" for m in sorted(LIGHT_MODULES)))
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


@pytest.mark.e2e
@pytest.mark.parametrize("numba_cache_dir", [False, True], ids=["beside-sources", "NUMBA_CACHE_DIR"])
def test_a_changed_callee_recompiles_the_caller(tmp_path, numba_cache_dir):
    """numba alone keeps the caller's stale code when only a kernel it calls
    in another file changed; :func:`~dominoai._numba_cache.ensure_fresh`
    drops the package's cache then, and loads it from the cache otherwise."""
    cache = tmp_path / "numba-cache" if numba_cache_dir else None
    if not numba_cache_dir:   # numba's own behaviour, the reason for the stamp: checked once
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


@pytest.mark.e2e
def test_the_package_stamps_its_kernel_caches():
    """Loading the engine stamps every folder numba keeps the package's
    kernels in with the hash of the current sources."""
    from dominoai import _numba_cache as C

    p = subprocess.run([sys.executable, "-c", "import dominoai.engine.kernels"], capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    dirs = C.kernel_cache_dirs()
    assert any("engine" in d.parts[-1] or d.parent.name == "engine" for d in dirs), dirs
    for d in dirs:
        assert (d / C.STAMP).read_text().strip() == C.source_hash(), d


# ---------------------------------------------------------------- the import graph
PACKAGE = Path(dominoai.__file__).resolve().parent


@functools.cache
def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: its file and whether it is a package
    (read once per session; callers must not change it)."""
    out = {}
    for f in sorted(PACKAGE.rglob("*.py")):
        parts = list(f.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (f, is_pkg)
    return out


def _import_targets(name: str, path: Path, is_pkg: bool, mods) -> list[tuple[str, bool, int]]:
    """``(imported module, function-local?, line)`` for every import statement
    of a module, but those under ``if TYPE_CHECKING:`` (which never run). A
    module of the package is named in full (``dominoai.learn.training``, also
    for ``from . import training``; ``dominoai.game`` for ``from ..game import
    Match``), any other module by its top-level name (``jax`` for ``import
    jax.numpy as jnp``, ``matplotlib`` for ``from matplotlib.figure import
    Figure``); a module the package lacks is left out."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []

    def visit(node, local: bool):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return
        if isinstance(node, ast.Import):
            out.extend((a.name if a.name in mods else a.name.split(".")[0], local, node.lineno)
                       for a in node.names if a.name in mods or a.name.split(".")[0] != PACKAGE.name)
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base.split(".")[0] != PACKAGE.name:
                out.append((base.split(".")[0], local, node.lineno))
            for a in node.names if base in mods else ():
                target = f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                out.append((target, local, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, local or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(tree, False)
    return out


_PACKAGE_TARGETS: dict = {}


def _package_targets(name: str) -> list[tuple[str, bool, int]]:
    """:func:`_import_targets` of one module of the package, parsed once per
    session (the graph tests all read the same files)."""
    if name not in _PACKAGE_TARGETS:
        mods = _modules()
        path, is_pkg = mods[name]
        _PACKAGE_TARGETS[name] = _import_targets(name, path, is_pkg, mods)
    return _PACKAGE_TARGETS[name]


def _imports(name: str, path: Path, is_pkg: bool, mods) -> list[tuple[str, bool, int]]:
    """``(imported module of the package, function-local?, line)`` for every
    import statement of a module that imports one (:func:`_import_targets`)."""
    targets = _package_targets(name) if mods is _modules() else _import_targets(name, path, is_pkg, mods)
    return [t for t in targets if t[0] in mods]


def test_the_imports_of_a_module_are_named(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(textwrap.dedent("""\
        from __future__ import annotations
        import json
        from typing import TYPE_CHECKING
        from ..game import Match
        if TYPE_CHECKING:
            from ..records import Record

        def train():
            import jax.numpy as jnp
            from matplotlib.figure import Figure
            from . import training, nowhere
            from .training import fit
            from .. import __version__
        """))
    mods = {"dominoai", "dominoai.game", "dominoai.records", "dominoai.learn", "dominoai.learn.training"}
    assert _import_targets("dominoai.learn.m", src, False, mods) == [
        ("json", False, 2), ("typing", False, 3), ("dominoai.game", False, 4), ("jax", True, 9),
        ("matplotlib", True, 10), ("dominoai.learn.training", True, 11), ("dominoai.learn", True, 11),
        ("dominoai.learn.training", True, 12), ("dominoai", True, 13)]
    assert [t for t, _, _ in _imports("dominoai.learn.m", src, False, mods)] == [
        "dominoai.game", "dominoai.learn.training", "dominoai.learn", "dominoai.learn.training", "dominoai"]


def _graph() -> dict[str, dict[str, list[int]]]:
    mods = _modules()
    g: dict[str, dict[str, list[int]]] = {m: {} for m in mods}
    for m, (path, is_pkg) in mods.items():
        for target, _, line in _imports(m, path, is_pkg, mods):
            if target != m:
                g[m].setdefault(target, []).append(line)
    return g


def _cycle(g) -> list[str] | None:
    """One cycle of the graph ``g`` (a list of modules), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(v):
        state[v] = 1
        stack.append(v)
        for w in sorted(g[v]):
            if state.get(w) == 1:
                return stack[stack.index(w):] + [w]
            if w not in state:
                found = dfs(w)
                if found:
                    return found
        state[v] = 2
        stack.pop()
        return None

    for v in sorted(g):
        if v not in state:
            found = dfs(v)
            if found:
                return found
    return None


def test_the_graph_finds_a_cycle():
    g = {"a": {"b": [1]}, "b": {"c": [1]}, "c": {"a": [1]}, "d": {"a": [1]}}
    assert _cycle(g) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b": [1]}, "b": {}}) is None


def test_no_import_cycle():
    """Every import of the package, at module level or inside a function,
    makes an acyclic graph."""
    g = _graph()
    assert _cycle(g) is None, " -> ".join(_cycle(g))


def _subpackage(module: str, mods) -> str:
    """The package ``module`` belongs to: ``dominoai.tournament`` for
    ``dominoai.tournament.run``, ``dominoai`` for a top-level module."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 and mods.get(".".join(parts[:2]), (None, False))[1] else "dominoai"


#: packages side by side, or one above the other: the first never imports the
#: second (what both need lies beneath both: a bot's move and its analysis in
#: dominoai.decide, the user data folder in dominoai._files; the viewer
#: stands above the pictures it shows)
NOT_BENEATH = [("dominoai.table", "dominoai.tournament"), ("dominoai.table", "dominoai.play"),
               ("dominoai.table", "dominoai.serve"), ("dominoai.serve", "dominoai.play"),
               ("dominoai.serve", "dominoai.tournament"), ("dominoai.play", "dominoai.serve"),
               ("dominoai.play", "dominoai.tournament"), ("dominoai.tournament", "dominoai.tune"),
               ("dominoai.render", "dominoai.viewer")]


def test_packages_import_only_what_lies_beneath():
    mods = _modules()
    g = _graph()
    found = sorted((a, b, lines[0]) for a, targets in g.items() for b, lines in targets.items()
                   if (_subpackage(a, mods), _subpackage(b, mods)) in NOT_BENEATH)
    assert found == []


def test_no_private_name_crosses_a_package():
    """A name with a leading underscore is imported only inside its own
    package (a module of ``dominoai`` itself, as ``dominoai._files``, is
    beneath every package; its public names are what they import)."""
    import ast

    mods = _modules()
    found = []
    for m, (path, is_pkg) in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = m.split(".") if is_pkg else m.split(".")[:-1]
                base = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base not in mods:
                continue
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__") \
                        and _subpackage(base, mods) != _subpackage(m, mods):
                    found.append((m, node.lineno, f"{base}.{a.name}"))
    assert found == []


# ---------------------------------------------------------------- the packages' import graph
def _package(module: str) -> str:
    """A module's node in the packages' graph: the first name under
    ``dominoai`` (``dominoai.bots.pimc.search`` is ``bots``); a top-level
    module is its own node (``dominoai.rules`` is ``rules``), the package's
    ``__init__`` is ``dominoai``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _package_graph() -> dict[str, dict[str, list[str]]]:
    """``{package: {imported package: ["dominoai/PATH.py:LINE", ...]}}`` of
    every import of every module (at module level or inside a function,
    relative ones resolved; not those under ``if TYPE_CHECKING:``, which
    never run), modules collapsed to their package (:func:`_package`);
    a package's imports of itself are left out."""
    mods = _modules()
    g: dict[str, dict[str, list[str]]] = {_package(m): {} for m in mods}
    for m, (path, is_pkg) in mods.items():
        where = path.relative_to(PACKAGE.parent).as_posix()
        for target, _, line in _imports(m, path, is_pkg, mods):
            a, b = _package(m), _package(target)
            places = g[a].setdefault(b, []) if a != b else []
            if a != b and f"{where}:{line}" not in places:
                places.append(f"{where}:{line}")
    return g


def _strong_components(g) -> list[list[str]]:
    """The strongly connected components of the graph ``g`` (``{node:
    {successor: ...}}``) that hold more than one node, i.e. its cycles: each
    a sorted list of nodes, in sorted order (Tarjan's algorithm)."""
    nodes = sorted(set(g) | {w for succ in g.values() for w in succ})
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return sorted(out)


def _describe(g, comp) -> str:
    """The edges inside the component ``comp`` of ``g``, one line each, with
    the place of every import that makes the edge."""
    lines = [f"packages that import each other: {', '.join(comp)}"]
    for a in comp:
        for b in sorted(set(g[a]) & set(comp)):
            lines.append(f"  {a} -> {b}: {', '.join(g[a][b])}")
    return "\n".join(lines)


def test_the_strong_components_are_the_cycles():
    g = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1, "d": 1}, "d": {"e": 1}, "e": {"d": 1}, "f": {"a": 1}}
    assert _strong_components(g) == [["a", "b", "c"], ["d", "e"]]
    assert _strong_components({"a": {"b": 1}, "b": {"c": 1}, "x": {}}) == []
    msg = _describe({"a": {"b": ["dominoai/a/x.py:3"]}, "b": {"a": ["dominoai/b/y.py:7", "dominoai/b/z.py:9"]}},
                    ["a", "b"])
    assert "a -> b: dominoai/a/x.py:3" in msg and "b -> a: dominoai/b/y.py:7, dominoai/b/z.py:9" in msg


def test_the_package_graph_names_each_package():
    assert _package("dominoai.bots.pimc.search") == "bots"
    assert _package("dominoai.rules") == "rules"
    assert _package("dominoai") == "dominoai"
    g = _package_graph()
    assert {"bots", "learn", "nets", "engine", "rules", "game"} <= set(g)
    assert "engine" in g["bots"] and "nets" in g["bots"]


def test_no_import_cycle_between_packages():
    """The packages (and top-level modules) of ``dominoai`` import one
    another without a cycle, counting every import, lazy ones too: each
    package can be read, tested and replaced from the bottom up."""
    g = _package_graph()
    cycles = [_describe(g, comp) for comp in _strong_components(g)]
    assert not cycles, "\n".join(cycles)


def test_the_pictures_import_nothing_of_the_game():
    """:mod:`dominoai.render` draws plain data (a Position that a hand, a
    match or an observation builds itself): it may import the engine, the
    rules and the tiles, and nothing else of the package, so the game can
    draw itself with it."""
    g = _package_graph()
    found = {b: places for b, places in g["render"].items() if b not in {"engine", "rules", "tiles"}}
    assert found == {}


def test_the_bots_never_import_the_learning_package():
    """The bots play with the learned models of :mod:`dominoai.nets`; the
    environments and training (:mod:`dominoai.learn`) stand above them."""
    g = _package_graph()
    assert "learn" not in g["bots"], "bots -> learn: " + ", ".join(g["bots"]["learn"])


def test_no_library_module_imports_the_command_line():
    g = _graph()
    users = sorted(m for m, targets in g.items() if "dominoai.cli" in targets and m != "dominoai.__main__")
    assert users == []


# ---------------------------------------------------------------- imports inside functions
# the reasons of LAZY_IMPORTS that several entries share
COMMAND = ("a subcommand's module, read when the parser is built: the library it runs (numba, pandas, "
           "the bots) loads when the command runs, so that dominoai --help stays light")
WARM_UP = ("a light module: what a warm-up step plays or compiles (the game, the bots, numpy, "
           "numba) loads when the step runs")
JAX = "the [learn] extra: JAX and optax only when a model trains"
JAXNET = "the network in JAX (the [learn] extra, imported at its top) only when a model trains"
MATPLOTLIB = "matplotlib only when a figure is drawn"
OPTUNA = "optuna (a heavy import) only when a study is opened, run or drawn"
STATS = "the tournament's statistics (scipy) only when they are computed"
TOURNAMENT = ("the tournament and its statistics (pandas, pyarrow, scipy) when a trial plays or is "
              "judged: import dominoai.tune loads no pandas")
TEACHER = "the tournament (pandas, pyarrow) only when the teacher plays"
SERVE = "the [serve] extra (starlette, uvicorn) only when the server starts"

#: every import of the package made inside a function, as ``(importing
#: module, imported module)`` (a module of the package in full, any other by
#: its top-level name) -> why it is not at the module's top: the imported
#: module is heavy (it loads numba, pandas, scipy, pyarrow, matplotlib,
#: optuna, JAX, joblib) or an optional extra, and the importer must stay
#: light or work without it. A module of the standard library is never
#: imported inside a function, nor a light module of the package.
LAZY_IMPORTS = {
    ("dominoai._cli_support", "dominoai.rules"): "the rules (numpy) only when the help names the presets",

    ("dominoai.bots_command", "dominoai.bots.command"): COMMAND,
    ("dominoai.learn.command", "dominoai.bots"): COMMAND,
    ("dominoai.learn.command", "dominoai.bots.command"): COMMAND,
    ("dominoai.learn.command", "dominoai.learn.imitation"): COMMAND,
    ("dominoai.learn.command", "dominoai.learn.ppo"): COMMAND,
    ("dominoai.learn.command", "dominoai.learn.runs"): COMMAND,
    ("dominoai.learn.command", "dominoai.learn.value"): COMMAND,
    ("dominoai.learn.command", "dominoai.nets.model"): COMMAND,
    ("dominoai.learn.command", "dominoai.rules"): COMMAND,
    ("dominoai.learn.command", "jax"): JAX,
    ("dominoai.learn.command", "optax"): JAX,
    ("dominoai.play.command", "dominoai.play.errors"): COMMAND,
    ("dominoai.play.command", "dominoai.play.session"): COMMAND,
    ("dominoai.play.command", "dominoai.play.stats"): COMMAND,
    ("dominoai.plots_command", "dominoai.plots"): COMMAND,
    ("dominoai.plots_command", "dominoai.tune.plots"): COMMAND,
    ("dominoai.plots_command", "matplotlib"): COMMAND,
    ("dominoai.records_command", "dominoai.records"): COMMAND,
    ("dominoai.serve.command", "dominoai.serve"): COMMAND,
    ("dominoai.serve.command", "dominoai.serve.store"): COMMAND,
    ("dominoai.simulate_command", "dominoai.rules"): COMMAND,
    ("dominoai.simulate_command", "dominoai.simulate"): COMMAND,
    ("dominoai.simulate_command", "numpy"): COMMAND,
    ("dominoai.tournament.command", "dominoai.bots"): COMMAND,
    ("dominoai.tournament.command", "dominoai.bots.command"): COMMAND,
    ("dominoai.tournament.command", "dominoai.bots.spec"): COMMAND,
    ("dominoai.tournament.command", "dominoai.rules"): COMMAND,
    ("dominoai.tournament.command", "dominoai.tournament.run"): COMMAND,
    ("dominoai.tournament.command", "dominoai.tournament.schedule"): COMMAND,
    ("dominoai.tournament.command", "dominoai.tournament.storage"): COMMAND,
    ("dominoai.tune.command", "dominoai.tune.study"): COMMAND,
    ("dominoai.viewer_command", "dominoai.records"): COMMAND,
    ("dominoai.viewer_command", "dominoai.viewer.commands"): COMMAND,

    ("dominoai._compile", "dominoai.bots"): WARM_UP,
    ("dominoai._compile", "dominoai.bots.worlds"): WARM_UP,
    ("dominoai._compile", "dominoai.decide"): WARM_UP,
    ("dominoai._compile", "dominoai.engine.fast"): WARM_UP,
    ("dominoai._compile", "dominoai.game"): WARM_UP,
    ("dominoai._compile", "numba"): WARM_UP,
    ("dominoai._compile", "numpy"): WARM_UP,
    ("dominoai._compile", "tqdm"): "a light module: the progress bar only when a step compiles",

    ("dominoai._numba_cache", "numba"): "a light module (dominoai._compile imports it): numba's version "
                                        "and cache folders only when asked for",

    ("dominoai.learn.imitation", "dominoai.learn.jaxnet"): JAXNET,
    ("dominoai.learn.imitation", "dominoai.tournament.run"): TEACHER,
    ("dominoai.learn.imitation", "jax"): JAX,

    ("dominoai.learn.ppo", "dominoai.learn.jaxnet"): JAXNET,
    ("dominoai.learn.ppo", "jax"): JAX,
    ("dominoai.learn.ppo", "matplotlib"): MATPLOTLIB,
    ("dominoai.learn.ppo", "optax"): JAX,

    ("dominoai.learn.reinforce", "jax"): JAX,
    ("dominoai.learn.reinforce", "optax"): JAX,

    ("dominoai.learn.training", "jax"): JAX,
    ("dominoai.learn.training", "matplotlib"): MATPLOTLIB,
    ("dominoai.learn.training", "optax"): JAX,
    ("dominoai.learn.training", "pandas"): "pandas only when a log is written",

    ("dominoai.learn.value", "dominoai.learn.jaxnet"): JAXNET,
    ("dominoai.learn.value", "dominoai.tournament.run"): TEACHER,

    ("dominoai.plots", "dominoai.tournament.stats"): STATS,
    ("dominoai.plots", "dominoai.tournament.storage"): "the results files (pyarrow) only when a path is given",
    ("dominoai.plots", "matplotlib"): MATPLOTLIB,

    ("dominoai.serve", "dominoai.serve.app"): SERVE,
    ("dominoai.serve", "dominoai.serve.protocol"): SERVE,
    ("dominoai.serve", "dominoai.serve.store"): "the store (the records: numba) only when it is opened",
    ("dominoai.serve", "uvicorn"): SERVE,

    ("dominoai.tournament.backends", "dask"): "the [dask] extra only when its backend is used",
    ("dominoai.tournament.backends", "joblib"): "joblib's pool (a heavy import) only when batches run in "
                                                "parallel",
    ("dominoai.tournament.backends", "ray"): "the [ray] extra only when its backend is used",

    ("dominoai.tournament.storage", "dominoai.tournament.stats"): STATS,

    ("dominoai.tune.objective", "dominoai.tournament"): TOURNAMENT,

    ("dominoai.tune.plots", "matplotlib"): MATPLOTLIB,
    ("dominoai.tune.plots", "optuna"): OPTUNA,

    ("dominoai.tune.storage", "optuna"): OPTUNA,
    ("dominoai.tune.storage", "psycopg"): "the [postgres] extra only for a PostgreSQL storage",
    ("dominoai.tune.storage", "sqlalchemy"): "SQLAlchemy (optuna's, a heavy import) only for a database "
                                             "storage",

    ("dominoai.tune.study", "optuna"): OPTUNA,
    ("dominoai.tune.study", "pandas"): "pandas only when the trials are tabled: import dominoai.tune loads "
                                       "no pandas",

    ("dominoai.tune.validation", "dominoai.tournament"): TOURNAMENT,

    ("dominoai.tune.workers", "optuna"): OPTUNA,
}


def _local_imports() -> list[tuple[str, str, str]]:
    """``(importing module, imported module, "dominoai/PATH.py:LINE")`` of
    every import made inside a function of the package."""
    mods = _modules()
    return [(m, target, f"{path.relative_to(PACKAGE.parent).as_posix()}:{line}")
            for m, (path, is_pkg) in mods.items()
            for target, local, line in _package_targets(m) if local]


def test_function_local_imports_are_lazy_ones():
    """An import inside a function is one of :data:`LAZY_IMPORTS` (each with
    its reason); every other import is at the top of its module, the
    standard library's always. An entry no function needs any more fails
    too: drop it."""
    found = _local_imports()
    problems = [f"{where}: {imported} is in the standard library: import it at the top of {m}"
                for m, imported, where in found
                if imported in sys.stdlib_module_names]
    problems += [f"{where}: {m} imports {imported} inside a function: import it at the top, or list "
                 f"({m!r}, {imported!r}) in LAZY_IMPORTS with the reason"
                 for m, imported, where in found
                 if imported not in sys.stdlib_module_names
                 and (m, imported) not in LAZY_IMPORTS]
    used = {(m, imported) for m, imported, _ in found}
    problems += [f"LAZY_IMPORTS lists {key}, which no function imports any more: drop it"
                 for key in sorted(set(LAZY_IMPORTS) - used)]
    problems += [f"LAZY_IMPORTS lists {key}: the standard library is imported at the top"
                 for key in sorted(LAZY_IMPORTS) if key[1] in sys.stdlib_module_names]
    assert problems == [], "\n".join(problems)


@pytest.mark.e2e
def test_a_second_checkout_of_the_same_code_is_not_warm(tmp_path):
    """The warm-up markers are kept per place of the package, as numba keeps
    the kernels: two copies of the same sources share the code's hash but
    not the markers' folder, so the second copy's first run says that it
    compiles; the same copy finds its own folder again."""
    import shutil
    src = Path(dominoai.__file__).parent
    for name in ("a", "b"):
        shutil.copytree(src, tmp_path / name / "dominoai", ignore=shutil.ignore_patterns("__pycache__"))
    code = ("from dominoai import _numba_cache as c\n"
            "print(c.source_hash(), c.cache_dir().name)")

    def run(name):
        env = {**os.environ, "PYTHONPATH": str(tmp_path / name)}
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                           env=env, cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        return p.stdout.split()

    (ha, da), (hb, db), again = run("a"), run("b"), run("a")
    assert ha == hb                       # the same code
    assert da != db and da.startswith(f"numba-{ha}-") and db.startswith(f"numba-{hb}-")
    assert again == [ha, da]


def test_no_test_module_imports_another():
    """Shared helpers live in conftest.py (fixtures) or in helper modules of
    tests/ (``serving.py``, ``handmade.py``, ...), never in a test module."""
    import ast

    tests = Path(__file__).parent
    found = []
    for path in sorted(tests.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            found += [f"{path.name}:{node.lineno} imports {n}" for n in names
                      if n.split(".")[-1].startswith("test_") or n.startswith("tests.test_")]
    assert found == []
