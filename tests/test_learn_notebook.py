"""notebooks/learning.ipynb runs (small): the JAX policy-gradient example
trains, draws its curve and is rated in a tournament."""

from __future__ import annotations

import pytest

from notebook_runner import has_figure, run_notebook, text_of


@pytest.mark.e2e
def test_learning_notebook_runs(tmp_path):
    pytest.importorskip("jax", reason="the learning example needs the [learn] extra (jax)")
    pytest.importorskip("optax", reason="the learning example needs the [learn] extra (optax)")
    outs = run_notebook("learning.ipynb", tmp_path, after="ITERATIONS =",
                        cell="ITERATIONS = 15\nNUM_ENVS = 128\nDEALS = 20")
    text = text_of(outs)
    assert "1920 hands in" in text                      # 15 batches of 128 hands
    assert has_figure(outs)
    table = "".join(o.get("data", {}).get("text/plain", "") for o in outs)
    assert "points_diff" in table and "pg" in table
