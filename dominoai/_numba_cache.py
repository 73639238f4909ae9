"""Where numba keeps the compiled kernels: one cache per version of the code.

numba's on-disk cache (``cache=True``) checks only the source file of the
function it compiled, not the kernels it calls in other modules: after a
change to ``engine/kernels.py``, cached code in ``bots/hard.py`` could still
run the old engine, or crash. So the cache lives in a directory named by a
hash of every source file of the package (and the numba and Python
versions): any change to the code starts a fresh cache, and processes that
run the same code (tournament workers) share it.

The directory is ``<user cache dir>/dominoai/numba-<hash>``, or
``$NUMBA_CACHE_DIR/dominoai/numba-<hash>`` when ``NUMBA_CACHE_DIR`` is set.

numba itself is imported late: ``import dominoai`` only installs a finder
(:func:`install`) that calls :func:`configure` just before the first module
of the package outside :data:`LIGHT_MODULES` is imported. Every module that
defines a kernel is outside that set, so the cache directory is set before
any ``@njit(cache=True)`` decorator runs, while ``dominoai --help`` and the
rules never import numba.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

#: Modules of the package that import no numba (and define no kernel): the
#: command line's parser, the rules and tiles, the engine's constants, the
#: render package's drawing modules.
LIGHT_MODULES = frozenset({
    "dominoai", "dominoai.__main__", "dominoai._numba_cache", "dominoai._compile", "dominoai._files",
    "dominoai.cli",
    "dominoai.rules", "dominoai.tiles", "dominoai.engine", "dominoai.engine.layout",
    # the pictures: no kernel; they import the game facade only when they draw
    "dominoai.render", "dominoai.render.layout", "dominoai.render.position",
    "dominoai.render.svgdraw", "dominoai.render.textdraw",
})

_configured: list = []  # [the directory] once configure() has run in this process


def source_hash() -> str:
    """A short hash of the package's source files, numba's and Python's versions."""
    import numba

    root = Path(__file__).resolve().parent
    h = hashlib.sha1(f"{numba.__version__} {sys.version_info[:2]}".encode())
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def cache_base() -> Path:
    """The directory that holds one ``numba-<hash>`` cache per code version."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]) / "dominoai"
    try:
        from platformdirs import user_cache_dir
        return Path(user_cache_dir("dominoai"))
    except ImportError:  # pragma: no cover - platformdirs is a dependency
        return Path.home() / ".cache" / "dominoai"


def cache_dir() -> Path:
    """This version's cache directory (it may not exist yet)."""
    return cache_base() / f"numba-{source_hash()}"


def configure() -> str | None:
    """Point numba's cache at the directory of this version of the code;
    return it (None when no directory is writable: numba's default then).
    Imports numba; runs once per process (later calls return the same)."""
    if _configured:
        return _configured[0]
    import numba

    base = cache_base()
    path = base / f"numba-{source_hash()}"
    try:
        path.mkdir(parents=True, exist_ok=True)
        os.utime(path)  # in use: keep it from being pruned
    except OSError:
        _configured.append(None)
        return None
    numba.config.CACHE_DIR = str(path)
    _configured.append(str(path))
    _prune(base, keep=path)
    return str(path)


class _ConfigureFirst:
    """A meta path finder that finds nothing: it runs :func:`configure` when
    the first module of the package outside :data:`LIGHT_MODULES` is about to
    be imported, then removes itself."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname.startswith("dominoai.") and fullname not in LIGHT_MODULES:
            uninstall()
            configure()
        return None  # the ordinary finders import the module


def install() -> None:
    """Arrange for :func:`configure` to run before the first kernel module is
    imported (at once if one already is)."""
    if _configured:
        return
    if any(m.startswith("dominoai.") and m not in LIGHT_MODULES for m in sys.modules):
        configure()
        return
    if _ConfigureFirst not in sys.meta_path:
        sys.meta_path.insert(0, _ConfigureFirst)


def uninstall() -> None:
    """Remove the finder of :func:`install` (configure() is then not run)."""
    while _ConfigureFirst in sys.meta_path:
        sys.meta_path.remove(_ConfigureFirst)


def _prune(base: Path, keep: Path, days: float = 7.0) -> None:
    """Remove caches of other code versions unused for ``days``."""
    import shutil
    import time

    cutoff = time.time() - days * 86400
    for d in base.glob("numba-*"):
        try:
            if d != keep and d.stat().st_mtime < cutoff:
                shutil.rmtree(d, ignore_errors=True)
        except OSError:
            pass
