"""The ``neural`` bot: a learned policy network (:mod:`dominoai.nets.model`).

It decides from the :class:`~dominoai.observation.Observation` only: the
observation array is encoded into the observation vector
(:mod:`dominoai.engine.encode`), the network's logits of the illegal ids are
left out, and the bot plays the legal id with the highest logit
(``temperature=0``), or samples one with probabilities
``softmax(logit / temperature)`` from its seeded generator. Encoding, the
forward pass and the choice run in one numba kernel
(:func:`dominoai.nets.forward.policy_pick`); no JAX at play time. A model
with the action-feature block (:mod:`dominoai.nets.features`) also lays
each legal tile on the seat's view of the line to read its features
(``hard``'s: points made, pips shed, the next seat's best reply, ...) and
adds their learned weighting to the logits, in one kernel too
(:func:`dominoai.nets.features.policy_pick_features`).

``model``: a shipped model's name (``block-policy``; ``dominoai bots``
lists them) or a ``.npz`` file; empty (the default): the shipped policy of
the table's preset. A preset without one, or a model trained for another
preset or another number of players (a model records the players it was
trained for: the shipped ones, the preset's count), is refused with one
line when the bot meets the table's rules.
:attr:`NeuralBot.model_ident` names the model as results record it:
``NAME@HASH12``, the first 12 hex digits of its content hash.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..engine.encode import N_ACTIONS, OBS_SIZE
from ..engine.layout import MAX_MOVES
from ..game import Move
from ..nets.features import N_ACTION_FEATURES, FeatureScratch, policy_pick_features
from ..nets.forward import policy_pick
from ..nets.model import MODELS_DIR, ModelError, check_players, default_model_name, load_model, shipped_models
from ..observation import Observation
from .base import BaseBot, Param, register_bot

__all__ = ["NeuralBot"]

_CACHE: dict = {}


def _load(name: str, preset: str | None, players: int | None = None):
    """A model by name or file, kept for the process: a shipped model per
    name, a file per (name, modification time); with ``preset`` and
    ``players``, refused (:class:`~dominoai.nets.model.ModelError`) when
    trained for another."""
    m = _CACHE.get(name)          # a shipped model, loaded before
    if m is None:
        if name in shipped_models():
            key = name
        else:
            try:
                key = (name, Path(name).stat().st_mtime_ns)
            except OSError:
                key = (name, None)
        m = _CACHE.get(key)
        if m is None:
            m = load_model(name, kind="policy")
            _CACHE[key] = m
    if preset is not None and m.preset != preset:
        raise ModelError(f"model {m.name!r} was trained for {m.preset}, not for {preset}")
    if players is not None:
        check_players(m, players)
    return m


def _shipped_defaults() -> dict:
    """``{preset: {"model": NAME}}`` for each preset with a shipped policy."""
    return {p.stem[: -len("-policy")]: {"model": p.stem} for p in sorted(MODELS_DIR.glob("*-policy.npz"))}


@register_bot("neural")
class NeuralBot(BaseBot):
    """A learned policy: the legal move with the highest logit, or sampled at
    ``temperature``."""

    name = "neural"
    uses_seed = True
    PARAMS = {
        "model": Param(str, "", "a shipped model's name or a .npz file; empty: the shipped policy of the "
                                "table's preset", allowed="name|file.npz"),
        "temperature": Param(float, 0.0, "0: the highest logit; above 0: sample softmax(logit / "
                                         "temperature) with the bot's seeded generator", min=0.0),
    }
    PRESET_DEFAULTS = _shipped_defaults()

    def __init__(self, seed: int | None = None, **params):
        super().__init__(seed, **params)
        #: a greedy policy draws no random numbers
        self.uses_seed = self.temperature > 0
        self._model = _load(self.model, None) if self.model else None
        self._for: tuple | None = None
        self._x = np.empty(OBS_SIZE, np.float32)
        self._logits = np.empty(N_ACTIONS, np.float32)
        self._h = None

    def use_rules(self, rules) -> None:
        """Load the model for ``rules``' preset (the spec's, else the
        preset's shipped policy).

        :raises ModelError: no shipped policy for the preset (naming the
            presets that have one), or a model trained for another preset
            or another number of players.
        """
        super().use_rules(rules)
        if (rules.preset, rules.players) == self._for:
            return
        name = self.model or default_model_name(rules.preset, "policy")
        m = _load(name, rules.preset, rules.players)
        self._model = m
        self._packed = m.packed(block=True)
        w = max(m.layers[1:])
        self._h = (np.empty(w, np.float32), np.empty(w, np.float32))
        if m.has_action_features:
            self._fx = (m.action[0], m.action[1], rules.vector(), rules.players)
            self._fs = (np.empty(len(m.action[1]), np.float32), self._logits,
                        np.zeros((MAX_MOVES, N_ACTION_FEATURES), np.float32), *FeatureScratch().args())
        self._for = (rules.preset, rules.players)

    @property
    def model_ident(self) -> str | None:
        """The model in use as ``NAME@HASH12`` (None before the bot has met
        a table's rules, when no ``model`` was given)."""
        return None if self._model is None else self._model.ident

    def act(self, observation: Observation) -> Move:
        self.use_rules(observation.rules)
        codes = np.ascontiguousarray(observation.legal_codes(), np.int64)
        n = len(codes)
        if n == 0:
            raise ValueError(f"seat {observation.seat} has no move to make")
        scale, weights, shapes = self._packed
        if self._model.has_action_features:
            fw, fb, rv, players = self._fx
            wv, logits, fe, st, feats, vals, wi, wf = self._fs
            best = policy_pick_features(observation.array.copy(), codes, n, scale, weights, shapes, fw, fb, rv, players,
                                        self._x, self._h[0], self._h[1], wv, logits, fe, st, feats, vals, wi, wf)
        else:
            best = policy_pick(observation.array.copy(), codes, n, scale, weights, shapes, self._x,
                               self._h[0], self._h[1], self._logits)
        if self.temperature <= 0 or n == 1:
            return Move.from_code(int(best))
        z = self._logits[codes].astype(np.float64) / self.temperature
        p = np.exp(z - z.max())
        return Move.from_code(int(codes[self.rng.choice(n, p=p / p.sum())]))
