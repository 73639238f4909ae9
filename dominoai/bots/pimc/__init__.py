"""The search bots ``insane`` (PIMC over consistent worlds) and ``omniscient``.

``insane`` remembers every play, draw and pass of the hand, works out what
each other seat cannot hold (:mod:`dominoai.bots.worlds`), samples worlds
consistent with all of it, plays every legal move out to the end of the hand
in each world, and picks the move with the best weighted mean result.
``omniscient`` runs the same search on the true state, handed to it by the
harness through :meth:`OmniscientBot.act_with_state` (it declares
``needs_state``): a named cheat, for upper-bound studies only.

One module per concern:

==================  ===========================================================
module              holds
==================  ===========================================================
``settings``        :class:`SearchSettings` (one NamedTuple the kernels take)
                    and :func:`new_scratch` (one allocator of the work arrays)
``value``           :func:`hand_value` (what a finished world is worth),
                    :func:`tiles_left`
``rollouts``        the rollout policies (``random``, ``medium``, ``hard``),
                    registered in :data:`POLICIES` and :func:`rollout`
``learned``         the learned parts: ``neural`` rollouts (a policy
                    network) and leaf values (a value network, ``value_plies``)
``solver``          :func:`solve`: exact alpha-beta over one world
``likelihood``      the play model: :func:`play_likelihood`;
                    the search's tables (:func:`play_tables_into`, :func:`tabled_likelihood`,
                    its row cache :func:`new_row_cache`)
``playnet``         the ``neural`` play model: a policy network's probability
                    of each tabled play (:data:`PLAY_MODELS`)
``score``           a world's weight under a belief model (:data:`BELIEFS`,
                    :func:`world_weight`) and its scoring (:func:`score_world`)
``search``          :func:`search_worlds` (worlds from a Belief's sampler),
                    :func:`search_fixed` (the true world)
``options``         the search with ``resample``, ``fusion`` or
                    ``draw_history`` (one dispatch from :func:`search_worlds`)
``fusion``          fusion at the next own decision (option ``fusion``)
``bots``            :class:`InsaneBot`, :class:`OmniscientBot`,
                    :class:`SearchResult`
==================  ===========================================================

>>> from dominoai import Match
>>> from dominoai.bots import make_bot
>>> h = Match("block", seed=2).new_hand(leader=0)
>>> bot = make_bot("insane:worlds=50,seed=1")
>>> h.observe(0).legal_moves().count(bot.act(h.observe(0)))
1
"""

from .bots import HARD_WEIGHTS, InsaneBot, OmniscientBot, SearchResult
from .likelihood import (new_play_tables, new_row_cache, play_likelihood, play_tables_into,
                         tabled_likelihood)
from .rollouts import POLICIES, rollout, rollout_policy_id
from .options import resample_counts
from .playnet import PLAY_MODELS
from .score import BELIEFS, score_world, world_weight
from .search import search_fixed, search_worlds
from .settings import MAX_DEPTH, Scratch, SearchSettings, new_scratch
from .solver import solve
from .value import hand_value, tiles_left

__all__ = ["InsaneBot", "OmniscientBot", "SearchResult", "SearchSettings", "Scratch",
           "new_scratch", "POLICIES", "BELIEFS", "rollout", "rollout_policy_id", "solve",
           "play_likelihood", "new_play_tables", "new_row_cache", "play_tables_into",
           "tabled_likelihood", "search_worlds", "search_fixed", "score_world", "resample_counts",
           "world_weight", "hand_value", "tiles_left", "HARD_WEIGHTS", "MAX_DEPTH", "PLAY_MODELS"]
