"""The work of ``dominoai bots``: every registered bot, or one bot's
parameters, as text (:func:`bots_text`, :func:`bot_params_text`), and the
check the commands that take bot specs share (:func:`refuse_missing_model`).

Importing this package registers every bot and loads the engine's kernels,
so the subcommand's parser is declared beside the package, in
:mod:`dominoai.bots_command`, and this module is imported when the command
runs.
"""

from __future__ import annotations

import re
import textwrap

from .._cli_support import usage_error
from ..nets.model import ModelError
from . import BOTS, bot_names, bot_params, make_bot, plugins

__all__ = ["cmd_bots", "bots_text", "bot_params_text", "refuse_missing_model"]


def cmd_bots(args) -> int:
    """``dominoai bots [NAME]``: the bots, or bot ``NAME``'s parameters."""
    try:
        print(bot_params_text(args.name) if args.name else bots_text())
    except ValueError as e:
        raise usage_error(e) from None
    return 0


def _first_line(doc: str | None) -> str:
    """The first sentence of a docstring's first paragraph, reST markup
    (``code``, :role:`x`) as plain text; "et al." ends no sentence."""
    text = " ".join((doc or "").strip().split("\n\n")[0].split())
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text).replace("``", "")
    m = re.search(r"(?<!\bal)\.\s", text + " ")
    return (text[:m.start()] if m else text).rstrip(".")


def bots_text() -> str:
    """Every registered bot with the first sentence of its docstring; every
    plug-in bot (:func:`dominoai.bots.plugins`) is loaded first, and one
    that cannot be is listed with the reason."""
    failed = {}
    for name in plugins():
        try:
            bot_params(name)
        except ValueError as e:
            failed[name] = str(e).split(": ", 1)[-1]
    names = bot_names()
    width = max(len(n) for n in [*names, *failed])
    out = [f"{n:<{width}}  {_first_line(BOTS[n].__doc__)}" for n in names]
    out += [f"{n:<{width}}  (a plug-in that cannot be loaded: {why})" for n, why in sorted(failed.items())]
    return "\n".join(out)


def _value_text(v) -> str:
    """A parameter value as a spec writes it (a switch in lower case)."""
    return str(v).lower() if isinstance(v, bool) else str(v)


def bot_params_text(name: str) -> str:
    """The parameters of bot ``name``: type, default, the values a spec may
    set, the tunable range and the meaning.

    :raises ValueError: an unknown bot, or a spec (``insane:worlds=50``)
        instead of a name.
    """
    if ":" in name:
        raise ValueError(f"{name!r}: give a bot's name (e.g. {name.split(':', 1)[0]!r}), "
                         "not a spec with parameters")
    params = bot_params(name)
    if not params:
        return f"{name}: no parameters but seed"
    rows = [(k, p.type.__name__, _value_text(p.default),
             p.limits_text(),
             (p.range_text() + ("" if p.searched else " (on request)")) if p.range_text()
             else "true|false (on request)" if p.type is bool else "-",
             " ".join(p.help.split()))
            for k, p in params.items()]
    rows.append(("seed", "int", "None", "any", "-", "the bot's random seed (every bot takes it; "
                 "None: fresh randomness; a tournament gives each bot a seed of its own)"))
    # "allowed": what a spec may set; "tune range": what ``dominoai tune``
    # searches (a spec may go outside it, within what is allowed)
    head_row = ("name", "type", "default", "allowed", "tune range")
    w = [max(len(r[i]) for r in rows + [head_row]) for i in range(5)]
    out = ["  ".join(f"{h:<{w[i]}}" for i, h in enumerate(head_row)) + "  meaning"]
    for r in rows:
        pre = "  ".join(f"{r[i]:<{w[i]}}" for i in range(5)) + "  "
        lines = textwrap.wrap(r[5], width=max(40, 120 - len(pre))) or [""]
        out.append(pre + lines[0])
        out.extend(" " * len(pre) + more for more in lines[1:])
    pre_defaults = getattr(BOTS[name], "PRESET_DEFAULTS", None) or {}
    if pre_defaults:
        out.append("")
        out.append("per-preset defaults (they replace the default of a parameter the spec does not set):")
        for preset, d in pre_defaults.items():
            out.append(f"  {preset}: " + ",".join(
                f"{k}={_value_text(v)}" for k, v in d.items()))
    return "\n".join(out)


def refuse_missing_model(spec: str, rules) -> None:
    """Refuse (one line) a bot spec whose learned model cannot be loaded
    under ``rules`` (no model shipped for the preset, one of another preset
    or players), as :func:`~dominoai.tournament.run_tournament` would when
    it names the models. Used by ``dominoai tournament`` and ``dominoai train``.

    :raises UsageError: the model's error, as one line.
    """
    try:
        bot = make_bot(spec)
        if hasattr(bot, "use_rules"):
            bot.use_rules(rules)
        getattr(bot, "model_ident", None)       # loads the bot's models, as the provenance does
    except ModelError as e:
        raise usage_error(e) from None
    except Exception:  # noqa: BLE001 - anything else is run_tournament's to report, as before
        return
