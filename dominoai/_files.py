"""Writing files whole or not at all: one temporary file in the same folder,
moved into place with :func:`os.replace` only once fully written, so a reader
(or a resume after a kill) never sees half a file, and a failure leaves none.
Used by the tournament's results and parts, the terminal game's saved match
and statistics, and the pictures and viewer pages."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

__all__ = ["atomic_write", "atomic_write_text", "nearest_existing", "is_npz"]


def is_npz(path) -> bool:
    """Whether the file at ``path`` begins as a zip archive does, as every
    ``.npz`` file does (its first four bytes; a damaged archive can still
    begin so).

    :raises OSError: the file cannot be opened or read.
    """
    with open(path, "rb") as f:
        return f.read(4) in (b"PK\x03\x04", b"PK\x05\x06")


def nearest_existing(path) -> Path:
    """``path`` made absolute, or its nearest ancestor that exists: where a
    folder missing on the way to ``path`` would be made (a caller checks it
    is a writable folder before anything is written)."""
    p = Path(os.path.abspath(path))
    while not p.exists() and p.parent != p:
        p = p.parent
    return p


def atomic_write(path, write: Callable[[Path], object]) -> Path:
    """Write ``path`` through ``write(tmp_path)`` (a writer that creates the
    file it is given, e.g. a parquet writer), then move it into place.

    :raises OSError: the folder cannot be written (no temporary file is left).
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)   # mkstemp makes 0600; a results file is as any other
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def atomic_write_text(path, text: str, sync: bool = False) -> Path:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all (see
    :func:`atomic_write`); ``sync`` flushes it to disk before the move.

    :raises OSError: the folder or the file cannot be written.
    """
    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            if sync:
                f.flush()
                os.fsync(f.fileno())

    return atomic_write(path, write)
