"""Plots of a study (matplotlib only): the optimisation history, parameter
importance (``optuna.importance``, PED-ANOVA: no scikit-learn needed) and
strength against time per decision. :func:`plot_study` draws all three
from a study file; each ``plot_*`` draws on a given axis and returns it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_history", "plot_importance", "plot_strength_time", "plot_study"]


def plot_history(trials, ax=None):
    """Each finished trial's value (points per hand vs the pool; pruned
    trials hollow) by trial number, with the best so far as a step line."""
    import matplotlib.pyplot as plt
    ax = ax or plt.gca()
    df = trials[trials["state"].isin(["COMPLETE", "PRUNED"])].sort_values("number")
    c = df[df["state"] == "COMPLETE"]
    p = df[df["state"] == "PRUNED"]
    ax.errorbar(c["number"], c["value"], yerr=[c["value"] - c["lo"], c["hi"] - c["value"]],
                fmt="o", ms=4, lw=0.8, alpha=0.8, label="complete (95% interval)")
    if len(p):
        ax.plot(p["number"], p["value"], "o", mfc="none", ms=4, color="grey", label="pruned")
    ok = c[c["feasible"]]
    if len(ok):
        best = np.maximum.accumulate(ok["value"].to_numpy())
        ax.step(ok["number"], best, where="post", color="C3", label="best so far")
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("trial")
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))   # trial numbers are whole
    ax.set_ylabel("points per hand vs the pool")
    ax.set_title("optimisation history")
    ax.legend(fontsize="small")
    return ax


def plot_importance(study, ax=None):
    """Parameter importances of the finished trials (PED-ANOVA); a note on
    the axis when there are too few trials to say."""
    import matplotlib.pyplot as plt
    import optuna
    ax = ax or plt.gca()
    ax.set_title("parameter importance")
    try:
        imp = optuna.importance.get_param_importances(
            study, evaluator=optuna.importance.PedAnovaImportanceEvaluator())
    except (RuntimeError, ValueError, ZeroDivisionError) as e:
        imp = {}
        why = str(e)
    else:
        why = "too few finished trials"
    if not imp:
        ax.text(0.5, 0.5, f"no importances: {why}"[:80], ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return ax
    names = list(imp)[::-1]
    ax.barh(names, [imp[n] for n in names])
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
        ax.set_xscale("log")
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("ms per decision (median)")
    ax.set_ylabel("points per hand vs the pool")
    ax.set_title("strength against time")
    return ax


def plot_study(path, out=None):
    """The three plots of the study in ``path`` side by side; saved to
    ``out`` (.png, .pdf, .svg) when given. Returns the figure.

    :raises ValueError: the file is missing or not a dominoai tune study.
    """
    import matplotlib.pyplot as plt

    from .study import load_study
    study, trials = load_study(path)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    plot_history(trials, axes[0])
    plot_importance(study, axes[1])
    plot_strength_time(trials, axes[2], study.user_attrs.get("max_ms"))
    a = study.user_attrs
    fig.suptitle(f"tune {a.get('bot')} in {a.get('variant')} vs {', '.join(a.get('opponents', []))}")
    fig.tight_layout()
    if out is not None:
        fig.savefig(out)
    return fig
