"""The ``dominoai tune`` and ``dominoai bots`` commands (the work behind
the argparse setup in :mod:`dominoai.cli`).

Both raise ``ValueError`` for bad input; the CLI prints it as one line and
exits with code 2.
"""

from __future__ import annotations

import sys
import re
import textwrap

from ..bots import BOTS, bot_names, bot_params, plugins
from .study import tune

__all__ = ["cmd_tune", "cmd_bots", "bots_text", "bot_params_text", "resume_hint"]


def resume_hint(args) -> str:
    """The line ``dominoai tune`` prints on stderr when it is interrupted:
    the exact command that resumes the study (the same command: a rerun
    with the same ``--study`` goes on from the trials finished), or, for a
    study kept in memory, that nothing is left to resume."""
    if not args.study and not getattr(args, "storage", None):
        return ("dominoai: interrupted; the study was kept in memory (no --study), "
                "so there is nothing to resume")
    command = getattr(args, "command", None) or "the same command"
    where = args.study if not getattr(args, "storage", None) else f"{args.study or 'dominoai-tune'} in {args.storage}"
    return f"dominoai: interrupted; resume the study {where} with: {command}"


def cmd_tune(args) -> int:
    """Run :func:`~dominoai.tune.tune` from parsed arguments; print the
    summary. Ctrl-C (or SIGTERM) prints :func:`resume_hint` and returns 130."""
    try:
        res = tune(args.variant, args.bot, args.opponents, trials=args.trials, hands=args.hands,
                   chunk=args.chunk, jobs=args.jobs, seed=args.seed, study=args.study,
                   space=args.space, fix=args.fix, max_ms=args.max_ms, top=args.top,
                   validate_hands=args.validate_hands, players=args.players, out=args.out,
                   progress=args.progress, storage=args.storage, enqueue=args.enqueue,
                   heartbeat=args.heartbeat, backend=args.backend, scheduler=args.scheduler)
    except KeyboardInterrupt:
        sys.stdout.flush()
        sys.stderr.write(resume_hint(args) + "\n")
        return 130
    print(res.summary())
    if res.trials_path is not None:
        print(f"trials: {res.trials_path}")
    if getattr(args, "storage", None):
        print(f"study: {args.study or 'dominoai-tune'} in {args.storage} (optuna-dashboard can open it)")
    elif res.study_path is not None:
        print(f"study: {res.study_path} (optuna-dashboard can open it)")
    sys.stdout.flush()
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


def cmd_bots(args) -> int:
    """``dominoai bots [NAME]``."""
    print(bot_params_text(args.name) if args.name else bots_text())
    return 0
