"""Running the repository's notebooks in the tests: small sizes, outputs read back."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_notebook(name: str, folder: Path, after: str | None = None, cell: str = "", end: str = "") -> list[dict]:
    """Execute ``notebooks/<name>`` in ``folder`` (its working directory) and
    return the outputs of its code cells, in order. With ``after``, the code
    ``cell`` is inserted after the first cell whose source holds ``after``
    (the tests set small sizes that way); the code ``end``, if any, runs
    after the notebook's last cell (to keep what the notebook made, in
    ``folder``). The kernel runs with a temporary home folder and IPython
    folder (IPython and jupyter_client would make ~/.ipython), the user
    cache still the real one (numba's kernels). Skips where nbformat,
    nbclient or ipykernel is missing."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    if after is not None:
        i = next(k for k, c in enumerate(nb.cells) if after in c.source)
        nb.cells.insert(i + 1, nbformat.v4.new_code_cell(cell))
    if end:
        nb.cells.append(nbformat.v4.new_code_cell(end))
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    before = os.environ.get("IPYTHONDIR")
    with tempfile.TemporaryDirectory(prefix="dominoai-kernel-home-") as home:
        ipython = str(Path(home) / ".ipython")
        env = dict(os.environ, HOME=home, IPYTHONDIR=ipython, XDG_CACHE_HOME=cache)
        os.environ["IPYTHONDIR"] = ipython     # where jupyter_client looks for kernels (it makes the folder)
        try:
            nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                    resources={"metadata": {"path": str(folder)}}).execute(env=env)
        finally:
            if before is None:
                os.environ.pop("IPYTHONDIR", None)
            else:
                os.environ["IPYTHONDIR"] = before
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def text_of(outputs: list[dict]) -> str:
    """The printed text of ``outputs`` (stdout and stderr streams), joined."""
    return "".join(o.get("text", "") for o in outputs)


def has_figure(outputs: list[dict]) -> bool:
    """Whether one of ``outputs`` is a PNG image."""
    return any("image/png" in o.get("data", {}) for o in outputs)
