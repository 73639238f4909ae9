"""The search space of a study: from the bot's own ``Param`` declarations,
narrowed or overridden by ``space`` (``--space``), with ``fix`` (``--fix``)
freezing parameters. Errors are :class:`~dominoai.errors.InputError` naming
``space`` or ``fix``.

A range is written ``low..high`` (``:log`` samples it on a log scale) for
numbers, ``a|b|c`` for a categorical parameter:

>>> dims, fixed = make_space("insane", "worlds=50..800:log,rollouts=1..2", "rollout_policy=random")
>>> dims["worlds"].text(), dims["rollouts"].text(), fixed
('50..800:log', '1..2', {'rollout_policy': 'random'})
>>> make_space("insane", "worlds=800..50", "")
Traceback (most recent call last):
...
dominoai.errors.InputError: space worlds=800..50: the range is empty or inverted (low must be below high)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from ..bots.base import Param, bot_params, make_bot, nearest_hint
from ..errors import InputError

__all__ = ["Dim", "make_space", "parse_fix", "spec_of", "cheapest_specs"]


@dataclass(frozen=True)
class Dim:
    """One searched parameter: ``low .. high`` (``log`` scale) of type
    ``int`` or ``float``, or categorical ``choices``."""

    name: str
    type: type
    low: Any = None
    high: Any = None
    log: bool = False
    choices: tuple | None = None

    def text(self) -> str:
        """The range as ``--space`` writes it (stored in the study to compare)."""
        if self.choices is not None:
            return "|".join(map(str, self.choices))
        return f"{self.low}..{self.high}" + (":log" if self.log else "")

    def suggest(self, trial) -> Any:
        """The value an Optuna ``trial`` samples (floats rounded to 4 significant digits)."""
        if self.choices is not None:
            return trial.suggest_categorical(self.name, list(self.choices))
        if self.type is int:
            return trial.suggest_int(self.name, int(self.low), int(self.high), log=self.log)
        return float(f"{trial.suggest_float(self.name, float(self.low), float(self.high), log=self.log):.4g}")


def _accepts(bot: str, name: str, value) -> None:
    """Raise ValueError unless the bot builds with ``name=value``."""
    make_bot(f"{bot}:{name}={value}", 0)


def _dim_from_param(bot: str, name: str, p: Param) -> Dim:
    if p.low is not None and p.high is not None:
        return Dim(name, p.type, p.type(p.low), p.type(p.high), bool(p.log))
    return Dim(name, p.type, choices=tuple(p.searched_choices or p.choices))


def _parse_range(bot: str, name: str, p: Param, text: str) -> Dim:
    where = f"$space {name}={text}"
    body, _, opt = text.partition(":")
    if opt and opt.strip() != "log":
        raise InputError("space", text,
                         f"{where}: write a range as low..high or low..high:log (got {opt!r} after ':')")
    if ".." in body:
        if p.type not in (int, float):
            raise InputError("space", text,
                             f"{where}: {name} is a {p.type.__name__}, give its choices as a|b")
        lo_t, _, hi_t = body.partition("..")
        try:
            lo, hi = p.parse(bot, name, lo_t.strip()), p.parse(bot, name, hi_t.strip())
        except ValueError as e:
            raise InputError("space", text, f"{where}: {e}") from None
        if not lo < hi:
            raise InputError("space", text,
                             f"{where}: the range is empty or inverted (low must be below high)")
        log = bool(opt)
        if log and lo <= 0:
            raise InputError("space", text, f"{where}: a log range needs low > 0")
        for v in (lo, hi):
            try:
                _accepts(bot, name, v)
            except ValueError as e:
                raise InputError("space", text, f"{where}: outside what the bot accepts: {e}") from None
        return Dim(name, p.type, lo, hi, log)
    if opt:
        raise InputError("space", text, f"{where}: ':log' goes with a numeric range low..high")
    vals = []
    for v in body.split("|"):
        try:
            x = p.parse(bot, name, v.strip())
            _accepts(bot, name, x)
        except ValueError as e:
            raise InputError("space", text, f"{where}: {e}") from None
        if x not in vals:
            vals.append(x)
    if len(vals) < 2:
        raise InputError("space", text, f"{where}: the range is empty (one value): freeze it with $fix {name}=...",
                         "fix")
    return Dim(name, p.type, choices=tuple(vals))


def _items(text) -> list[str]:
    if text is None:
        return []
    if isinstance(text, (list, tuple)):
        return [i for t in text for i in _items(t)]
    return [i.strip() for i in str(text).split(",") if i.strip()]


def _unknown(bot: str, name: str, params: dict) -> ValueError:
    return ValueError(f"bot {bot!r} has no parameter {name!r}{nearest_hint(name, params)}; "
                      f"its parameters are: {', '.join(params)}")


def parse_fix(bot: str, fix) -> dict[str, Any]:
    """``"worlds=400,rollouts=2"`` (or a list of such, or a dict) -> typed values.

    :raises ValueError: an unknown parameter, a value the bot refuses, or an
        item not written ``NAME=VALUE``.
    """
    params = bot_params(bot)
    out: dict[str, Any] = {}
    pairs = list(fix.items()) if isinstance(fix, dict) else []
    if not isinstance(fix, dict):
        for item in _items(fix):
            k, eq, v = item.partition("=")
            if not eq or not k.strip():
                raise InputError("fix", item, f"$fix {item}: write NAME=VALUE")
            pairs.append((k.strip(), v.strip()))
    for k, v in pairs:
        if k not in params:
            raise _unknown(bot, k, params)
        try:
            x = params[k].parse(bot, k, v)
            _accepts(bot, k, x)
        except ValueError as e:
            raise InputError("fix", v, f"$fix {k}={v}: {e}") from None
        out[k] = x
    return out


def make_space(bot: str, space="", fix="") -> tuple[dict[str, Dim], dict[str, Any]]:
    """The searched dimensions (declaration order) and the frozen values of
    ``bot``: every parameter with a declared range, each ``--space`` item
    replacing (or adding) one range, each ``--fix`` item removing one.

    :param space: ``"worlds=50..1600:log,rollouts=1..4"`` (a str, or a
        dict of name to range text); a bare name (``"hard_prior"``) adds a
        parameter searched only when named, with its declared range (a
        bare true/false parameter: both values).
    :param fix: ``"NAME=VALUE,..."``, a list of such, or a dict.
    :raises ValueError: an unknown bot or parameter; a bare name without a
        declared range; an empty, inverted or
        one-value range; a range or value the bot does not accept; a name
        both searched and fixed; nothing left to search.
    """
    params = bot_params(bot)
    fixed = parse_fix(bot, fix)
    given: dict[str, str] = {}
    if isinstance(space, dict):
        given = {k: str(v) for k, v in space.items()}
    else:
        for item in _items(space):
            k, eq, v = item.partition("=")
            if not k.strip() or (eq and not v.strip()):
                raise InputError("space", item, f"$space {item}: write NAME=LOW..HIGH[:log], NAME=A|B "
                                 "or a NAME with a declared range")
            given[k.strip()] = v.strip() if eq else ""
    for k in given:
        if k not in params:
            raise _unknown(bot, k, params)
        if k in fixed:
            raise InputError("space", k, f"{k} is both in $space and in $fix; give it once", "fix")
        if not given[k] and params[k].type is bool:
            given[k] = "true|false"     # a bare switch: both of its values
        if not given[k] and not params[k].range_text():
            raise InputError("space", k, f"$space {k}: it has no declared range; write {k}=LOW..HIGH")
    dims: dict[str, Dim] = {}
    for k, p in params.items():
        if k in fixed:
            continue
        if k in given and not given[k]:      # a bare name: its declared range
            dims[k] = _dim_from_param(bot, k, p)
        elif k in given:
            dims[k] = _parse_range(bot, k, p, given[k])
        elif p.tunable:
            dims[k] = _dim_from_param(bot, k, p)
    if not dims:
        raise InputError("space", space, f"nothing to tune: bot {bot!r} has no parameter with a range "
                         "left (give one with $space NAME=LOW..HIGH)")
    return dims, fixed


def spec_of(bot: str, values: dict, rules=None) -> str:
    """The canonical spec (defaults dropped, no seed) of ``bot`` with ``values``:
    ``spec_of("insane", {"worlds": 400, "policy_weight": 4.0})`` -> ``"insane:worlds=400"``
    (a parameter that a preset gives a default of its own stays when given,
    see :attr:`BaseBot.spec <dominoai.bots.BaseBot.spec>`). With ``rules``
    (a :class:`~dominoai.rules.Rules`) the values of parameters that cannot
    act under them are dropped too (the bot's ``idle_params``: ``hard_plies``
    without ``hard`` rollouts), so a trial's spec is the bot it plays."""
    params = bot_params(bot)

    def build(vals):
        parts = [f"{k}={vals[k]}" for k in params if k in vals]
        return make_bot(bot + (":" + ",".join(parts) if parts else ""))

    b = build(values)
    if rules is not None and hasattr(b, "idle_params"):
        b.use_rules(rules)
        idle = b.idle_params(rules)
        if any(k in idle for k in values):
            b = build({k: v for k, v in values.items() if k not in idle})
    return b.spec


def cheapest_specs(bot: str, dims: dict[str, Dim], fixed: dict, limit: int = 8) -> list[str]:
    """The lower corner of the numeric ranges under each combination of the
    categorical choices (at most ``limit`` combinations; else the first
    choices only): the settings a time-limit probe tries."""
    num = {k: d.low for k, d in dims.items() if d.choices is None}
    cats = [(k, d.choices) for k, d in dims.items() if d.choices is not None]
    combos = list(itertools.islice(itertools.product(*[c for _, c in cats]), limit + 1))
    if len(combos) > limit:
        combos = [tuple(c[0] for _, c in cats)]
    return list(dict.fromkeys(spec_of(bot, dict(fixed, **num, **dict(zip([k for k, _ in cats], c))))
                              for c in combos))
