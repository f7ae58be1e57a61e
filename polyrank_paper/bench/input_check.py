"""``polyrank bench input-check``: what the input gate costs (issue 28, item 1).

Every estimator's ``fit`` checks a sparse X's structure (``indptr``,
``indices``) in O(nnz), converts it to canonical CSR and refuses entries
whose squares overflow (:func:`polyrank.validation.validate_X`) on top of
scikit-learn's own ``validate_data``.  This bench times, interleaved on the
same data (medians of CPU seconds):

* scikit-learn's ``validate_data`` alone, as the estimators called it before;
* polyrank's gate (``validate_X``: the same call with the checks around it);
* the whole ``fit`` it guards,

on sparse LETOR MQ2008 (RankSVM, the paper's data set, 9,630 x 46 stored as
CSR) and on W8a (SignConstrainedClassifier, 49,749 x 300, 3.9 % non-zero),
and reports the gate's extra time as a fraction of the fit.  The target is
under 5 %.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

from polyrank import RankSVM, SignConstrainedClassifier
from polyrank.datasets import load_mq2008, load_w8a
from polyrank.validation import validate_X

from .._harness import cpu_time
from ..registry import ExperimentResult, RepeatedBench, column, fmt_spec, record, register_bench

__all__ = ["bench_input_check", "InputCheckRow", "InputCheckSummary"]


@dataclass(frozen=True)
class InputCheckRow:
    """The timings of one data set of :func:`bench_input_check`.

    Attributes
    ----------
    data : str
        Data set and estimator.
    nnz : int
        Stored entries of X.
    sklearn_s, gate_s, fit_s : float
        Median CPU seconds of scikit-learn's ``validate_data`` alone, of
        polyrank's gate (``validate_X``) and of the whole ``fit``.
    extra_pct : float
        (gate_s - sklearn_s) / fit_s in percent: what the gate adds.
    """

    data: str = column("data, estimator")
    nnz: int = column("nnz", fmt_spec(","))
    sklearn_s: float = column("validate_data s", fmt_spec(".4f"))
    gate_s: float = column("gate s", fmt_spec(".4f"))
    fit_s: float = column("fit s", fmt_spec(".3f"))
    extra_pct: float = column("gate extra % of fit", fmt_spec(".2f"))


@record
class InputCheckSummary(RepeatedBench):
    """The key figure of :func:`bench_input_check`.

    Attributes
    ----------
    max_extra_pct : float
        The largest ``extra_pct`` of the rows.
    target_met : bool
        ``max_extra_pct < 5``.
    """

    max_extra_pct: float
    target_met: bool


def _cases(quick: bool):
    mq = load_mq2008()
    X = sp.csr_matrix(mq.X_train)
    yield ("MQ2008 train (CSR), RankSVM()", RankSVM(), X, mq.y_train,
           {"qid": mq.qid_train})
    Xw, yw = load_w8a()
    if quick:
        Xw, yw = Xw[:10000], yw[:10000]
    yield ("W8a, SignConstrainedClassifier()", SignConstrainedClassifier(), Xw, yw, {})


@register_bench("input-check")
def bench_input_check(*, quick: bool = False, seed: int = 0, progress: bool = False,
                      repeats: int = 7) -> ExperimentResult:
    """Time the input gate (see the module docstring).

    Parameters
    ----------
    quick : bool
        Three repeats and the first 10,000 rows of W8a.
    seed, progress
        Unused (deterministic; short).
    repeats : int
        Interleaved repeats of each timing (medians are reported).

    Returns
    -------
    ExperimentResult
        One :class:`InputCheckRow` per data set; ``summary``
        (:class:`InputCheckSummary`) with the largest extra percentage.
    """
    import warnings

    repeats = 3 if quick else repeats
    rows = []
    for name, est, X, y, kw in _cases(quick):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y, **kw)                                  # compile, caches
        times = {"sklearn": [], "gate": [], "fit": []}
        for _ in range(repeats):
            times["sklearn"].append(cpu_time(lambda est=est, X=X, y=y: validate_data(
                est, X, y, accept_sparse="csr", dtype=np.float64, reset=True)))
            times["gate"].append(cpu_time(lambda est=est, X=X, y=y: validate_X(
                est, X, y, accept_sparse="csr", dtype=np.float64, reset=True)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                times["fit"].append(cpu_time(lambda est=est, X=X, y=y, kw=kw: est.fit(X, y, **kw)))
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append(InputCheckRow(
            data=name, nnz=int(X.nnz), sklearn_s=med["sklearn"], gate_s=med["gate"],
            fit_s=med["fit"], extra_pct=100.0 * (med["gate"] - med["sklearn"]) / med["fit"]))
    worst = max(r.extra_pct for r in rows)
    notes = [f"the input gate adds at most {worst:.2f} % to a fit (target < 5 %: "
             f"{'met' if worst < 5 else 'NOT met'})"]
    summary = InputCheckSummary(bench="input-check", quick=quick, repeats=repeats,
                                max_extra_pct=worst, target_met=worst < 5)
    return ExperimentResult("input-check", "The input gate's cost: sparse structure, "
                            "canonical CSR, overflow check", rows, summary, notes=notes)
