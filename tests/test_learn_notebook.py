"""notebooks/learning.ipynb runs (small): the JAX policy-gradient example
trains, draws its curve and is rated in a tournament."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.e2e
def test_learning_notebook_runs(tmp_path):
    pytest.importorskip("jax", reason="the learning example needs the [learn] extra (jax)")
    pytest.importorskip("optax", reason="the learning example needs the [learn] extra (optax)")
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.read(ROOT / "notebooks" / "learning.ipynb", as_version=4)
    i = next(k for k, c in enumerate(nb.cells) if "ITERATIONS =" in c.source)
    nb.cells.insert(i + 1, nbformat.v4.new_code_cell("ITERATIONS = 15\nNUM_ENVS = 128\nDEALS = 20"))
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "".join(o.get("text", "") for o in outs)
    assert "1920 hands in" in text                      # 15 batches of 128 hands
    assert any("image/png" in o.get("data", {}) for o in outs)
    table = "".join(o.get("data", {}).get("text/plain", "") for o in outs)
    assert "points_diff" in table and "pg" in table
