"""``polyrank bench ordinal``: RC(H~) against the whole QP on S.5000 and
S.10000 (``row-column-generation-ordinal.txt``).  The other ordinal benchmarks
have their own modules: ``ordinal-wine`` (:mod:`.bench_wine`) and
``ordinal-rc`` (:mod:`.bench_rc`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .._harness import fmt
from ..registry import (
    BenchRunInfo,
    ExperimentResult,
    column,
    fmt_spec,
    record,
    register_bench,
)
from ._common import InstanceRow, _instance_runs

__all__ = ["bench_ordinal", "OrdinalBenchRow", "OrdinalBenchEntry", "OrdinalBenchSummary"]


@dataclass(frozen=True)
class OrdinalBenchRow(InstanceRow):
    """An :class:`~polyrank_paper.ordinal.InstanceRow` of
    :func:`bench_ordinal`, with the whole QP's time over RC(H~)'s.

    Attributes
    ----------
    ratio : float or None
        full_time_s (or the budget it exceeded) / time_s; None: whole QP
        not run.
    ratio_is_lower_bound : bool or None
        The whole QP exceeded the budget.
    """

    ratio: float | None = column(default=None)
    ratio_is_lower_bound: bool | None = column(default=None)


@dataclass(frozen=True)
class OrdinalBenchEntry:
    """The summary's view of one :class:`OrdinalBenchRow`.

    Attributes
    ----------
    instance : str
    iterations, added : int
    time_s : float
        RC(H~) seconds.
    full_status : str or None
    full_time_s : float or None
    ratio : float or None
    ratio_is_lower_bound : bool or None
    obj_rel_diff : float or None
    """

    instance: str
    iterations: int
    added: int
    time_s: float
    full_status: str | None
    full_time_s: float | None
    ratio: float | None
    ratio_is_lower_bound: bool | None
    obj_rel_diff: float | None


@record
class OrdinalBenchSummary(BenchRunInfo):
    """The key figures of :func:`bench_ordinal`.

    Attributes
    ----------
    sizes : tuple of int
    budget_s : float
    target_ratio : float
    target_met : bool
    target_checked_on, full_qp_not_run_on : tuple of str
        Instances.
    rows : tuple of OrdinalBenchEntry
    """

    sizes: tuple
    budget_s: float
    target_ratio: float
    target_met: bool
    target_checked_on: tuple
    full_qp_not_run_on: tuple
    rows: tuple


@register_bench("ordinal")
def bench_ordinal(*, quick: bool = False, seed: int = 0, progress: bool = False,
                  sizes=None, n_sets: int | None = None,
                  budget_s: float | None = None) -> ExperimentResult:
    """Time RC(H~) against the whole QP (H~) on separable instances.

    Parameters
    ----------
    quick : bool
        S.500 and S.1000, one data set each, budget 20 s; otherwise S.1000,
        S.2000 and S.5000 (where the whole QP fits in memory: measured
        ratios) and S.10000 (the paper's largest; the whole QP is not
        attempted there, see :data:`FULL_QP_MAX_N`), one data set each,
        budget 1800 s.
        Above n = :data:`FULL_QP_MAX_N` the whole QP is not attempted.
    seed, progress
    sizes, n_sets, budget_s
        Override the settings above.

    Returns
    -------
    ExperimentResult
        ``rows``: an :class:`OrdinalBenchRow` per instance: ``time_s``
        (RC(H~)), ``full_time_s`` (or
        ``full_time_s_lower_bound`` = the budget when it was exceeded),
        ``ratio`` = full / RC(H~) (a lower bound when over budget),
        ``obj_rel_diff``; ``notes`` state the target and whether it was met.
    """
    sizes = list(sizes or ((500, 1000) if quick else (1000, 2000, 5000, 10000)))
    n_sets = n_sets or 1
    budget_s = float(budget_s or (20.0 if quick else 1800.0))
    rows = _instance_runs([(True, sizes)], n_sets, seed, True, budget_s, progress,
                          "bench ordinal")
    rows = [OrdinalBenchRow(**vars(r), ratio=ratio, ratio_is_lower_bound=bound)
            for r in rows for ratio, bound in [_full_over_rc(r)]]
    measured = [r for r in rows if r.ratio is not None]
    met = bool(measured) and all(r.ratio >= 20 for r in measured) and all(
        r.obj_rel_diff is None or r.obj_rel_diff <= 1e-6 for r in measured)
    notes = []
    for r in rows:
        if r.ratio is None:
            notes.append(f"{r.instance}: RC(H~) {r.time_s:.2f} s ({r.iterations} "
                         f"sub-problems, {r.added} added objects); whole QP {r.full_status}")
        else:
            bound = ">= " if r.ratio_is_lower_bound else ""
            diff = ("" if r.obj_rel_diff is None
                    else f", objective rel. diff {r.obj_rel_diff:.1e}")
            notes.append(f"{r.instance}: whole QP / RC(H~) = {bound}{r.ratio:.0f}x "
                         f"({r.full_status}{diff})")
    unmeasured = [r.instance for r in rows if r.ratio is None]
    notes.append(f"RC(H~) {'is' if met else 'is not'} at least 20x faster than the whole QP "
                 f"with the same objective on "
                 f"{', '.join(r.instance for r in measured) or 'no instance'}"
                 + (f"; {', '.join(unmeasured)}: whole QP not run" if unmeasured else "")
                 + " (the paper: 287 s vs 10,639 s at n = 10000)")
    entry = [f.name for f in fields(OrdinalBenchEntry)]
    summary = OrdinalBenchSummary(
        bench="ordinal", quick=quick, seed=seed, sizes=tuple(sizes), budget_s=budget_s,
        target_ratio=20.0, target_met=met,
        target_checked_on=tuple(r.instance for r in measured),
        full_qp_not_run_on=tuple(unmeasured),
        rows=tuple(OrdinalBenchEntry(**{k: getattr(r, k) for k in entry}) for r in rows))
    columns = [("instance", "instance", None), ("iterations", "# iter", None),
               ("added", "# added", None), ("time_s", "RC(H~) s", fmt),
               ("full_time_s", "full QP s", fmt), ("full_status", "full QP", None),
               ("ratio", "full/RC", fmt_spec(".0f")),
               ("obj_rel_diff", "obj diff", fmt_spec(".1e"))]
    return ExperimentResult("ordinal", "RC(H~) vs the whole QP (Sec. 10, Table 1 'GRB')",
                            rows, summary, columns=columns, notes=notes)


def _full_over_rc(r: InstanceRow) -> tuple:
    """(the whole QP's time or budget over RC(H~)'s, whether a lower bound)."""
    if r.full_time_s is not None:
        return r.full_time_s / r.time_s, False
    if r.full_time_s_lower_bound is not None:
        return r.full_time_s_lower_bound / r.time_s, True
    return None, None
