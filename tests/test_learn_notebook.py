"""notebooks/learning.ipynb runs (small): the JAX policy-gradient example
trains, draws its curve and is rated in a tournament; the policy it trained
beats a player of uniformly random legal moves."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("learning")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from notebook_runner import has_figure, run_notebook, text_of

#: duplicate deals (each played with the seats swapped) of the trained policy
#: against random moves
DEALS = 600
#: the least margin, in points per hand, the trained policy must win by. At the
#: test's sizes (15 batches of 128 hands, seed 0) it won by 2.0 to 2.3 over 300
#: deals of three tournament seeds; the same network after one batch, by -0.4
#: to 1.0
MARGIN = 1.5


@pytest.mark.e2e
def test_learning_notebook_runs(tmp_path, monkeypatch):
    pytest.importorskip("jax", reason="the learning example needs the [learn] extra (jax)")
    pytest.importorskip("optax", reason="the learning example needs the [learn] extra (optax)")
    outs = run_notebook("learning.ipynb", tmp_path, after="ITERATIONS =",
                        cell="ITERATIONS = 15\nNUM_ENVS = 128\nDEALS = 20",
                        end='import numpy as np\nnp.savez("trained.npz", **run.params)')
    text = text_of(outs)
    assert "1920 hands in" in text                      # 15 batches of 128 hands
    assert has_figure(outs)
    table = "".join(o.get("data", {}).get("text/plain", "") for o in outs)
    assert "points_diff" in table and "pg" in table

    # the policy it trained, against random legal moves on the same deals
    from dominoai.bots import base
    from dominoai.learn.reinforce import PolicyBot
    from dominoai.moves import Move
    from dominoai.tournament import run_tournament

    with np.load(tmp_path / "trained.npz") as f:
        params = {k: f[k] for k in f.files}

    class RandomMoves(base.BaseBot):
        name = "random-moves"

        def act(self, observation) -> Move:
            return Move.from_code(int(self.rng.choice(observation.legal_codes())))

    monkeypatch.setitem(base.BOTS, "trained", lambda seed=None: PolicyBot(seed, params=params))
    monkeypatch.setitem(base.BOTS, "random-moves", lambda seed=None: RandomMoves(seed))
    res = run_tournament("block", ["trained", "random-moves"], hands=DEALS, seed=1, jobs=1, progress=False)
    row = res.pairings.iloc[0]
    assert (row["bot_a"], row["bot_b"], row["deals"]) == ("trained", "random-moves", DEALS)
    assert row["points_diff"] >= MARGIN and row["diff_lo"] > 0, \
        res.pairings[["win_rate", "points_diff", "diff_lo", "diff_hi"]].to_dict("records")
