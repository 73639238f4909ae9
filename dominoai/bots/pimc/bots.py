"""The search bots: ``insane`` (PIMC over consistent worlds) and ``omniscient``.

Both run the world search (:mod:`~dominoai.bots.pimc.search`) in chunks of
worlds, reading the clock between chunks only when a ``time_budget`` is set.
The clock is the bot's ``clock`` attribute, set when the bot is made from
``budget_clock`` (:data:`BUDGET_CLOCKS`: ``time.perf_counter`` for
``wall``, ``time.thread_time`` for ``cpu``), unless replaced, e.g. by a
fake clock in tests.
"""

from __future__ import annotations

import time

import numpy as np

from ...engine import layout as L
from ...game import Move
from ...nets.hardeval import DEFAULT_WEIGHTS, FEATURES
from ...nets.model import default_model_name, load_model
from ...nets.value_model import load_value_model
from ...observation import Observation
from ..base import BaseBot, Param, register_bot
from ..hard import HardBot
from ..worlds import Belief
from .learned import NEURAL
from .playnet import PLAY_MODELS, PLAY_NEURAL
from .rollouts import POLICIES, rollout_policy_id
from .search import BELIEF_CONSISTENT, BELIEF_PLAY_MODEL, search_fixed, search_worlds
from .settings import SearchSettings

__all__ = ["InsaneBot", "OmniscientBot", "SearchResult", "HARD_WEIGHTS", "BUDGET_CLOCKS"]

#: the clock of each ``budget_clock``: the name of a :mod:`time` function,
#: read when a bot is made. ``wall``: elapsed time, which a loaded machine
#: stretches; ``cpu``: the CPU time of the thread that decides (the search
#: runs in it), which other processes do not
BUDGET_CLOCKS = {"wall": "perf_counter", "cpu": "thread_time"}

#: weights of the ``hard`` rollout policy and of the play model: the hard
#: bot's defaults (``float64``, ``(N_WEIGHTS,)``)
HARD_WEIGHTS = DEFAULT_WEIGHTS.copy()
_HARD_NAMES = (*FEATURES, "replace")   # the order of the weight vector
#: ``hard_<name>``: the hard weights insane's rollouts (policy ``hard``) and
#: its play model use; the defaults and ranges are hard's own; searched only
#: when named (``--space hard_void=0..18``), to keep the default space small
HARD_PARAMS = {"hard_" + k: Param(float, p.default, f"hard's {k} weight in the rollouts and play model",
                                  low=p.low, high=p.high, searched=False)
               for k, p in HardBot.PARAMS.items()}


class SearchResult:
    """What one decision found: ``moves`` (codes), ``values`` (weighted mean
    value per move, points), ``worlds`` searched, ``proposals`` sampled,
    ``seconds`` spent (by the bot's clock), and the chosen ``move``."""

    __slots__ = ("moves", "values", "worlds", "proposals", "seconds", "move")

    def __init__(self, moves, values, worlds, proposals, seconds, move):
        self.moves, self.values, self.worlds = moves, values, worlds
        self.proposals, self.seconds, self.move = proposals, seconds, move

    def table(self) -> list:
        """``[(Move, value), ...]`` best first."""
        order = np.argsort(-self.values, kind="stable")
        return [(Move.from_code(int(self.moves[i])), float(self.values[i])) for i in order]

    def __repr__(self) -> str:
        return (f"<SearchResult {Move.from_code(self.move)} over {self.worlds} worlds "
                f"({self.proposals} proposals) in {self.seconds * 1e3:.2f} ms>")


_COMMON = {
    "worlds": Param(int, 200, "worlds sampled per decision", min=1, low=25, high=1600, log=True),
    "rollouts": Param(int, 1, "rollouts per move per world", min=1, low=1, high=4),
    "rollout_policy": Param(str, "auto", "policy of every seat in the rollouts: "
                            "random (uniform legal moves), medium (heaviest tile / best "
                            "immediate score), hard (the hard bot's evaluation with the "
                            "weights hard_<name>; much slower), neural (the policy network "
                            "policy_model, each seat from its own observation) or auto (hard "
                            "where the rules allow replacements, i.e. Dominoball; random "
                            "elsewhere)",
                            choices=POLICIES + ("auto",),
                            # neural only when a --space names it: a policy network exists
                            # for some presets only, and its rollouts cost ~40x random ones
                            searched_choices=tuple(c for c in POLICIES if c != "neural") + ("auto",)),
    "hard_plies": Param(int, 0, "with rollout_policy=hard: the moves of each rollout that hard "
                        "plays (every seat) before the rest of the hand is played at random; "
                        "0 = hard to the end", min=0, low=0, high=12, searched=False),
    "time_budget": Param(float, 0.0, "seconds per decision, 0 = no limit; anytime: the "
                         "search stops between chunks of worlds once the budget is spent "
                         "(by the clock budget_clock)", min=0.0),
    "budget_clock": Param(str, "wall", "the clock of time_budget and of the seconds a search "
                          "reports: wall (elapsed time, time.perf_counter) or cpu (the CPU "
                          "time of the deciding thread, time.thread_time: on a loaded "
                          "machine other processes do not eat the budget)",
                          choices=tuple(BUDGET_CLOCKS), searched=False),
    "exact": Param(int, 0, "solve a world exactly (alpha-beta, instead of rollouts) once "
                   "at most this many tiles can still be played (hands plus drawable "
                   "boneyard); 0 = never", min=0, low=0, high=12),
    "max_nodes": Param(int, 20000, "alpha-beta nodes per move and world before falling back "
                       "to rollouts", min=1),
    "value_plies": Param(int, 0, "stop each rollout after this many plies, the searched move "
                         "included (1: right after it), and take the points so far plus the "
                         "value network's (value_model) estimate of the rest of the hand; "
                         "0 = play every rollout to the end; tuned only when named",
                         min=0, low=0, high=8, searched=False),
    "value_model": Param(str, "auto", "the value network of value_plies: auto (the shipped "
                         "model PRESET-value), a shipped model's name or a .npz file"),
    "policy_model": Param(str, "auto", "the policy network of rollout_policy=neural (and of "
                          "insane's play_model=neural): auto (the shipped model "
                          "PRESET-policy), a shipped model's name or a .npz file"),
    "halving": Param(bool, False, "sequential halving over the moves: the same rollouts in "
                     "ceil(log2 moves) rounds, each dropping the worse half of the moves "
                     "(by their mean so far), so the best moves get more worlds; not with "
                     "time_budget"),
}


class _SearchBot(BaseBot):
    """Shared parameters and the chunked, time-budgeted search loop."""

    PARAMS = dict(_COMMON)
    #: proposals per requested world at most (drawing games reject worlds of weight 0)
    MAX_TRIES = 50
    #: the clock of the time budget and of ``SearchResult.seconds``: a
    #: callable returning seconds, set from ``budget_clock`` when the bot is
    #: made (replace it on an instance to test the budget)
    clock = staticmethod(time.perf_counter)

    def __init__(self, seed=None, **params):
        super().__init__(seed=seed, **params)
        self.last: SearchResult | None = None
        self._models: dict = {}
        self.clock = getattr(time, BUDGET_CLOCKS[self.budget_clock])

    def _codes(self, obs: Observation) -> np.ndarray:
        codes = obs.legal_codes()
        if len(codes) == 0:
            raise ValueError(f"seat {obs.seat} has no move to make")
        return np.ascontiguousarray(codes, np.int64)

    def _settings(self, rv: np.ndarray, **model) -> SearchSettings:
        """The search's settings under the rules vector ``rv``: this bot's
        common parameters, and ``model``, the fields only insane sets
        (``belief``, ``policy_weight``, ``play_model``, ...). The policy
        network is packed when the rollouts or the play model need it."""
        policy = rollout_policy_id(self.rollout_policy, rv)
        play_net = model.get("play_model", 0) == PLAY_NEURAL
        net = policy == NEURAL or play_net
        # the play model adds the action-feature block as the neural bot does;
        # the neural rollouts do not compute it (model() refuses such a policy for them)
        block = self.model("policy").action if play_net and policy != NEURAL else None
        return SearchSettings.make(rollouts=self.rollouts, rollout_policy=policy,
                                   exact=self.exact, max_nodes=self.max_nodes,
                                   max_tries=self.MAX_TRIES, hard_weights=self._hard_weights(),
                                   hard_plies=self.hard_plies, value_plies=self.value_plies,
                                   value_net=(self.model("value").packed()
                                              if self.value_plies > 0 else None),
                                   policy_net=(self.model("policy").packed(block=block is not None)
                                               if net else None),
                                   policy_block=block, **model)

    @property
    def model_ident(self) -> str:
        """The learned models this bot plays, as the tournament's provenance
        names them: ``"NAME@HASH12"`` (:attr:`Model.ident
        <dominoai.nets.model.Model.ident>`), the value model's first, joined
        by ``", "``; ``""`` before :meth:`use_rules`.

        :raises AttributeError: no learned part is on (``value_plies=0``,
            rollouts not ``neural`` and no ``neural`` play model), so
            ``hasattr`` is False.
        :raises ModelError: a model that cannot be loaded (:meth:`model`).
        """
        kinds = [k for k, on in (("value", self.value_plies > 0),
                                 ("policy", self._uses_policy_net())) if on]
        if not kinds:
            raise AttributeError(f"{self.name} plays no learned model (value_plies=0, "
                                 f"rollout_policy={self.rollout_policy})")
        if self._rules_preset is None:
            return ""
        return ", ".join(self.model(k).ident for k in kinds)

    def _uses_policy_net(self) -> bool:
        """True when the rollouts are ``neural`` (insane: or its play model is)."""
        return self.rollout_policy == "neural"

    def model(self, kind: str):
        """The network of ``kind`` this bot uses under its current rules
        (after :meth:`use_rules`): ``"value"`` (``value_model``, a
        :class:`~dominoai.nets.value_model.ValueModel`) or ``"policy"``
        (``policy_model``, a :class:`~dominoai.nets.model.Model`); ``auto``
        is the shipped model of the rules' preset. Loaded once.

        :raises ModelError: an unknown name, a file that is not such a
            model, a model of another preset, a policy trained at tables of
            another number of players, or, for ``neural`` rollouts,
            a policy with the action-feature block, which the rollouts do
            not compute (one line; insane's ``play_model=neural`` computes
            it).
        """
        name = self.value_model if kind == "value" else self.policy_model
        preset, players = self._rules_preset, self._rules_players
        key = (kind, name, preset, players)
        if key not in self._models:
            full = default_model_name(preset, kind) if name == "auto" else name
            m = (load_value_model(full, preset, players) if kind == "value"
                 else load_model(full, preset=preset, kind="policy", players=players))
            if kind == "policy" and self.rollout_policy == "neural":
                m.packed()  # the rollouts' forward pass has no action-feature block: refuse one now
            self._models[key] = m
        return self._models[key]

    def _hard_weights(self) -> np.ndarray:
        """The ``hard`` weights of the rollouts and the play model."""
        return HARD_WEIGHTS

    def idle_params(self, rules) -> set:
        """The parameters that cannot change this bot's play under ``rules``
        (a :class:`~dominoai.rules.Rules`, after :meth:`use_rules`): the
        keys of :meth:`idle_reasons`. The tournament's duplicate check reads
        it (two specs that differ only in idle parameters are one bot)."""
        return set(self.idle_reasons(rules))

    def idle_reasons(self, rules) -> dict:
        """:meth:`idle_params` with why each is idle (a phrase, for the
        tournament's note): here ``hard_plies`` unless the rollouts are
        ``hard``, ``policy_model`` unless they are ``neural``, and
        ``value_model`` at ``value_plies=0``."""
        idle = {}
        policy = rollout_policy_id(self.rollout_policy, rules.vector())
        if policy != POLICIES.index("hard"):
            idle["hard_plies"] = "acts only with hard rollouts (rollout_policy=hard)"
        if policy != NEURAL and not self._neural_play(rules.vector()):
            idle["policy_model"] = "acts only with neural rollouts (rollout_policy=neural)" + (
                " or play_model=neural" if "play_model" in self.PARAMS else "")
        if self.value_plies <= 0:
            idle["value_model"] = "acts only with value_plies > 0"
        return idle

    def _neural_play(self, rv) -> bool:
        """True when the play model is the policy network under the rules
        vector ``rv`` (only insane has one)."""
        return False

    def _run(self, codes, chunk_fn) -> SearchResult:
        """Call ``chunk_fn(moves, n_worlds, rs, acc, stats)`` (``moves`` the
        codes to score, a subset of ``codes``) until ``worlds`` worlds are
        done or the time budget is spent (checked between chunks); with
        ``halving``, in rounds over fewer and fewer moves (:meth:`_halve`)."""
        clock = self.clock
        t0 = clock()
        nc = len(codes)
        acc = np.zeros(nc, np.float64)
        stats = np.zeros(3, np.float64)
        rs = np.array([self.rng.integers(1, 2**63, dtype=np.int64)], np.uint64)
        target = self.worlds
        budget = self.time_budget
        if self.halving and budget <= 0 and nc > 2:
            return self._halve(codes, chunk_fn, rs, t0)
        if budget <= 0:
            chunk_fn(codes, target, rs, acc, stats)
        else:
            chunk = 8
            done = 0
            while done < target:
                n = min(chunk, target - done)
                got = chunk_fn(codes, n, rs, acc, stats)
                done += n
                if got == 0 and stats[1] >= self.MAX_TRIES * target:
                    break
                el = clock() - t0
                if el >= budget:
                    break
                per = el / max(done, 1)
                # aim to read the clock about ten more times within the budget
                chunk = int(max(1, min(target - done, (budget - el) / per / 10 if per > 0 else 64)))
        values = acc / stats[2] if stats[2] > 0 else acc
        return self._result(codes, values, stats, int(np.argmax(values)) if stats[2] > 0 else 0,
                            t0)

    def _result(self, codes, values, stats, best, t0) -> SearchResult:
        """The :class:`SearchResult` of a search that chose ``codes[best]``
        (kept as ``last``)."""
        res = SearchResult(codes.copy(), values, int(stats[0]), int(stats[1]),
                           self.clock() - t0, int(codes[best]))
        self.last = res
        return res

    def _halve(self, codes, chunk_fn, rs, t0) -> SearchResult:
        """Sequential halving (Karnin et al. 2013) over the ``n`` moves with the
        rollouts of ``worlds`` worlds x ``n`` moves: ``R = ceil(log2 n)``
        rounds; a round over ``k`` moves searches ``worlds * n / (R * k)``
        fresh worlds (at least one) and keeps the better half (ceil) of the
        moves by their weighted mean over every world that scored them.
        The move is the best survivor of the last round; ``values`` holds
        each move's mean over the worlds that scored it, ``worlds`` and
        ``proposals`` the totals over the rounds."""
        nc = len(codes)
        rounds = int(np.ceil(np.log2(nc)))
        total = self.worlds * nc
        acc = np.zeros(nc, np.float64)
        wsum = np.zeros(nc, np.float64)
        stats = np.zeros(3, np.float64)
        active = np.arange(nc)
        for r in range(rounds):
            k = len(active)
            a = np.zeros(k, np.float64)
            st = np.zeros(3, np.float64)
            chunk_fn(np.ascontiguousarray(codes[active]), max(1, total // (rounds * k)), rs, a, st)
            acc[active] += a
            wsum[active] += st[2]
            stats += st
            if r < rounds - 1 and k > 2:
                mean = np.where(wsum[active] > 0, acc[active] / np.maximum(wsum[active], 1e-300),
                                -np.inf)
                keep = (k + 1) // 2
                order = np.argsort(-mean, kind="stable")[:keep]
                active = np.sort(active[order])
        values = np.where(wsum > 0, acc / np.maximum(wsum, 1e-300), acc)
        best = int(active[np.argmax(values[active])]) if stats[2] > 0 else 0
        return self._result(codes, values, stats, best, t0)


@register_bot("insane")
class InsaneBot(_SearchBot):
    """PIMC over consistent worlds: every legal move (Dominoball's replacement
    included) rolled out to the end of the hand in every sampled world.

    Parameters (defaults): ``worlds`` (200), ``rollouts`` per move per world
    (1), ``rollout_policy`` (``auto``: ``hard`` in Dominoball, ``random``
    elsewhere; or ``random``, ``medium``, ``hard``, ``neural`` everywhere),
    ``time_budget`` seconds per decision (0: no limit), ``inference`` (true;
    false: worlds respect only the hand sizes and the seen tiles),
    ``policy_weight`` (4.0: weight each world by the likelihood of the other
    seats' plays under a softmax of ``hard``'s values at that temperature,
    where no tile is drawn; 0 = off, else at least 0.1), ``play_model``
    (``hard``: that softmax; ``neural``: the policy network
    ``policy_model``'s probability of each play, from the seat's
    observation then in each world, :mod:`.playnet`; the play model is on
    only where ``policy_weight`` is above 0, whose value the ``neural``
    model does not read; a policy with the action-feature block gets its
    features added as the ``neural`` bot adds them), ``play_temperature``
    (1.0: with ``play_model=neural``, the network's logits are divided by
    it in the play model's softmax), ``budget_clock`` (``wall``: ``time_budget`` and
    the reported seconds read ``time.perf_counter``; ``cpu``: the deciding
    thread's CPU time, ``time.thread_time``), ``draw_weight``
    (false; true: the same weighting where tiles are drawn, from the plays
    each seat made since its last draw; not in Dominoball), ``draw_history``
    (false; true, with ``draw_weight``: every play counts, each world
    drawing which tiles its seats drew when, :mod:`~dominoai.bots.worlds.slots`),
    ``hard_prior``
    (0.0: off; only where the play model is on: the prior probability, per
    seat and hand, that a seat plays as ``hard`` does, a softmax at the
    sharp temperature ``sharp_weight``, 0.3, at least 0.05, mixed with
    ``policy_weight``'s), ``resample`` (1; k: weigh k worlds per world
    scored and score worlds drawn from them in proportion to their
    weights; ``SearchResult.worlds`` then counts the draws, repeats
    included), ``exact``
    (0: never; else solve a world by alpha-beta instead of rolling out once at
    most that many tiles can still be played, hands and drawable boneyard),
    ``max_nodes`` (20000: alpha-beta nodes per move and world before falling
    back to rollouts), ``value_plies`` (0: off; N: each rollout stops after
    N plies, the searched move included, and the value network
    ``value_model`` estimates the rest, :mod:`.learned`), ``value_model``
    and ``policy_model`` (``auto``: the shipped models of the preset; or a
    name or a ``.npz`` file), ``halving`` (false; true: sequential halving over the
    moves, the same rollouts in rounds that drop the worse half), ``fusion``
    (false; true, with ``exact``: in the worlds solved exactly the seat's
    next move is chosen once per information set, :mod:`.fusion`),
    ``hard_<name>`` (the ``hard`` weights its rollouts
    and play model use, e.g. ``hard_void``; defaults: hard's own), ``seed``.

    :raises ValueError: ``policy_weight`` between 0 and 0.1 (the weights
        would underflow), ``hard_prior`` above 1, or any parameter of the
        wrong type or range.
    :raises ModelError: (when it first searches under a table's rules)
        ``play_model=neural`` with no policy network for the preset, or one
        of another preset (one line).
    """

    name = "insane"
    PARAMS = dict(_COMMON, inference=Param(bool, True, "use what the public history says each "
                                                          "seat cannot hold"),
                  policy_weight=Param(float, 4.0, "weight each world by how likely the other "
                                      "seats' plays were under a softmax of hard's move values "
                                      "at this temperature (value units; smaller trusts the "
                                      "model more); 0 = off, else at least 0.1; ignored where "
                                      "tiles are drawn unless draw_weight; with "
                                      "play_model=neural only 0 (off) or not matters",
                                      min=0.0, low=0.25, high=16.0, log=True,
                                      allowed="0|>=0.1"),
                  play_model=Param(str, "hard", "the model of the other seats' plays that "
                                   "weights the worlds (on where policy_weight > 0): hard "
                                   "(a softmax of hard's move values at policy_weight) or "
                                   "neural (the policy network policy_model's softmax over "
                                   "the legal moves, from the seat's observation then; "
                                   "hard_prior does not apply); tuned only when named (a "
                                   "policy network ships for some presets only)",
                                   choices=PLAY_MODELS, searched=False),
                  play_temperature=Param(float, 1.0, "with play_model=neural: the temperature "
                                         "of the network's softmax (its logits divided by it; "
                                         "1 = the policy's own probabilities, above 1 flatter, "
                                         "below sharper); tuned only when named",
                                         min=0.05, low=0.25, high=4.0, log=True, searched=False),
                  draw_weight=Param(bool, False, "where tiles are drawn, weight worlds by the "
                                    "plays too (policy_weight's model): the plays and passes "
                                    "each seat made since its last draw, whose hand then the "
                                    "world tells; never in Dominoball (replacements)"),
                  draw_history=Param(bool, False, "with draw_weight: count every play, also "
                                     "those before a seat's later draws; each world draws "
                                     "which of its tiles each seat was dealt and which it drew "
                                     "when, uniformly among the deck orders that lead to it; "
                                     "tuned only when named", searched=False),
                  hard_prior=Param(float, 0.0, "only with the play model (policy_weight > 0 "
                                   "where nothing is drawn, or draw_weight): the prior "
                                   "probability, at most 1, that a seat plays as hard does "
                                   "(a softmax of hard's values at the sharp temperature "
                                   "sharp_weight), mixed per seat and hand with "
                                   "policy_weight's softmax; 0 = off; tuned only when named",
                                   min=0.0, max=1.0, low=0.0, high=0.9, searched=False),
                  sharp_weight=Param(float, 0.3, "the temperature of hard_prior's sharp model "
                                     "(value units, at least 0.05); tuned only when named",
                                     min=0.05, low=0.1, high=1.0, log=True, searched=False),
                  resample=Param(int, 1, "weigh this many sampled worlds per world scored and "
                                 "score worlds drawn from them in proportion to their weights "
                                 "(systematic resampling; also where the worlds' weights are "
                                 "only the sampler's); 1 = score every sampled world by its "
                                 "weight; tuned only when named",
                                 min=1, low=1, high=8, searched=False),
                  fusion=Param(bool, False, "with exact: in the worlds solved exactly, choose "
                               "the seat's next move once per information set (what it will "
                               "see then) instead of once per world, against strategy "
                               "fusion; the other seats reply as the solver does; tuned only "
                               "when named", searched=False),
                  **HARD_PARAMS)

    def __init__(self, seed=None, **params):
        super().__init__(seed=seed, **params)
        if 0.0 < self.policy_weight < 0.1:
            # exp(value / tau) underflows: most worlds would get weight 0
            raise ValueError(f"bot 'insane': parameter policy_weight must be 0 (off) or at "
                             f"least 0.1 (got {self.policy_weight})")
        #: decisions searched without inference because no world of positive
        #: weight was found with it (should stay 0; a safety net for tournaments)
        self.fallbacks = 0
        #: the hard weights of the rollouts and the play model (``hard_<name>``)
        self.hard_weights = self._weights_now()

    def _weights_now(self) -> np.ndarray:
        return np.array([float(getattr(self, "hard_" + k)) for k in _HARD_NAMES], np.float64)

    def use_rules(self, rules) -> None:
        before = self._rules_preset
        super().use_rules(rules)
        if self._rules_preset != before:
            self.hard_weights = self._weights_now()

    def _hard_weights(self) -> np.ndarray:
        return self.hard_weights

    def _play_model_on(self, rv) -> bool:
        """True when the play model weights the worlds under the rules
        vector ``rv``: ``policy_weight`` above 0, no replacements, and
        ``draw_weight`` where tiles are drawn."""
        return self.policy_weight > 0 and not (
            rv[L.R_MAX_REPL] or (rv[L.R_DRAWING] and not self.draw_weight))

    def _neural_play(self, rv) -> bool:
        return self.play_model == "neural" and self._play_model_on(rv)

    def _uses_policy_net(self) -> bool:
        return self.rollout_policy == "neural" or (self.play_model == "neural"
                                                   and self.policy_weight > 0)

    def idle_reasons(self, rules) -> dict:
        """As the search bots' (``hard_plies`` without ``hard`` rollouts),
        and the play model's parameters where it is off: ``draw_weight``
        where nothing is drawn; where tiles are drawn without
        ``draw_weight``, or replaced (Dominoball), ``policy_weight``;
        ``hard_prior`` and ``sharp_weight`` wherever the play model is off;
        ``sharp_weight`` at ``hard_prior=0``; ``fusion`` at ``exact=0``;
        ``draw_history`` wherever the play model where tiles are drawn is
        off; ``play_model`` wherever the play model is off; ``hard_prior``
        and ``sharp_weight`` with ``play_model=neural``, and
        ``play_temperature`` without it. Each with the
        reason."""
        idle = super().idle_reasons(rules)
        rv = rules.vector()
        drawing, repl = bool(rv[L.R_DRAWING]), bool(rv[L.R_MAX_REPL])
        if repl:
            idle["draw_weight"] = "does nothing where tiles are replaced: the play model is off there"
            idle["policy_weight"] = idle["draw_weight"]
        elif not drawing:
            idle["draw_weight"] = "does nothing where no tile is drawn"
        elif not self.draw_weight:
            idle["policy_weight"] = "acts where tiles are drawn only with draw_weight=true"
        off = ("where tiles are replaced" if repl
               else "without draw_weight=true" if "policy_weight" in idle
               else "(policy_weight=0)" if self.policy_weight <= 0 else None)
        if off:
            idle["hard_prior"] = idle["sharp_weight"] = f"acts only with the play model, off here {off}"
        if "draw_weight" in idle:
            idle["draw_history"] = idle["draw_weight"]
        elif off:
            idle["draw_history"] = f"acts only with the play model, off here {off}"
        if off:
            idle["play_model"] = idle["play_temperature"] = f"acts only with the play model, off here {off}"
        elif self.play_model == "neural":
            idle["hard_prior"] = idle["sharp_weight"] = "the neural play model does not use it"
        else:
            idle["play_temperature"] = "acts only with play_model=neural"
        if self.hard_prior <= 0 and "sharp_weight" not in idle:
            idle["sharp_weight"] = "acts only with hard_prior > 0"
        if self.exact <= 0:
            idle["fusion"] = f"acts only with the exact endgame, exact > 0 (here exact={self.exact})"
        return idle

    def analyze(self, obs: Observation) -> SearchResult:
        """Search ``obs`` and return the per-move values (see :class:`SearchResult`).

        :raises ValueError: the seat has no move to make.
        """
        self.use_rules(obs.rules)
        codes = self._codes(obs)
        try:
            belief = Belief(obs, self.inference)
        except ValueError:
            if not self.inference:
                raise
            belief = None
        res = self._search(belief, codes) if belief is not None else None
        if res is None or res.worlds == 0:
            if not self.inference:
                return res
            self.fallbacks += 1
            res = self._search(Belief(obs, False), codes)
        return res

    def _search(self, belief: Belief, codes: np.ndarray) -> SearchResult:
        p, base, rv = belief.parts, belief.base, belief.rv
        # where tiles are drawn the play model reads only the plays since each
        # seat's last draw (likelihood.py), and only with draw_weight
        on = self._play_model_on(rv)
        neural = on and self.play_model == "neural"
        cfg = self._settings(rv, belief=BELIEF_PLAY_MODEL if on else BELIEF_CONSISTENT,
                             policy_weight=self.policy_weight if on else 0.0,
                             play_model=PLAY_NEURAL if neural else 0,
                             play_temperature=self.play_temperature,
                             hard_prior=self.hard_prior if on and not neural else 0.0,
                             sharp_weight=self.sharp_weight, resample=self.resample,
                             fusion=self.fusion,
                             draw_history=self.draw_history and on and bool(rv[L.R_DRAWING]))
        evs = np.ascontiguousarray(belief.obs.event_array, np.int64).reshape(-1, 4)

        def chunk(moves, n, rs, acc, stats):
            return search_worlds(p, base, rv, moves, n, rs, acc, stats, evs, cfg)

        return self._run(codes, chunk)

    def act(self, observation: Observation) -> Move:
        codes = self._codes(observation)
        if len(codes) == 1:
            self.last = None
            return Move.from_code(int(codes[0]))
        return Move.from_code(self.analyze(observation).move)


@register_bot("omniscient")
class OmniscientBot(_SearchBot):
    """The insane search on the true world: a named cheat for upper-bound
    studies. It declares ``needs_state``: the harness calls
    :meth:`act_with_state`; ``act`` alone refuses. ``worlds`` x ``rollouts``
    rollouts per move, all on the true world (with ``rollout_policy=medium``
    they are all equal: use ``worlds=1``).

    ``boneyard=hidden`` (the yardstick of inference) keeps the hands known but
    reshuffles the undrawn boneyard in every world, in the presets that draw
    or replace (Draw, All Fives, Fives, Dominoball): the bound on what
    perfect inference of the hands could give. Elsewhere it plays exactly as
    ``boneyard=known``."""

    name = "omniscient"
    PARAMS = dict(_COMMON, boneyard=Param(str, "known", "known: it also knows the boneyard's "
                                          "draw order (clairvoyance); hidden: each world "
                                          "reshuffles the undrawn tiles, the bound of perfect "
                                          "inference (equal to known where nothing is drawn)",
                                          choices=("known", "hidden")))
    needs_state = True

    def act(self, observation: Observation) -> Move:
        """:raises TypeError: always (the bot needs the true state)."""
        raise TypeError("omniscient cheats by design: it needs the true state, "
                        "call act_with_state(observation, state)")

    def analyze_with_state(self, obs: Observation, state: np.ndarray) -> SearchResult:
        """Search the true ``state`` (see :meth:`act_with_state`) and return the
        per-move values.

        :raises ValueError: ``state`` is not an engine state of shape
            ``(S_SIZE,)`` or does not match ``obs`` (seat to move, its hand).
        """
        st = np.array(state, np.int64).copy()
        if st.shape != (L.S_SIZE,):
            raise ValueError(f"state must be an int64 engine state of shape ({L.S_SIZE},)")
        if int(st[L.S_CUR]) != obs.seat or int(st[L.S_HAND + obs.seat]) != int(obs.array[1]):
            raise ValueError("the state does not match the observation (seat to move or its hand)")
        st[L.S_LOG] = 0
        self.use_rules(obs.rules)
        codes = self._codes(obs)
        rv = obs.rules_vector
        cfg = self._settings(rv)

        hide = self.boneyard == "hidden" and bool(rv[L.R_DRAWING] or rv[L.R_MAX_REPL])

        def chunk(moves, n, rs, acc, stats):
            return search_fixed(st, rv, moves, n, rs, acc, stats, cfg, hide)

        return self._run(codes, chunk)

    def act_with_state(self, observation: Observation, state: np.ndarray) -> Move:
        """The move for ``observation`` given the true engine ``state`` (int64,
        ``(S_SIZE,)``, e.g. ``match.state_copy()``; it is copied, never changed).

        :raises ValueError: as :meth:`analyze_with_state`.
        """
        codes = self._codes(observation)
        if len(codes) == 1:
            self.last = None
            return Move.from_code(int(codes[0]))
        return Move.from_code(self.analyze_with_state(observation, state).move)


#: insane's own defaults per preset: a setting enters
#: here only when it beat the defaults of the time head to head on fresh
#: duplicate deals, paired 95% interval above 0, at most 2 ms median CPU
#: per decision (the verdicts, intervals and sample sizes are in
#: docs/tuning.md and docs/insane.md, "Candidates"). Draw, from tuning
#: (``experiments/tune.py``): +0.79 [0.07, 1.52] points per hand on 2,000
#: deals. All Fives: hard rollouts from tuning, +1.82 [0.82, 2.83] (2,000
#: deals), and 100 worlds instead of 40, +2.20 [1.05, 3.34] on 1,000
#: (``experiments/candidates.py``; the studies had limited wall time under
#: load). Block: the exact endgame at 12 tiles, +0.43 [0.17, 0.69] on 1,000
#: deals, then +0.51 [0.30, 0.72] on 1,500 fresh ones with the plain-line
#: solver (1.21 ms). Kozel: 400 worlds instead of 200, +1.61 [0.61, 2.62]
#: on 1,000, then 600 worlds at policy_weight 3, +1.01 [0.04, 1.97] on
#: 1,000, +1.26 [0.53, 2.00] and +0.47 [-0.22, 1.16] on 2,000 fresh deals
#: each (1.59 ms; about +0.9 over the three). Draw: the play model
#: where tiles are drawn (``draw_weight``), +0.65 [0.19, 1.12] on 3,000
#: fresh deals (1.25 ms; +0.95 [0.28, 1.61] on the 1,500 before). Block:
#: three rollouts per move (they matter only before the exact
#: endgame, the first two plays), +0.08 [0.01, 0.15] on 10,000 fresh deals
#: (1.56 against 1.41 ms; +0.18 [0.08, 0.29] against ``hard`` over 4,500
#: before). Kozel: the exact endgame at 12 tiles, +0.69 [0.23, 1.14] on 5,000
#: fresh deals (+0.48 [-0.09, 1.06] on 3,000 before). The tuning
#: studies' ``policy_weight`` is left out where tiles are drawn (it has no
#: effect there by default).
TUNED_DEFAULTS: dict[str, dict] = {
    "draw": {"worlds": 378, "rollouts": 2, "rollout_policy": "random", "exact": 12,
             "draw_weight": True},
    "block": {"exact": 12, "rollouts": 3},
    "all_fives": {"worlds": 100, "rollout_policy": "hard"},
    "kozel": {"worlds": 600, "policy_weight": 3.0, "exact": 12},
}
InsaneBot.PRESET_DEFAULTS = TUNED_DEFAULTS
# omniscient runs the same search on the true world: the same settings
OmniscientBot.PRESET_DEFAULTS = {p: {k: v for k, v in d.items() if k in OmniscientBot.PARAMS}
                                 for p, d in TUNED_DEFAULTS.items()}
