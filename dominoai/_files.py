"""Files: where the user's data lives, and writing a file whole or not at all.

:func:`atomic_write` writes one temporary file in the same folder, moved into
place with :func:`os.replace` only once fully written, so a reader (or a
resume after a kill) never sees half a file, and a failure leaves none. It
is the one atomic write of the package: the tournament's results and parts,
a study's tables, the learners' models and logs, the terminal game's saved
match and statistics, the server's exported records, the pictures and
viewer pages. :func:`user_data_path` is the user data folder that
``dominoai play`` and ``dominoai serve`` keep their files in.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

from platformdirs import user_data_dir

__all__ = ["ENV_DATA_DIR", "user_data_path", "atomic_write", "nearest_existing", "free_path", "is_npz"]

#: the environment variable that names the user data folder
ENV_DATA_DIR = "DOMINOAI_DATA_DIR"


def user_data_path(override: "str | os.PathLike | None" = None) -> Path:
    """The user data directory: ``override``, else ``$DOMINOAI_DATA_DIR``
    (:data:`ENV_DATA_DIR`), else ``platformdirs.user_data_dir("dominoai")``.
    Not created here.
    """
    if override is not None:
        return Path(override)
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env)
    return Path(user_data_dir("dominoai"))


def is_npz(path) -> bool:
    """Whether the file at ``path`` begins as a zip archive does, as every
    ``.npz`` file does (its first four bytes; a damaged archive can still
    begin so).

    :raises OSError: the file cannot be opened or read.
    """
    with open(path, "rb") as f:
        return f.read(4) in (b"PK\x03\x04", b"PK\x05\x06")


def free_path(path: Path) -> Path:
    """``path`` if nothing is there, else the first of ``name-2.json``,
    ``name-3.json``, … that is free: a file set aside never overwrites one
    set aside before."""
    n = 2
    free = path
    while free.exists():
        free = path.with_name(f"{path.stem}-{n}{path.suffix}")
        n += 1
    return free


def nearest_existing(path) -> Path:
    """``path`` made absolute, or its nearest ancestor that exists: where a
    folder missing on the way to ``path`` would be made (a caller checks it
    is a writable folder before anything is written)."""
    p = Path(os.path.abspath(path))
    while not p.exists() and p.parent != p:
        p = p.parent
    return p


def atomic_write(path, content: "str | bytes | Callable[[Path], object]", *, sync: bool = False) -> Path:
    """Write ``path`` whole or not at all, and return it (a :class:`Path`).
    ``content``: a ``str`` (written as UTF-8), ``bytes``, or a writer
    ``content(tmp_path)`` that creates the file it is given (a parquet or
    figure writer). The file goes to a temporary name in ``path``'s folder
    first, then :func:`os.replace` moves it into place; ``sync`` flushes it
    to disk before the move (a save that must survive a power cut). The
    folder must exist.

    :raises OSError: the folder or the file cannot be written (no temporary
        file is left behind; an earlier ``path`` is kept as it was).
    :raises TypeError: ``content`` is neither text, bytes nor callable.
    """
    if isinstance(content, (str, bytes)):
        def write(tmp: Path) -> None:
            with (open(tmp, "w", encoding="utf-8") if isinstance(content, str) else open(tmp, "wb")) as f:
                f.write(content)
    elif callable(content):
        write = content
    else:
        raise TypeError(f"content must be text, bytes or a writer, not {type(content).__name__}")
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        write(tmp)
        if sync:
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)   # mkstemp makes 0600; a results file is as any other
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path
