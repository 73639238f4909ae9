"""Keeping numba's cache of the package's kernels fresh, without touching numba's settings.

numba's on-disk cache (``cache=True``) checks only the source file of the
function it compiled, not the kernels it calls in other modules (numba's
documentation, "Cache invalidation"): after a change to
``engine/kernels.py``, cached code in ``nets/hardeval.py`` could still run the
old engine, or crash. numba offers no public way to give one package a
cache of its own (``NUMBA_CACHE_DIR`` and ``numba.config.CACHE_DIR`` act on
the whole process), and its documented way to clear a cache is to remove
the files. So this module leaves numba's cache where numba puts it (the
``__pycache__`` folders beside the sources, ``$NUMBA_CACHE_DIR`` when the
user sets it, or numba's user-wide cache folder when the sources are not
writable) and removes only the package's own cache files there when the
code changed:

- :func:`source_hash` hashes every source file of the package with numba's
  and Python's versions;
- :func:`ensure_fresh` (run once per process by :mod:`dominoai.engine.kernels`,
  which every kernel module imports before it defines a kernel, and so
  before any kernel is compiled or loaded) compares that hash with the
  stamp file ``dominoai-code.stamp`` in each folder where numba keeps the
  package's kernels; where it differs, it removes that folder's ``*.nbi`` /
  ``*.nbc`` files (every one of them belongs to the package: numba names a
  folder per source folder) and writes the new stamp.

Any change to the code thus recompiles every kernel once, and processes
that run the same code (tournament workers) share the cache. ``import
dominoai`` runs none of this: it imports no numba, installs no import hook
and changes no numba setting.

:func:`cache_dir` is the package's own folder in the user cache
(``<user cache dir>/dominoai/numba-<hash>-<place>``, or
``$NUMBA_CACHE_DIR/dominoai/numba-<hash>-<place>`` when that is set): it holds the
warm-up markers of :mod:`dominoai._compile`, not kernels.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from platformdirs import user_cache_dir

__all__ = ["source_hash", "cache_base", "cache_dir", "kernel_cache_dirs", "ensure_fresh", "STAMP"]

#: the stamp file beside the package's cached kernels
STAMP = "dominoai-code.stamp"
_ROOT = Path(__file__).resolve().parent
_fresh: dict[Path, str] = {}  # package root -> its hash, once ensure_fresh() has run for it


def source_hash(root: Path | str | None = None) -> str:
    """A short hash of the source files under ``root`` (default: this
    package), numba's and Python's versions (16 hex digits)."""
    import numba

    root = _ROOT if root is None else Path(root).resolve()
    h = hashlib.sha1(f"{numba.__version__} {sys.version_info[:2]}".encode())
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root).as_posix()).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def cache_base() -> Path:
    """The package's own folder in the user cache (one ``numba-<hash>-<place>``
    folder of warm-up markers per code version)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]) / "dominoai"
    return Path(user_cache_dir("dominoai"))


def cache_dir() -> Path:
    """This version's folder of warm-up markers (it may not exist yet):
    ``numba-<source hash>-<place>``, ``<place>`` a hash of the package's
    folder. numba keeps the kernels by the place of their sources (beside
    them, or under a name made of their path), so a second checkout of the
    same code compiles afresh: its markers must not say it is warm."""
    place = hashlib.sha1(str(_ROOT).encode()).hexdigest()[:8]
    return cache_base() / f"numba-{source_hash()}-{place}"


def _numba_subpath(folder: Path) -> str:
    """The name numba gives ``folder``'s cache inside ``$NUMBA_CACHE_DIR`` or
    its user-wide cache: the folder's name and the SHA-1 of its full path."""
    return f"{folder.name}_{hashlib.sha1(str(folder).encode()).hexdigest()}"


def kernel_cache_dirs(root: Path | str | None = None, make: bool = False) -> list[Path]:
    """The folders where numba may keep the cached kernels of the package
    under ``root`` (default: this package): for each source folder with a
    kernel (a file that calls ``njit(``), its
    ``__pycache__``, its folder in ``numba.config.CACHE_DIR`` when one is
    set, and its folder in numba's user-wide cache. Only those that exist;
    ``make``: first make the one numba will write to, if missing."""
    import numba

    root = _ROOT if root is None else Path(root).resolve()
    folders = sorted({f.parent for f in root.rglob("*.py")
                      if "__pycache__" not in f.parts and b"njit(" in f.read_bytes()})
    bases = []
    if numba.config.CACHE_DIR:
        bases.append(Path(numba.config.CACHE_DIR))
    try:
        from numba.misc.appdirs import AppDirs
        bases.append(Path(AppDirs(appname="numba", appauthor=False).user_cache_dir))
    except ImportError:  # pragma: no cover - numba's layout
        pass
    out = []
    for d in folders:
        cands = [d / "__pycache__", *(b / _numba_subpath(d) for b in bases)]
        if make:
            # the folder numba will write to (its choice: $NUMBA_CACHE_DIR, else
            # beside the source, else user-wide) made now, so its stamp is new
            for c in (cands[1:2] if numba.config.CACHE_DIR else cands[:1] + cands[-1:]):
                try:
                    c.mkdir(parents=True, exist_ok=True)
                    break
                except OSError:
                    continue
        out.extend(c for c in cands if c.is_dir())
    return out


def ensure_fresh(root: Path | str | None = None) -> str:
    """Remove the cached kernels of the package under ``root`` (default:
    this package) wherever their stamp is not this code's hash; return the
    hash. Runs once per process and root (later calls return at once).
    Folders that cannot be written are left as they are."""
    root = _ROOT if root is None else Path(root).resolve()
    if root in _fresh:
        return _fresh[root]
    code = source_hash(root)
    for d in kernel_cache_dirs(root, make=True):
        stamp = d / STAMP
        try:
            if stamp.is_file() and stamp.read_text().strip() == code:
                continue
            for f in d.iterdir():
                if f.suffix in (".nbi", ".nbc"):
                    f.unlink(missing_ok=True)
            tmp = d / f".{STAMP}.{os.getpid()}"
            tmp.write_text(code + "\n")
            os.replace(tmp, stamp)
        except OSError:
            continue
    _fresh[root] = code
    return code
