"""Plots of a study (matplotlib only): the optimisation history, parameter
importance (``optuna.importance``, PED-ANOVA: no scikit-learn needed) and
strength against time per decision. :func:`plot_study` draws all three
from a study file under a title that names the study's setting, deals per
trial, seed and verdict (:func:`study_title`); each ``plot_*`` draws on a
given axis and returns it.
"""

from __future__ import annotations

import textwrap

import numpy as np

from .study import load_study

__all__ = ["plot_history", "plot_importance", "plot_strength_time", "plot_study", "study_title",
           "FEW_TRIALS"]

#: below this many complete trials the importance plot carries a caveat:
#: PED-ANOVA compares the top 10% of the trials with all of them, and
#: Optuna's documentation of it asks for at least 5 trials in that top
FEW_TRIALS = 50


def plot_history(trials, ax=None):
    """Each finished trial's value (points per hand vs the pool; pruned
    trials hollow, those over the time limit as crosses) by trial number,
    with the best feasible so far as a step line."""
    import matplotlib.pyplot as plt
    ax = ax or plt.gca()
    df = trials[trials["state"].isin(["COMPLETE", "PRUNED"])].sort_values("number")
    c = df[df["state"] == "COMPLETE"]
    p = df[df["state"] == "PRUNED"]
    ok = c[c["feasible"]]
    ax.errorbar(ok["number"], ok["value"], yerr=[ok["value"] - ok["lo"], ok["hi"] - ok["value"]],
                fmt="o", ms=4, lw=0.8, alpha=0.8, label="complete (95% interval)")
    slow = c[~c["feasible"]]
    if len(slow):
        ax.plot(slow["number"], slow["value"], "x", ms=5, color="C1", label="too slow (over the time limit)")
    if len(p):
        ax.plot(p["number"], p["value"], "o", mfc="none", ms=4, color="grey", label="pruned")
    if len(ok):
        best = np.maximum.accumulate(ok["value"].to_numpy())
        last = int(df["number"].max())    # drawn on to the last trial
        ax.step([*ok["number"], last], [*best, best[-1]], where="post", color="C3",
                label="best so far (within the time limit)" if len(slow) else "best so far")
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("trial")
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))   # trial numbers are whole
    ax.set_ylabel("points per hand vs the pool")
    ax.set_title("optimisation history")
    ax.legend(fontsize="small")
    return ax


def plot_importance(study, ax=None):
    """Parameter importances of the complete trials (PED-ANOVA), titled
    with their number; below :data:`FEW_TRIALS` of them a caveat in the
    title says the ranking is a rough guide; a note instead of bars when
    there are too few trials to say anything."""
    import matplotlib.pyplot as plt
    import optuna
    from optuna.trial import TrialState
    ax = ax or plt.gca()
    n = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
    title = f"parameter importance ({n} complete trial{'s' * (n != 1)})"
    try:
        imp = optuna.importance.get_param_importances(
            study, evaluator=optuna.importance.PedAnovaImportanceEvaluator())
    except (RuntimeError, ValueError, ZeroDivisionError) as e:
        imp = {}
        why = str(e)
    else:
        why = "too few finished trials"
    if not imp:
        ax.set_title(title)
        ax.text(0.5, 0.5, f"no importances: {why}"[:80], ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return ax
    if n < FEW_TRIALS:
        title += (f"\ncaveat: a rough guide; PED-ANOVA ranks reliably\n"
                  f"from about {FEW_TRIALS} trials (5 in its top 10%)")
    ax.set_title(title)
    names = list(imp)[::-1]
    ax.barh(names, [imp[k] for k in names])
    ax.set_xlabel("importance (share)")
    return ax


def plot_strength_time(trials, ax=None, max_ms: float | None = None):
    """Value against median ms per decision (log scale), one point per
    complete trial, with the time limit when there is one."""
    import matplotlib.pyplot as plt
    ax = ax or plt.gca()
    c = trials[(trials["state"] == "COMPLETE") & trials["ms_per_decision"].notna()]
    ax.errorbar(c["ms_per_decision"], c["value"], yerr=[c["value"] - c["lo"], c["hi"] - c["value"]],
                fmt="o", ms=4, lw=0.8, alpha=0.8)
    if max_ms:
        ax.axvline(max_ms, color="C3", ls="--", label=f"limit {max_ms} ms")
        ax.legend(fontsize="small")
    if len(c) and (c["ms_per_decision"] > 0).all():
        from matplotlib.ticker import LogLocator, NullFormatter, StrMethodFormatter
        ax.set_xscale("log")
        # labels at 1, 2 and 5 times a power of ten (over more than two decades at the
        # powers only), as plain numbers, none on the minor ticks (their labels 2x10^0,
        # 3x10^0 ... run into each other)
        lo, hi = ax.get_xlim()
        subs = (1.0, 2.0, 5.0) if hi / lo <= 10 ** 2.5 else (1.0,)
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=subs, numticks=8))
        ax.xaxis.set_major_formatter(StrMethodFormatter("{x:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("ms per decision (median)")
    ax.set_ylabel("points per hand vs the pool")
    ax.set_title("strength against time")
    return ax


def study_title(study, trials, width: int = 160) -> str:
    """The title of :func:`plot_study`: the setting (bot, preset, players,
    opponents), the deals per trial and opponent, the seed and the time
    limit; the trials finished; the verdict of the validation (or that
    there was none), wrapped at ``width`` characters. ``study``: an Optuna
    study of :func:`~dominoai.tune.tune` (its ``user_attrs``); ``trials``:
    its trials DataFrame (:func:`~dominoai.tune.trials_frame`).

    >>> class S: user_attrs = {"bot": "insane", "variant": "block", "players": 2,
    ...     "opponents": ["easy"], "hands": 100, "seed": 0, "max_ms": None}
    >>> import pandas as pd
    >>> print(study_title(S, pd.DataFrame({"state": ["COMPLETE", "PRUNED"]})))
    tune insane in block, 2 players vs easy · 100 deals per trial and opponent, every seat rotation · seed 0
    2 trials finished (1 pruned) · no time limit
    verdict: not validated
    """
    a = study.user_attrs
    done = trials[trials["state"].isin(["COMPLETE", "PRUNED"])]
    pruned = int((trials["state"] == "PRUNED").sum())
    limit = f"at most {a['max_ms']:g} ms per decision" if a.get("max_ms") else "no time limit"
    verdict = (a.get("validation") or {}).get("verdict", {}).get("line")
    lines = [f"tune {a.get('bot')} in {a.get('variant')}, {a.get('players')} players vs "
             f"{', '.join(a.get('opponents', []))} · {a.get('hands')} deals per trial and opponent, "
             f"every seat rotation · seed {a.get('seed')}",
             f"{len(done)} trials finished ({pruned} pruned) · {limit}",
             *textwrap.wrap(f"verdict: {verdict if verdict else 'not validated'}", width)]
    return "\n".join(lines)


def plot_study(path, out=None):
    """The three plots of the study in ``path`` side by side under
    :func:`study_title`; saved to ``out`` (.png, .pdf, .svg) when given.
    Returns the figure.

    :raises ValueError: the file is missing or not a dominoai tune study.
    """
    import matplotlib.pyplot as plt
    study, trials = load_study(path)
    fig, axes = plt.subplots(1, 3, figsize=(15, 5), layout="constrained")
    plot_history(trials, axes[0])
    plot_importance(study, axes[1])
    plot_strength_time(trials, axes[2], study.user_attrs.get("max_ms"))
    fig.suptitle(study_title(study, trials), fontsize="medium")
    if out is not None:
        fig.savefig(out)
    return fig
