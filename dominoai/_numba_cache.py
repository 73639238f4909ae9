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
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path


def source_hash() -> str:
    """A short hash of the package's source files, numba's and Python's versions."""
    import numba

    root = Path(__file__).resolve().parent
    h = hashlib.sha1(f"{numba.__version__} {sys.version_info[:2]}".encode())
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def configure() -> str | None:
    """Point numba's cache at the directory of this version of the code;
    return it (None when no directory is writable: numba's default then)."""
    import numba

    if os.environ.get("NUMBA_CACHE_DIR"):
        base = Path(os.environ["NUMBA_CACHE_DIR"]) / "dominoai"
    else:
        try:
            from platformdirs import user_cache_dir
            base = Path(user_cache_dir("dominoai"))
        except ImportError:  # pragma: no cover - platformdirs is a dependency
            base = Path.home() / ".cache" / "dominoai"
    path = base / f"numba-{source_hash()}"
    try:
        path.mkdir(parents=True, exist_ok=True)
        os.utime(path)  # in use: keep it from being pruned
    except OSError:
        return None
    numba.config.CACHE_DIR = str(path)
    _prune(base, keep=path)
    return str(path)


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
