"""The warm-up's second process (``dominoai._compile``: side steps)."""

import pytest
from numba import typeof, types

from dominoai import _compile
from dominoai.bots.pimc.settings import new_scratch
from dominoai.game import Match
from dominoai.rules import get_rules

pytestmark = pytest.mark.kernels("search")  # the compiled kernels it needs (conftest.WARM_GROUPS)


def test_side_steps_for_the_search_bots(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # no step is warm here
    assert _compile.side_steps(["easy", "insane:worlds=50"]) == ["worlds", "fused"]
    assert _compile.side_steps(["omniscient", "hard"]) == ["fused"]
    assert _compile.side_steps(["easy", "medium", "hard", ":"]) == []
    _compile.mark_warm("bot-insane", 1.0)
    assert _compile.side_steps(["insane", "easy"]) == []


def test_fused_side_step_compiles_the_rollouts_signatures():
    """The side step compiles the search's rollout, ``playout_on`` (the
    fused loops inlined), for the argument types the search passes (its
    scratch arrays, the observation's rules vector, the path), so the main
    process loads it instead of compiling it again."""
    from dominoai.engine import fast as F

    rules = get_rules("draw")
    _compile.SIDE_STEPS["fused"](rules)
    obs = Match(rules, seed=0).new_hand(leader=0).observe(0)
    ws = new_scratch(4, 100)
    st, rv, rs, ev = typeof(ws.tmp), typeof(obs.rules_vector), typeof(ws.rs2), typeof(ws.ev)
    assert (st, rv, rs, ev, types.int64) in F.playout_on.signatures
