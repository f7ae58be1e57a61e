"""``polyrank bench m3l``: R = I on yeast, linear M3L against 1-vs-All
LinearSVC and rbf M3L against 1-vs-All SVC (``m3l-multilabel-zero-shot.txt``).
"""

from __future__ import annotations

from polyrank.validation import check_int

from .._harness import progress_bar
from ..registry import BenchInfo, ExperimentResult, record, register_bench, speed_phrase
from .table1 import _timing_rows

__all__ = ["bench_m3l", "M3LBenchSummary"]


@record
class M3LBenchSummary(BenchInfo):
    """The key figures of :func:`bench_m3l` (its one row:
    :class:`~polyrank_paper.m3l.Table1Row`).

    Attributes
    ----------
    N : int
        Training points.
    repeats : int
    linear_ratio_liblinear_over_m3l, rbf_ratio_libsvm_over_m3l : float
        Baseline time over M3L's (3 decimals; > 1: M3L faster).
    target_rbf_met, target_linear_met : bool
        rbf ratio > 1; linear ratio >= 0.5.
    linear_primal_rel_diff : float
        Relative difference of the linear primal objectives.
    """

    N: int
    repeats: int
    linear_ratio_liblinear_over_m3l: float
    rbf_ratio_libsvm_over_m3l: float
    target_rbf_met: bool
    target_linear_met: bool
    linear_primal_rel_diff: float


@register_bench("m3l")
def bench_m3l(*, seed: int = 0, quick: bool = False, progress: bool = False,
              repeats: int | None = None) -> ExperimentResult:
    """``polyrank bench m3l``: the full yeast training split (N = 1500;
    quick: 500), R = I, the settings of :func:`m3l_table1`; median of
    ``repeats`` (default 5; quick 1) single-threaded fits.

    Targets: rbf M3L faster than 1-vs-All SVC (ratio > 1); linear M3L
    within 2x of 1-vs-All LinearSVC (ratio >= 0.5).

    Returns
    -------
    ExperimentResult
        ``rows``: one (the timings and ratios); ``notes``: the targets
        and whether they were met.
    """
    N = 500 if quick else 1500
    repeats = check_int(repeats if repeats is not None else (1 if quick else 5), "repeats",
                        minimum=1)
    bar = progress_bar(1, "bench m3l", progress, leave=False)
    try:
        rows = _timing_rows([N], repeats, seed, bar)
    finally:
        bar.close()
    r = rows[0]
    summary = M3LBenchSummary(
        bench="m3l", quick=quick, N=N, repeats=repeats,
        linear_ratio_liblinear_over_m3l=round(r.linear_ratio, 3),
        rbf_ratio_libsvm_over_m3l=round(r.rbf_ratio, 3),
        target_rbf_met=bool(r.rbf_ratio > 1), target_linear_met=bool(r.linear_ratio >= 0.5),
        linear_primal_rel_diff=r.linear_primal_rel_diff)
    notes = ["RBF: " + speed_phrase(r.rbf_ratio, "kernel M3L", "1-vs-All SVC (libsvm)"),
             "linear: " + speed_phrase(r.linear_ratio, "linear M3L",
                                       "1-vs-All LinearSVC (LIBLINEAR)"),
             "ratios > 1 mean M3L is faster; median CPU seconds, single-threaded, same process"]
    return ExperimentResult(name="m3l", title=f"M3L vs 1-vs-All on yeast, N = {N}, R = I",
                            rows=rows, summary=summary, notes=notes)
