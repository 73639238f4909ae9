"""The bot protocol, the registry, and ``make_bot`` for spec strings.

A bot is any object with ``act(observation) -> Move`` (and a ``name``). It
is given an :class:`~dominoai.observation.Observation` only, never the
state, and gets its seed at construction. The one exception is a named
cheat for upper-bound studies (``omniscient``): it declares
``needs_state = True`` and the harness then calls
``act_with_state(observation, state)`` instead, with a copy of the true
engine state (``needs_state`` is the only signal; a harness does not look
for the method). ``make_bot("insane:worlds=400,seed=3")``
builds a registered bot from a spec string (the grammar:
:mod:`dominoai.bots.spec`); parameters are typed and validated against the
bot's ``PARAMS``.

Bots of other packages, and of dominoai's optional extras, are *plug-ins*:
declared as entry points of the group ``dominoai.bots``
(``[project.entry-points."dominoai.bots"]`` in a ``pyproject.toml``,
``name = "module:attribute"``) or by :func:`register_plugin`, and imported
the first time a spec names them. This module knows no plug-in by name.

>>> bot = make_bot("easy:seed=1")
>>> bot.spec
'easy:seed=1'
>>> make_bot("easy:speed=3")
Traceback (most recent call last):
...
ValueError: bot 'easy' has no parameter 'speed' (did you mean 'seed'?); its parameters are: seed
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
import math
from dataclasses import dataclass
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from ..game import Move
from ..observation import Observation
from .spec import parse_spec

__all__ = ["Bot", "BaseBot", "Param", "register_bot", "register_plugin", "plugins", "make_bot", "bot_names",
           "bot_params", "parse_spec", "BOTS", "ENTRY_POINT_GROUP"]


@runtime_checkable
class Bot(Protocol):
    """What the harness needs of a bot: a ``name`` and ``act(observation)``.

    A bot whose class sets ``needs_state = True`` (default False, see
    :class:`BaseBot`) is called as ``act_with_state(observation, state)``
    instead, ``state`` being a copy of the engine state (``int64``,
    ``(S_SIZE,)``, ``Match.state_copy()``)."""

    name: str

    def act(self, observation: Observation) -> Move:  # pragma: no cover - protocol
        ...


@dataclass(frozen=True)
class Param:
    """A bot parameter: its type (int, float, bool or str), default and meaning.

    ``choices``, ``min`` and ``max`` bound what the bot accepts (``allowed``:
    how ``dominoai bots`` words a rule the bot checks itself, e.g.
    ``"0|>=0.1"``). The tunable range,
    declared once beside the parameter, is ``low .. high`` (``log``: sampled
    on a log scale) for numbers, or ``choices`` for a categorical parameter
    (``searched_choices``: the subset searched by default, the rest only
    when a ``--space`` names them); :mod:`dominoai.tune` searches it
    (``searched=False``: only when asked for by name). A parameter with neither is not tuned unless a range is
    given for it.
    """

    type: type
    default: Any
    help: str = ""
    choices: tuple | None = None
    min: float | None = None
    low: float | None = None
    high: float | None = None
    log: bool = False
    searched: bool = True
    max: float | None = None
    allowed: str = ""
    searched_choices: tuple | None = None

    def limits_text(self) -> str:
        """What the bot accepts, as ``dominoai bots`` shows it: ``allowed``
        when given, else ``"0.0..1.0"``, ``">=1"``, ``"<=5"``, the choices
        joined by ``|``, or ``"any"`` (no spaces: one word per column)."""
        if self.allowed:
            return self.allowed
        if self.choices is not None:
            return "|".join(map(str, self.choices))
        if self.type is bool:
            return "true|false"
        if self.min is not None and self.max is not None:
            return f"{self.min}..{self.max}"
        if self.min is not None:
            return f">={self.min}"
        if self.max is not None:
            return f"<={self.max}"
        return "any"

    @property
    def tunable(self) -> bool:
        """True when a range (``low``/``high``) or ``choices`` is declared and
        ``searched`` (False: the range is only searched when asked for)."""
        return self.searched and ((self.low is not None and self.high is not None)
                                  or self.choices is not None)

    def range_text(self) -> str:
        """The declared range as ``--space`` writes it: ``"25..1600:log"``,
        ``"random|medium"`` (``searched_choices`` when declared); ``""`` when
        there is none."""
        if self.low is not None and self.high is not None:
            return f"{self.low}..{self.high}" + (":log" if self.log else "")
        if self.choices is not None:
            return "|".join(map(str, self.searched_choices or self.choices))
        return ""

    def parse(self, bot: str, name: str, value: Any) -> Any:
        try:
            if self.type is bool and isinstance(value, str):
                low = value.strip().lower()
                if low not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                    raise ValueError
                v = low in ("1", "true", "yes", "on")
            elif self.type is int and isinstance(value, float) and not value.is_integer():
                raise ValueError
            else:
                v = self.type(value)
        except (TypeError, ValueError):
            kind = {bool: "true or false (also 1/0, yes/no, on/off)", int: "an integer",
                    float: "a number"}.get(self.type, self.type.__name__)
            raise ValueError(f"bot {bot!r}: parameter {name} must be {kind} "
                             f"(got {value!r})") from None
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError(f"bot {bot!r}: parameter {name} must be a finite number (got {value!r})")
        if self.choices is not None and v not in self.choices:
            raise ValueError(f"bot {bot!r}: parameter {name} must be one of "
                             f"{', '.join(map(str, self.choices))} (got {v!r})")
        if self.min is not None and v < self.min:
            raise ValueError(f"bot {bot!r}: parameter {name} must be >= {self.min} (got {v!r})")
        if self.max is not None and v > self.max:
            raise ValueError(f"bot {bot!r}: parameter {name} must be <= {self.max} (got {v!r})")
        return v


class BaseBot:
    """Base for registered bots: typed parameters from ``PARAMS`` and a seeded
    ``numpy.random.Generator`` in ``self.rng``. Subclasses implement ``act``.

    ``needs_state``: False for every fair bot. A cheat that sets it True
    must implement ``act_with_state(observation, state)`` (``state``: a copy
    of the true engine state, ``int64`` ``(S_SIZE,)``, which it may keep but
    the harness never reads back); the harness calls that instead of
    ``act``."""

    name = "base"
    PARAMS: dict[str, Param] = {}
    #: True only for a named cheat: the harness calls ``act_with_state(observation, state)``
    needs_state: bool = False
    #: False for a bot that draws no random numbers (its ``seed`` cannot
    #: change its play, so the tournament's duplicate check ignores it)
    uses_seed: bool = True
    #: Per-preset defaults, ``{preset: {parameter: value}}``: under the rules
    #: of that preset (``Rules.preset``, whatever its overrides) they replace
    #: the declared default of every parameter the spec does not set. A bot
    #: adopts them when it decides (:meth:`use_rules`); ``params`` and
    #: ``spec`` keep the spec as given, so a spec rebuilds the same bot.
    PRESET_DEFAULTS: dict[str, dict[str, Any]] = {}

    def __init__(self, seed: int | None = None, **params):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        #: the parameters the spec set (the others follow the defaults)
        self.given = frozenset(k for k in params if k in self.PARAMS)
        self._rules_preset: str | None = None
        #: the players at the table of the last :meth:`use_rules` (None before)
        self._rules_players: int | None = None
        self.params: dict[str, Any] = {}
        for k, p in self.PARAMS.items():
            self.params[k] = p.parse(self.name, k, params.pop(k)) if k in params else p.default
        if params:
            k = next(iter(params))
            names = ['seed', *self.PARAMS]
            raise ValueError(f"bot {self.name!r} has no parameter {k!r}{nearest_hint(k, names)}; "
                             f"its parameters are: {', '.join(names)}")
        for k, v in self.params.items():
            setattr(self, k, v)

    def defaults_for(self, preset: str) -> dict[str, Any]:
        """The parameter values this bot uses under ``preset``: the spec's,
        else the preset's own default (:attr:`PRESET_DEFAULTS`), else the
        declared default."""
        pre = self.PRESET_DEFAULTS.get(preset, {})
        return {k: (self.params[k] if k in self.given or k not in pre else pre[k])
                for k in self.PARAMS}

    def use_rules(self, rules) -> None:
        """Set the parameter attributes for ``rules`` (a :class:`Rules`):
        :meth:`defaults_for` its preset. Cheap when the preset is the one
        of the last call; a bot without per-preset defaults does nothing."""
        self._rules_players = rules.players
        if not self.PRESET_DEFAULTS or rules.preset == self._rules_preset:
            return
        for k, v in self.defaults_for(rules.preset).items():
            setattr(self, k, v)
        self._rules_preset = rules.preset

    @property
    def spec(self) -> str:
        """The spec string that rebuilds this bot: the parameters that differ
        from their declared default, and those the spec set that some preset
        gives a default of its own (:attr:`PRESET_DEFAULTS`): ``insane`` and
        ``insane:exact=0`` are the same bot in Fives but not in Draw."""
        preset_keys = {k for d in self.PRESET_DEFAULTS.values() for k in d}
        parts = [f"{k}={v}" for k, v in self.params.items()
                 if v != self.PARAMS[k].default or (k in self.given and k in preset_keys)]
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return self.name + (":" + ",".join(parts) if parts else "")

    def act(self, observation: Observation) -> Move:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<bot {self.spec}>"


BOTS: dict[str, Callable[..., Bot]] = {}


def register_bot(name: str, factory: Callable[..., Bot] | None = None):
    """Register a bot class or factory under ``name`` (usable as a decorator).

    The factory is called as ``factory(seed=..., **params)``.
    """
    def deco(f):
        if not name or ":" in name or "," in name:
            raise ValueError(f"bad bot name {name!r}")
        BOTS[name] = f
        return f

    return deco(factory) if factory is not None else deco


#: the entry-point group through which other packages (and dominoai's own
#: optional extras) offer bots: ``name = "module:attribute"``, the attribute
#: a bot class or factory (importing the module may register it too)
ENTRY_POINT_GROUP = "dominoai.bots"
_PLUGINS: dict[str, str] = {}           # name -> "module:attribute", from register_plugin
_ENTRY_POINTS: dict[str, str] | None = None  # the same from the installed packages' metadata, read once


def register_plugin(name: str, target: str) -> None:
    """Declare a bot that loads on first use: ``target`` is
    ``"module:attribute"``, as an entry point of the group
    :data:`ENTRY_POINT_GROUP` writes it (one declared here wins over an
    installed entry point of the same name).

    :raises ValueError: a bad name, or ``target`` not ``module:attribute``.
    """
    if not name or ":" in name or "," in name:
        raise ValueError(f"bad bot name {name!r}")
    module, colon, attr = str(target).partition(":")
    if not (module.strip() and colon and attr.strip()):
        raise ValueError(f"bot {name!r}: write its target as module:attribute (got {target!r})")
    _PLUGINS[name] = target


def plugins() -> dict[str, str]:
    """Every bot that loads on first use, ``{name: "module:attribute"}``:
    the entry points of :data:`ENTRY_POINT_GROUP` of the installed packages
    and those declared by :func:`register_plugin`."""
    global _ENTRY_POINTS
    if _ENTRY_POINTS is None:
        _ENTRY_POINTS = {ep.name: ep.value for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    return {**_ENTRY_POINTS, **_PLUGINS}


def _load_plugin(name: str) -> None:
    """Import the plug-in bot ``name`` (see :func:`plugins`) when it is not
    registered yet; register what its target names unless importing it did.

    :raises ValueError: the plug-in cannot be imported (the message ends
        with the plug-in's own ImportError, which names what to install).
    """
    if name in BOTS:
        return
    target = plugins().get(name)
    if target is None:
        return
    module, _, attr = target.partition(":")
    try:
        obj = importlib.import_module(module.strip())
        for part in attr.strip().split("."):
            obj = getattr(obj, part)
    except ImportError as e:
        raise ValueError(f"bot {name!r} cannot be loaded from {target}: {e}") from None
    except AttributeError:
        raise ValueError(f"bot {name!r}: {target} names nothing") from None
    if name not in BOTS:
        register_bot(name, obj)


def nearest_hint(name, names) -> str:
    """`` (did you mean 'worlds'?)`` for the name of ``names`` nearest to a
    mistyped ``name`` (:func:`difflib.get_close_matches`), else ``""``."""
    near = difflib.get_close_matches(str(name), list(names), n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def _unknown_bot(name: str) -> ValueError:
    """The error for a bot name that is neither registered nor a plug-in:
    it lists both."""
    later = sorted(p for p in plugins() if p not in BOTS)
    more = f"; plug-in bots (loaded on first use): {', '.join(later)}" if later else ""
    hint = "; parameters go after ':' (insane:worlds=400)" if "=" in name and ":" not in name else ""
    return ValueError(f"unknown bot {name!r}{hint}; bots are: {', '.join(bot_names())}{more}")


def bot_names() -> list[str]:
    """The registered bots' names, sorted (a plug-in once it is loaded;
    :func:`plugins` lists them all)."""
    return sorted(BOTS)


def bot_params(name: str) -> dict[str, Param]:
    """The declared parameters of the registered bot ``name`` (its
    ``PARAMS``, in declaration order; ``seed`` is not among them; a bot
    registered as a plain factory has none).

    :raises ValueError: an unknown bot (listing the registered ones).
    """
    _load_plugin(name)
    if name not in BOTS:
        raise _unknown_bot(name)
    return dict(getattr(BOTS[name], "PARAMS", {}) or {})


def make_bot(spec: "str | Bot", seed: int | None = None) -> Bot:
    """A bot from a spec string (``"hard"``, ``"insane:worlds=400,seed=3"``) or
    an existing bot (returned as is). ``seed`` applies when the spec names none.

    :raises ValueError: an unknown bot (listing the registered ones), an
        unknown parameter (listing the valid ones) or a value of the wrong type.
    """
    if not isinstance(spec, str):
        if hasattr(spec, "act"):
            return spec
        raise ValueError(f"not a bot spec: {spec!r}")
    name, params = parse_spec(spec)
    _load_plugin(name)
    if name not in BOTS:
        raise _unknown_bot(name)
    if "seed" in params:
        try:
            seed = int(params.pop("seed"))
        except ValueError:
            seed = -1
        if seed < 0:
            raise ValueError(f"bot {name!r}: parameter seed must be a non-negative integer") from None
    return BOTS[name](seed=seed, **params)
