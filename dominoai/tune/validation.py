"""Validation: the best trials replayed head to head against the defaults
on fresh deals (stage :data:`~.objective.VALIDATE`, never used by the
search), accepted only if the paired interval of points per hand lies above
zero.

With ``k`` candidates the intervals are Bonferroni-corrected (each at
``1 - 0.05 / k``), so the chance that any of them is accepted by luck stays
at most 5%; with ``k = 1`` it is the plain paired 95% interval. All
candidates play the same fresh deals.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .objective import VALIDATE, canonical, play_chunk, stage_seed

__all__ = ["Verdict", "validate"]


@dataclass
class Verdict:
    """The validation's result: ``spec`` (the candidate reported),
    ``baseline`` (the defaults' spec), ``mean``, ``lo``, ``hi`` (points per
    hand of spec minus baseline, with the interval at ``confidence``),
    ``deals`` played, ``accepted``, ``ms`` and ``baseline_ms`` (median ms per
    decision), ``candidates`` tried, and ``line``: the one-line verdict."""

    spec: str
    baseline: str
    mean: float
    lo: float
    hi: float
    deals: int
    accepted: bool
    confidence: float
    ms: float
    baseline_ms: float
    candidates: int
    line: str

    def to_dict(self) -> dict:
        return asdict(self)


def _line(spec, mean, lo, hi, deals, accepted, k, confidence) -> str:
    what = ("better" if accepted else "significantly worse: keep the defaults" if hi < 0
            else "not significantly better: keep the defaults")
    family = 1 - (1 - confidence) * k
    fam = (f" (the best of {k} validated; {confidence:.1%} intervals each, so {family:.0%} "
           f"over all {k})" if k > 1 else "")
    return (f"{spec} vs defaults: {mean:+.2f} [{lo:+.2f}, {hi:+.2f}] points/hand on {deals:,} "
            f"fresh deals{fam}: {what}")


def validate(variant, players, candidates: list[str], baseline: str, hands: int, seed: int,
             jobs: int = 1, confidence: float = 0.95, progress: bool = False, backend: str | None = None,
             scheduler: str | None = None) -> Verdict:
    """Replay each of ``candidates`` (specs, best first) against
    ``baseline`` on ``hands`` fresh deals; return the :class:`Verdict` of the
    best accepted one (highest mean), else of the best by mean, not accepted.
    ``progress``: a tournament progress bar per candidate on stderr;
    ``backend``, ``scheduler``: where the games run (as
    :func:`~dominoai.tournament.run_tournament`).

    :raises ValueError: no candidates, or ``hands`` below 2.
    """
    if not candidates:
        raise ValueError("no candidate to validate")
    if hands < 2:
        raise ValueError(f"validation needs at least 2 deals (got {hands})")
    k = len(candidates)
    conf = 1 - (1 - confidence) / k
    seed_v = stage_seed(seed, VALIDATE, 0)
    base_ms = None
    rows = []
    for spec in candidates:
        if canonical(spec) == canonical(baseline):
            rows.append((spec, 0.0, 0.0, 0.0, hands, False, float("nan")))
            continue
        on = {} if backend is None else {"backend": backend, "scheduler": scheduler}
        diffs, ms, _, bms = play_chunk(variant, players, spec, baseline, hands, seed_v, jobs, progress, **on)
        if base_ms is None and len(bms):
            base_ms = float(np.median(bms))
        from ..tournament import paired_ci
        m, lo, hi = paired_ci(diffs, conf)
        rows.append((spec, m, lo, hi, len(diffs), bool(lo > 0), float(np.median(ms)) if len(ms) else float("nan")))
    ok = [r for r in rows if r[5]]
    best = max(ok or rows, key=lambda r: r[1])
    spec, m, lo, hi, n, acc, ms = best
    if canonical(spec) == canonical(baseline):
        line = f"{spec}: the best setting found is the defaults: keep the defaults"
    else:
        line = _line(spec, m, lo, hi, n, acc, k, conf)
    return Verdict(spec, baseline, m, lo, hi, n, acc, conf, ms,
                   base_ms if base_ms is not None else float("nan"), k, line)
