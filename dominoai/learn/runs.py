"""Training runs as specs, and the folder they are run in.

A run of ``dominoai train`` is described by one frozen spec per kind,
checked once when made: :class:`PolicyRunSpec` (imitate a teacher),
:class:`ValueRunSpec` (a world's value) and :class:`PPORunSpec` (improve a
policy by PPO). Each resolves its preset and player count to
:class:`~dominoai.rules.Rules` once (``rules``), which the run passes down
instead of the preset's name. :func:`command_of` derives the ``dominoai
train`` command that makes the run again from a spec's fields, written as
the command line's options; trained models record it in their header.

:class:`RunFolder` is a run's folder: it refuses a folder in use (without
``resume``) or holding a run of another kind, reuses the dataset of a
resumed run when it was made with the same settings (else names each that
differs), and writes the model, the log and the learning curve. A spec
is run in a folder by its kind's function:
:func:`~dominoai.learn.imitation.run_policy`,
:func:`~dominoai.learn.value.run_value` or :func:`~dominoai.learn.ppo.run_ppo`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from ..errors import InputError, check_int, check_number
from ..rules import Rules
from .training import LoopSpec, check_run_kind, other_settings, run_rules, write_log

__all__ = ["ROLLOUT_POLICY", "IMITATE", "TeachingSpec", "PolicyRunSpec", "ValueRunSpec", "PPORunSpec",
           "PPO_DEFAULTS", "command_of", "flag_of", "RunFolder"]

#: the targets' rollout policy per preset by default: insane's rollout policy there
ROLLOUT_POLICY = {"draw": "random", "block": "random", "all_fives": "hard", "kozel": "random"}

#: what a policy can learn from its teacher: the chosen id, or the softmax of the move values
IMITATE = ("choice", "values")

def _put(spec, **values) -> None:
    for k, v in values.items():
        object.__setattr__(spec, k, v)


def _resolve_rules(spec) -> None:
    """Set ``rules``, ``players`` (the tables' count) and ``preset_players``
    (the preset's own count) of ``spec`` from its preset and players."""
    rules = run_rules(spec.preset, spec.players)
    base = rules.players if spec.players is None else run_rules(spec.preset).players
    _put(spec, rules=rules, players=rules.players, preset_players=base)


def _check_hidden(hidden) -> tuple:
    if isinstance(hidden, (str, bytes)) or not hasattr(hidden, "__iter__"):
        raise InputError("hidden", hidden, f"$hidden must be a sequence of layer sizes (got {hidden!r})")
    return tuple(check_int("hidden", h, 1) for h in hidden)


@dataclass(frozen=True)
class TeachingSpec:
    """The settings shared by the runs that teach a network from a teacher's
    games, :class:`PolicyRunSpec` and :class:`ValueRunSpec` (make one of
    those), checked once when made. The defaults are a policy's;
    :class:`ValueRunSpec` has its own ``preset``, ``teacher``, ``hidden`` and
    ``batch``.

    :param preset: the preset; ``players`` the tables' size (None: the
        preset's count; resolved to the count, and ``rules`` set).
    :param deals: deals the teacher plays itself on (each in every rotation).
    :param teacher: the bot whose games are learned from: its decisions (a
        policy) or the worlds it meets (a value network).
    :param epochs: passes over the training rows (the loop's numbers:
        :class:`~dominoai.learn.training.LoopSpec`).
    :param hidden: the hidden layer sizes.
    :param batch: rows per step.
    :param learning_rate: Adam's step size.
    :param held_out: the share of hands held out to measure.
    :param seed: the root of the data's deals and the split.
    :param jobs: the teacher's worker processes (no effect on the result).
    :param backend: where the teacher plays: None (local processes), ``"dask"``
        or ``"ray"`` (no effect on the result).
    :param name: the model's name (None: ``PRESET-KIND``, e.g. ``block-policy``).
    :raises InputError: a bad number, a teacher that is not a bot spec, or
        players the preset is not played by.
    :raises ValueError: an unknown preset.
    """

    #: what the run trains, ``"policy"`` or ``"value"`` (``--kind``)
    kind: ClassVar[str]
    preset: str = "block"
    deals: int = 2000
    teacher: str = "insane"
    epochs: int = 20
    hidden: tuple = (128, 128)
    batch: int = 512
    learning_rate: float = 1e-3
    held_out: float = 0.1
    seed: int = 0
    players: int | None = None
    jobs: int = 1
    backend: str | None = None
    name: str | None = None
    rules: Rules = field(init=False, repr=False, compare=False)
    preset_players: int = field(init=False, repr=False, compare=False)

    #: the loop's options of the command, in its order (see ``COMMAND``)
    LOOP_COMMAND = (("epochs", None), ("hidden", None), ("batch", None), ("learning_rate", None),
                    ("held_out", None), ("seed", None))

    def __post_init__(self):
        _put(self, deals=check_int("deals", self.deals, 1), hidden=_check_hidden(self.hidden))
        loop = self.loop
        _put(self, epochs=loop.epochs, batch=loop.batch, learning_rate=loop.learning_rate,
             held_out=loop.held_out, seed=loop.seed)
        if not isinstance(self.teacher, str) or not self.teacher:
            raise InputError("teacher", self.teacher, f"$teacher must be a bot spec (got {self.teacher!r})")
        _resolve_rules(self)

    @property
    def loop(self) -> LoopSpec:
        """The loop's numbers (:class:`~dominoai.learn.training.LoopSpec`)."""
        return LoopSpec(self.epochs, self.batch, self.learning_rate, self.held_out, self.seed)

    @property
    def model_name(self) -> str:
        return self.name or f"{self.preset}-{self.kind}"

    def dataset_settings(self) -> dict:
        """What the run's dataset must have been made with to be reused."""
        return {"preset": self.preset, "players": self.players, "teacher": self.teacher, "deals": self.deals,
                "seed": self.seed}


@dataclass(frozen=True)
class PolicyRunSpec(TeachingSpec):
    """A policy imitating a teacher (``dominoai train --kind policy``),
    checked once when made: the settings of :class:`TeachingSpec`, and

    :param action_features: add the action-feature block (needs a hidden layer).
    :param weight_decay: AdamW's decay (0: plain Adam).
    :param keep_best: keep the epoch of the best held-out loss.
    :param imitate: ``"choice"`` or ``"values"``; ``temperature`` the
        softmax's temperature of ``"values"`` (points, above 0).
    :raises InputError: a bad setting (see :class:`TeachingSpec`), an unknown
        ``imitate``, or the action-feature block without a hidden layer.
    :raises ValueError: an unknown preset.
    """

    kind = "policy"
    action_features: bool = False
    weight_decay: float = 0.0
    keep_best: bool = False
    imitate: str = "choice"
    temperature: float = 1.0

    #: the command's options after ``--kind``: (field, shown when; None: always)
    COMMAND = (("deals", None), ("teacher", None), *TeachingSpec.LOOP_COMMAND,
               ("action_features", lambda s: s.action_features), ("weight_decay", lambda s: s.weight_decay > 0),
               ("keep_best", lambda s: s.keep_best), ("imitate", lambda s: s.imitate == "values"),
               ("temperature", lambda s: s.imitate == "values"))

    def __post_init__(self):
        super().__post_init__()
        loop = self.loop
        _put(self, weight_decay=loop.weight_decay, keep_best=loop.keep_best,
             action_features=bool(self.action_features))
        if self.imitate not in IMITATE:
            raise InputError("imitate", self.imitate,
                             f"$imitate must be one of {', '.join(IMITATE)} (got {self.imitate!r})")
        _put(self, temperature=check_number("temperature", self.temperature, positive=True))
        if self.action_features and not self.hidden:
            raise InputError("hidden", self.hidden, "the action-feature block needs a hidden layer")

    @property
    def loop(self) -> LoopSpec:
        """The loop's numbers, with ``weight_decay`` and ``keep_best``."""
        return dataclasses.replace(super().loop, weight_decay=self.weight_decay, keep_best=self.keep_best)

    @property
    def data_seed(self) -> int:
        """The seed of the teacher's deals: ``seed + 10_000``, so they differ
        from a tournament's of seed 0..9999."""
        return self.seed + 10_000

    def dataset_settings(self) -> dict:
        return {**super().dataset_settings(), "seed": self.data_seed}


@dataclass(frozen=True)
class ValueRunSpec(TeachingSpec):
    """A value network over whole worlds (``dominoai train --kind value``),
    checked once when made: the settings of :class:`TeachingSpec` (with a
    value network's defaults: Draw, ``hard``, two layers of 64 and 32,
    batches of 256), and

    :param rollouts: rollouts per world not solved exactly (at least 1).
    :param rollout_policy: ``random``, ``medium`` or ``hard`` (None:
        :data:`ROLLOUT_POLICY`'s for the preset).
    :param exact: solve exactly at most this many tiles from the end (0: never).
    :param max_nodes: the exact solve's node budget per world (at least 1).
    :raises InputError: a bad setting (see :class:`TeachingSpec`) or rollout
        policy.
    :raises ValueError: an unknown preset.
    """

    kind = "value"
    preset: str = "draw"
    teacher: str = "hard"
    hidden: tuple = (64, 32)
    batch: int = 256
    rollouts: int = 8
    rollout_policy: str | None = None
    exact: int = 12
    max_nodes: int = 20000

    COMMAND = (("deals", None), ("teacher", None), ("rollouts", None), ("rollout_policy", None), ("exact", None),
               ("max_nodes", None), *TeachingSpec.LOOP_COMMAND)

    def __post_init__(self):
        super().__post_init__()
        policy = self.rollout_policy or ROLLOUT_POLICY.get(self.preset, "random")
        if policy not in ("random", "medium", "hard"):
            raise InputError("rollout_policy", policy,
                             f"$rollout_policy must be random, medium or hard (got {policy!r})")
        _put(self, rollout_policy=policy, rollouts=check_int("rollouts", self.rollouts, 1),
             exact=check_int("exact", self.exact, 0), max_nodes=check_int("max_nodes", self.max_nodes, 1))

    def dataset_settings(self) -> dict:
        return {**super().dataset_settings(), "rollouts": self.rollouts, "rollout_policy": self.rollout_policy,
                "exact": self.exact, "max_nodes": self.max_nodes}


@dataclass(frozen=True)
class PPORunSpec:
    """A policy improved by PPO (``dominoai train --kind ppo``), checked
    once when made. Each setting is :func:`~dominoai.learn.ppo.train_ppo`'s
    of its name (:data:`PPO_DEFAULTS`).

    :param preset: the preset; ``players`` the tables' size (None: the
        preset's count; resolved, and ``rules`` set).
    :param init: the policy to start from: a shipped name, a model file or
        a :class:`~dominoai.nets.model.Model` (None: the preset's shipped policy).
    :param name: the model's name (None: ``PRESET-ppo``).
    :raises InputError: a bad setting, or players the preset is not played by.
    :raises ValueError: an unknown preset.
    """

    kind = "ppo"
    preset: str = "block"
    init: Any = None
    name: str | None = None
    players: int | None = None
    iterations: int = 200
    num_envs: int = 256
    steps: int = 32
    hard_share: float = 0.5
    opponents: str = "hard"
    epochs: int = 4
    batch: int = 1024
    learning_rate: float = 3e-4
    clip: float = 0.1
    kl: float = 0.02
    entropy: float = 0.0
    value_coef: float = 0.5
    gae_lambda: float = 0.95
    reward_scale: float = 10.0
    value_warmup: int = 5
    snapshot_every: int = 20
    league_size: int = 6
    eval_every: int = 10
    eval_deals: int = 512
    checkpoint_every: int = 5
    seed: int = 0
    rules: Rules = field(init=False, repr=False, compare=False)
    preset_players: int = field(init=False, repr=False, compare=False)

    COMMAND = (("init", None), ("iterations", None), ("num_envs", None), ("steps", None), ("hard_share", None),
               ("epochs", None), ("batch", None), ("learning_rate", None), ("clip", None), ("kl", None),
               ("seed", None))

    def __post_init__(self):
        put = partial(_put, self)
        for k in ("iterations", "num_envs", "steps", "epochs", "batch", "snapshot_every", "league_size",
                  "eval_deals", "checkpoint_every"):
            put(**{k: check_int(k, getattr(self, k), 1)})
        for k in ("value_warmup", "eval_every", "seed"):
            put(**{k: check_int(k, getattr(self, k), 0)})
        for k in ("learning_rate", "reward_scale"):
            put(**{k: check_number(k, getattr(self, k), positive=True)})
        for k in ("kl", "entropy", "value_coef"):
            v = check_number(k, getattr(self, k))
            if v < 0:
                raise InputError(k, v, f"${k} must be 0 or more (got {v!r})")
            put(**{k: v})
        for k in ("clip", "gae_lambda", "hard_share"):
            v = check_number(k, getattr(self, k))
            if not 0.0 <= v <= 1.0 or (k == "clip" and v in (0.0, 1.0)):
                rng = "above 0 and below 1" if k == "clip" else "between 0 and 1"
                raise InputError(k, v, f"${k} must be {rng} (got {v!r})")
            put(**{k: v})
        n_hard = int(round(self.num_envs * self.hard_share))
        if (0 < self.hard_share and n_hard == 0) or (self.hard_share < 1 and n_hard == self.num_envs):
            side = "no game against" if n_hard == 0 else "every game against"
            raise InputError("hard_share", self.hard_share,
                             f"$hard_share {self.hard_share:g} of $num_envs {self.num_envs} gives {side} "
                             f"{self.opponents}: use more envs, or a share of 0 or 1", "num_envs")
        _resolve_rules(self)

    @property
    def model_name(self) -> str:
        return self.name or f"{self.preset}-ppo"

    def settings(self) -> dict:
        """The settings of :data:`PPO_DEFAULTS`, as checked (``players`` the count)."""
        return {k: getattr(self, k) for k in PPO_DEFAULTS}


#: PPO's settings and their defaults (the fields of :class:`PPORunSpec`
#: but ``preset``, ``init`` and ``name``; ``players`` None is the preset's count)
PPO_DEFAULTS = {f.name: f.default for f in dataclasses.fields(PPORunSpec)
                if f.init and f.name not in ("preset", "init", "name")}


# ------------------------------------------------------------------ the command
def flag_of(name: str) -> str:
    """The ``dominoai train`` option of a spec's field: ``preset`` is
    ``--variant``, any other ``--name-with-dashes``."""
    return "--variant" if name == "preset" else "--" + name.replace("_", "-")


def _shown(spec, name: str, value) -> str:
    """A field's value as the command line writes it: a float as ``%g``,
    layer sizes joined by commas."""
    default = next(f.default for f in dataclasses.fields(spec) if f.name == name)
    if isinstance(default, float):
        return f"{value:g}"
    if isinstance(value, (tuple, list)):
        return ",".join(str(v) for v in value)
    return str(value)


def command_of(spec, **shown) -> str:
    """The ``dominoai train`` command that makes the run of ``spec`` again:
    ``--variant``, ``--players`` where it is not the preset's count,
    ``--kind``, then the spec's ``COMMAND`` fields in order (a switch when
    on, a setting where its condition holds), each as the option of its
    name (:func:`flag_of`). ``--out``, ``--jobs`` and ``--name`` do not
    change the result and are left out. ``shown`` overrides a field's
    value as written (PPO's ``init``: the starting model's name).

    >>> command_of(ValueRunSpec("draw", deals=3, hidden=(8,), epochs=2))
    'dominoai train --variant draw --kind value --deals 3 --teacher hard --rollouts 8 --rollout-policy random \
--exact 12 --max-nodes 20000 --epochs 2 --hidden 8 --batch 256 --learning-rate 0.001 --held-out 0.1 --seed 0'
    """
    words = ["dominoai train", f"{flag_of('preset')} {spec.preset}"]
    if spec.players != spec.preset_players:
        words.append(f"{flag_of('players')} {spec.players}")
    words.append(f"--kind {spec.kind}")
    for name, when in spec.COMMAND:
        if when is not None and not when(spec):
            continue
        value = shown.get(name, getattr(spec, name))
        words.append(flag_of(name) if isinstance(value, bool) else f"{flag_of(name)} {_shown(spec, name, value)}")
    return " ".join(words)


# ------------------------------------------------------------------ the folder
class RunFolder:
    """The folder of one training run (``out``) of ``kind`` (``"policy"``,
    ``"value"`` or ``"ppo"``), checked when made: without ``resume``, a
    folder that already holds any of ``files`` is refused; a folder holding
    a run of another kind is refused either way.

    :raises ValueError: a folder in use, or of another kind (one line each).
    """

    def __init__(self, out, kind: str, files, resume: bool = False):
        self.out, self.kind, self.resume = Path(out), kind, bool(resume)
        used = [f for f in files if (self.out / f).exists()]
        if used and not resume:
            raise ValueError(f"{self.out} already holds {', '.join(used)}; add --resume to go on, "
                             "or give another --out")
        check_run_kind(self.out, kind)

    @property
    def data_path(self) -> Path:
        return self.out / "data.npz"

    def reuse_dataset(self, load, want: dict, preset_players: int, given: dict | None = None):
        """``(data, meta)`` of the folder's dataset when resuming and it was
        made with the settings ``want`` (a dataset that does not record its
        players was made at ``preset_players``); ``(None, None)`` when
        there is none to reuse. ``load(path) -> (data, meta)`` reads it.

        :param given: ``want`` as the call gave it, for the message (e.g.
            the seed before an offset); None: ``want``.
        :raises InputError: a dataset of other settings, naming each that
            differs (:func:`~dominoai.learn.training.other_settings`).
        """
        if not (self.resume and self.data_path.exists()):
            return None, None
        data, meta = load(self.data_path)
        meta = {"players": preset_players, **meta}     # a dataset that does not say: the preset's count
        if any(meta.get(k) != v for k, v in want.items()):
            given = want if given is None else given
            have = {k: meta.get(k) for k in want}
            for k in want:        # as the call gave it: undo an offset such as the policy's data seed
                if isinstance(want[k], int) and isinstance(have[k], int) and want[k] != given[k]:
                    have[k] = have[k] - (want[k] - given[k])
            raise other_settings(str(self.data_path), have, given, "give another --out")
        return data, meta

    def save_dataset(self, save, load, data: dict, **meta) -> dict:
        """Write ``data`` as the folder's dataset (``save(path, data,
        **meta)``) and return its meta as read back (``load``)."""
        self.out.mkdir(parents=True, exist_ok=True)
        save(self.data_path, data, **meta)
        return load(self.data_path)[1]

    def finish(self, model, log: list, curve) -> None:
        """Write ``model.npz``, ``log.parquet`` and ``curve.png`` (``curve(log,
        path)`` draws it).

        :raises OSError: the folder cannot be written.
        """
        self.out.mkdir(parents=True, exist_ok=True)
        model.save(self.out / "model.npz")
        write_log(log, self.out / "log.parquet")
        curve(log, self.out / "curve.png")

