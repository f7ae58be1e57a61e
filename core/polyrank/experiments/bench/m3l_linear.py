"""``polyrank bench m3l-linear``: linear M3L (R = I) against 1-vs-All
LIBLINEAR on standardised data.

With R = I, linear M3L (``m3l-multilabel-zero-shot.txt``, Sec. 6, dual
coordinate ascent with shrinkage) is L binary SVMs without bias and with
penalty 2C (Sec. 3.1, Eq. 15-18): exactly what
``LinearSVC(loss="hinge", fit_intercept=False, C=2C, dual=True)`` solves
per label, by the same kind of algorithm (Hsieh et al. 2008). On
standardised data the solves take thousands of epochs, most of them over
a few active variables, so this bench measures the fixed cost of an epoch
as much as the cost of a coordinate update.

Following ``DESIGN.md``, speed is reported as ratios against a baseline
timed in the same run (interleaved repeats, medians of CPU seconds), never
asserted in tests.
"""

from __future__ import annotations

import statistics
import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from ...datasets import load_yeast
from ...m3l import m3l_dca
from ...validation import check_int, check_positive
from .._harness import cpu_time, progress_bar
from ..registry import (
    BenchRunInfo,
    ExperimentResult,
    RepeatsInfo,
    column,
    fmt_spec,
    record,
    register_bench,
    speed_phrase,
)
from .m3l_labels import labels_problem

__all__ = ["bench_m3l_linear", "linear_problems", "liblinear_primal", "M3LLinearRow",
           "M3LLinearSummary"]





@dataclass(frozen=True)
class M3LLinearRow:
    """One problem of :func:`bench_m3l_linear`.

    Attributes
    ----------
    problem : str
    N, D, L : int
        Training points, features, labels.
    m3l_s, svc_s : float
        Median CPU seconds of linear M3L and of 1-vs-All LinearSVC.
    time_ratio : float
        m3l_s / svc_s.
    primal_m3l, primal_svc : float
        Both primal objectives (the same problem).
    primal_rel_diff : float
        (primal_m3l - primal_svc) / primal_svc.
    m3l_gap_rel : float
        M3L's duality gap / primal.
    m3l_status : str
    m3l_epochs, m3l_checks : int
        M3L's epochs and its stopping checks.
    m3l_ns_per_visit : float
        Nanoseconds per visited variable.
    svc_epochs : int
        LinearSVC's iterations summed over labels.
    hamming_m3l_pct, hamming_svc_pct : float
        Test Hamming losses, percent.
    """

    problem: str = column("problem", str)
    N: int = column("N", str)
    D: int = column("D", str)
    L: int = column("L", str)
    m3l_s: float = column("M3L s", fmt_spec(".4f"))
    svc_s: float = column("LinearSVC s", fmt_spec(".4f"))
    time_ratio: float = column("M3L/SVC", fmt_spec(".2f"))
    primal_m3l: float = column("P M3L", fmt_spec(".8g"))
    primal_svc: float = column("P SVC", fmt_spec(".8g"))
    primal_rel_diff: float = column()
    m3l_gap_rel: float = column("M3L gap/P", fmt_spec(".1e"))
    m3l_status: str = column()
    m3l_epochs: int = column("M3L epochs", str)
    m3l_checks: int = column("checks", str)
    m3l_ns_per_visit: float = column("ns/visit", fmt_spec(".0f"))
    svc_epochs: int = column("SVC epochs", str)
    hamming_m3l_pct: float = column("Hamming M3L %", fmt_spec(".2f"))
    hamming_svc_pct: float = column("Hamming SVC %", fmt_spec(".2f"))


@record
class M3LLinearSummary(RepeatsInfo, BenchRunInfo):
    """The key figures of :func:`bench_m3l_linear` (dicts keyed by problem).

    Attributes
    ----------
    C_m3l, C_svc, tol : float
    time_ratio_m3l_over_svc : dict of str to float
        3 decimals.
    target_time_ratio : float
    target_met : dict of str to bool
    primal_rel_diff : dict of str to float
    elapsed_s : float
        Seconds (2 decimals).
    """

    C_m3l: float
    C_svc: float
    tol: float
    time_ratio_m3l_over_svc: dict
    target_time_ratio: float
    target_met: dict
    primal_rel_diff: dict
    elapsed_s: float

#: the target: linear M3L takes at most this many times LinearSVC's time
TARGET_TIME_RATIO = 1.5


def linear_problems(quick: bool = False, seed: int = 0):
    """The bench's two standardised problems, labels with both classes in
    training only.

    * ``"emotions-like"``: :func:`~polyrank.experiments.bench.m3l_labels.labels_problem`
      with N = 500 (quick: 400) training points, 72 features and 6 labels
      (the shape of the emotions data, 391-593 x 72 x 6).
    * ``"yeast"``: :func:`polyrank.datasets.load_yeast`, its 1,500
      training genes (quick: a random 500 of them, ``seed``) and its test
      split, 103 features, 14 labels, standardised with the training
      mean and standard deviation.

    Returns
    -------
    list of (name, X_train, X_test, Y_train, Y_test)
        Y in {0, 1}, shapes (N, L) and (N_test, L).
    """

    out = [("emotions-like",) + tuple(labels_problem(400 if quick else 500, 6, seed, 72))]
    d = load_yeast()
    Xtr, Ytr = d.X_train, d.Y_train
    if quick:
        idx = np.sort(np.random.default_rng(seed).choice(Xtr.shape[0], 500, replace=False))
        Xtr, Ytr = Xtr[idx], Ytr[idx]
    scaler = StandardScaler().fit(Xtr)
    out.append(("yeast", scaler.transform(Xtr), scaler.transform(d.X_test), Ytr, d.Y_test))
    problems = []
    for name, Xtr, Xte, Ytr, Yte in out:
        keep = Ytr.min(axis=0) < Ytr.max(axis=0)
        problems.append((name, np.ascontiguousarray(Xtr, dtype=np.float64),
                         np.ascontiguousarray(Xte, dtype=np.float64),
                         Ytr[:, keep].astype(np.float64), Yte[:, keep].astype(np.float64)))
    return problems


def liblinear_primal(X, Y, W, C_svm: float) -> float:
    """Sum over the labels of 1/2 w_l'w_l + C_svm sum_i max(0, 1 - y_il
    w_l'x_i), LIBLINEAR's L1-loss SVM primal without bias; with
    C_svm = 2C it equals M3L's P2 for R = I (Sec. 3.1).

    Parameters
    ----------
    X : ndarray, shape (N, D)
    Y : ndarray, shape (N, L)
        Labels in {0, 1} or {-1, +1}.
    W : ndarray, shape (D, L)
    C_svm : float

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> liblinear_primal(np.eye(2), np.array([[1], [0]]), np.array([[1.0], [0.0]]), 1.0)
    1.5
    """
    Ypm = np.where(np.asarray(Y) > 0, 1.0, -1.0)
    return float(0.5 * np.sum(W * W) + C_svm * np.maximum(0.0, 1.0 - Ypm * (X @ W)).sum())


@register_bench("m3l-linear", "linear M3L (R = I, DCA with shrinkage) vs 1-vs-All "
                "LinearSVC(hinge, no intercept, C = 2C) on standardised emotions-like "
                "(500 x 72, 6 labels) and yeast (1,500 x 103, 14 labels) data")
def bench_m3l_linear(*, quick: bool = False, seed: int = 0, progress: bool = False,
                     repeats: int | None = None, C: float = 0.5,
                     tol: float = 1e-3) -> ExperimentResult:
    """Time :func:`~polyrank.m3l.m3l_dca` (R = I, ``C``, ``tol``, shrinking,
    seed ``seed``) against ``LinearSVC(loss="hinge", fit_intercept=False,
    C=2 C, dual=True, tol=tol)`` fitted label by label on the problems of
    :func:`linear_problems`.

    Same problem (Sec. 3.1): M3L with R = I is L bias-free SVMs with
    penalty 2C; both primal objectives are printed (LinearSVC's by
    :func:`liblinear_primal`) with M3L's duality gap. Stopping rules, as
    close as the two allow: M3L stops when every projected gradient of D2
    is below ``tol`` in absolute value, checked on the exact gradient over
    all variables; LIBLINEAR stops a label when the spread max PG - min PG
    of its active projected gradients is at most the same ``tol``, on its own
    gradient y w'x - 1, which is half of M3L's G = 2 - 2 y w'x in
    magnitude, so LIBLINEAR's rule is no stricter than M3L's. Every fit is
    single-threaded (BLAS limited to one thread); each repeat times M3L
    then LinearSVC (interleaved) and the rows report medians of CPU
    seconds. The numba kernels are compiled before the timings.

    Target: M3L takes at most 1.5x LinearSVC's time on each problem.

    Parameters
    ----------
    quick : bool
        400 emotions-like and 500 yeast training points, one repeat
        (instead of 500, 1,500 and five repeats).
    seed : int
        Seed of the data, of the quick yeast subset and of both solvers.
    progress : bool
        Show a tqdm bar on stderr.
    repeats : int, optional
        Interleaved repeats (>= 1).
    C : float
        M3L's C (> 0); LinearSVC gets 2C.
    tol : float
        M3L's tol and LinearSVC's tol, the same value (> 0).

    Returns
    -------
    ExperimentResult
        ``rows``: one :class:`M3LLinearRow` per problem with ``N``, ``D``, ``L``, ``m3l_s``,
        ``svc_s`` (median CPU seconds), ``time_ratio`` (m3l_s / svc_s),
        ``primal_m3l``, ``primal_svc``, ``primal_rel_diff``,
        ``m3l_gap_rel`` (duality gap / primal), ``m3l_epochs``,
        ``m3l_checks`` (duality-gap checks), ``m3l_ns_per_visit`` (CPU
        nanoseconds per variable visit, checks included), ``svc_epochs``
        (LIBLINEAR iterations summed over the labels), ``hamming_m3l_pct``,
        ``hamming_svc_pct`` (test Hamming loss, %); ``summary``: the
        ratios and whether the target is met on each problem.

    Raises
    ------
    ValueError
        Bad ``repeats``, ``C`` or ``tol``.

    Source
    ------
    ``m3l-multilabel-zero-shot.txt``, Sec. 3.1 (R = I is 1-vs-All) and
    Sec. 6 (linear M3L).
    """

    repeats = check_int(repeats if repeats is not None else (1 if quick else 5), "repeats",
                        minimum=1)
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol")
    t0 = time.perf_counter()
    problems = linear_problems(quick, seed)
    # compile the kernels outside the timings
    m3l_dca(problems[0][1][:20], problems[0][3][:20], None, C, tol=tol, random_state=seed)
    rows = []
    bar = progress_bar(len(problems) * repeats, "bench m3l-linear", progress, leave=False)
    try:
        with threadpool_limits(limits=1), warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for name, Xtr, Xte, Ytr, Yte in problems:
                N, L = Ytr.shape
                out = {}

                def fit_m3l(Xtr=Xtr, Ytr=Ytr, out=out):
                    out["m3l"] = m3l_dca(Xtr, Ytr, None, C, tol=tol, random_state=seed)

                def fit_svc(Xtr=Xtr, Ytr=Ytr, L=L, out=out):
                    out["svc"] = [LinearSVC(loss="hinge", fit_intercept=False, C=2 * C,
                                            dual=True, tol=tol, max_iter=1_000_000,
                                            random_state=seed).fit(Xtr, Ytr[:, lab])
                                  for lab in range(L)]

                t_m3l, t_svc = [], []
                for _ in range(repeats):
                    t_m3l.append(cpu_time(fit_m3l))
                    t_svc.append(cpu_time(fit_svc))
                    bar.update()
                res = out["m3l"]
                W = np.column_stack([m.coef_.ravel() for m in out["svc"]])
                p_svc = liblinear_primal(Xtr, Ytr, W, 2 * C)
                p_m3l = float(res.primal_objective)
                m3l_s = statistics.median(t_m3l)
                svc_s = statistics.median(t_svc)
                Yte_b = Yte > 0
                rows.append(M3LLinearRow(
                    problem=name, N=N, D=Xtr.shape[1], L=L,
                    m3l_s=m3l_s, svc_s=svc_s, time_ratio=m3l_s / svc_s,
                    primal_m3l=p_m3l, primal_svc=p_svc,
                    primal_rel_diff=(p_m3l - p_svc) / p_svc,
                    m3l_gap_rel=float(res.gap / res.primal_objective),
                    m3l_status=res.status,
                    m3l_epochs=int(res.epochs), m3l_checks=int(res.nit),
                    m3l_ns_per_visit=1e9 * m3l_s / max(1, res.visits),
                    svc_epochs=int(sum(int(m.n_iter_) for m in out["svc"])),
                    hamming_m3l_pct=100 * float(np.mean((Xte @ res.x > 0) != Yte_b)),
                    hamming_svc_pct=100 * float(np.mean((Xte @ W > 0) != Yte_b))))
    finally:
        bar.close()
    met = {r.problem: bool(r.time_ratio <= TARGET_TIME_RATIO) for r in rows}
    summary = M3LLinearSummary(
        bench="m3l-linear", quick=quick, seed=seed, repeats=repeats, C_m3l=C, C_svc=2 * C,
        tol=tol, time_ratio_m3l_over_svc={r.problem: round(r.time_ratio, 3) for r in rows},
        target_time_ratio=TARGET_TIME_RATIO, target_met=met,
        primal_rel_diff={r.problem: r.primal_rel_diff for r in rows},
        elapsed_s=round(time.perf_counter() - t0, 2))
    notes = [f"{r.problem}: " + speed_phrase(1.0 / r.time_ratio, "linear M3L",
                                                 "1-vs-All LinearSVC (LIBLINEAR)")
             + f" (time ratio M3L / LinearSVC {r.time_ratio:.2f})"
             for r in rows]
    notes.append(f"same problem: M3L(C={C:g}, R = I) is L SVMs without bias and penalty "
                 f"{2 * C:g} (Sec. 3.1) = LinearSVC(hinge, fit_intercept=False, "
                 f"C={2 * C:g}); columns P are both primal objectives")
    notes.append(f"median CPU seconds of {repeats} interleaved repeat(s), single-threaded; "
                 f"M3L tol = {tol:g} on max |PG| of G = 2 - 2yf (exact, all variables), "
                 f"LinearSVC tol = {tol:g} on its PG spread (half M3L's gradient scale)")
    return ExperimentResult(
        name="m3l-linear",
        title=f"linear M3L (R = I) vs 1-vs-All LinearSVC, standardised data, C = {C:g} "
              f"(SVC C = {2 * C:g}), tol = {tol:g} (both)",
        rows=rows, summary=summary, notes=notes)
