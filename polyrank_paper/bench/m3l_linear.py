"""``polyrank bench m3l-linear``: linear M3LClassifier (R = I) against
one-vs-rest LIBLINEAR (scikit-learn's LinearSVC) on standardised data.

With R = I, linear M3L (``m3l-multilabel-zero-shot.txt``, Sec. 6) is L
binary SVMs with penalty 2C whose bias is the weight of a constant
feature (Sec. 3, 3.1, Eq. 15-18): exactly what
``LinearSVC(loss="hinge", C=2C)`` solves per label (LIBLINEAR appends
the constant feature ``intercept_scaling`` = 1 and regularises its weight
too).  The estimator solves them as LIBLINEAR does (dual coordinate
descent with shrinking per label, :func:`polyrank.m3l.m3l_dca`,
``method="per-label"``), all labels in one pass over the data.  The bench
times it against that same-loss peer and against the peer a user reaches
for first, ``LinearSVC()`` with its defaults (squared hinge, C = 1: another
problem, compared by its test Hamming loss), on yeast and on generated
sets from 400 to 40,000 rows (the growth of time with N), and shows the
joint solve (the paper's Sec. 6 epochs over all labels, ``method="joint"``)
it replaces for a diagonal R, and M3LClassifier's strict stopping rule
(``stopping="pg"``, every projected gradient below tol) beside its default
(the relative duality gap).

Following ``DESIGN.md``, speed is reported as ratios against baselines
timed in the same run (interleaved repeats, medians of CPU seconds), never
asserted in tests.
"""

from __future__ import annotations

import math
import statistics
import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from polyrank.datasets import load_yeast
from polyrank.m3l import M3LClassifier, m3l_dca
from polyrank.validation import check_int, check_positive

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
           "M3LLinearSummary", "TARGET_SAME_LOSS", "TARGET_DEFAULT"]

#: the targets: M3LClassifier takes at most this many times one-vs-rest
#: LinearSVC(loss="hinge", C=2C) (same problem) ...
TARGET_SAME_LOSS = 1.0
#: ... and at most this many times one-vs-rest LinearSVC() with its defaults
TARGET_DEFAULT = 1.5
#: generated problems: rows (quick: the first two), features, labels
GENERATED_N = (400, 4_000, 40_000)
GENERATED_D = 100
GENERATED_L = 10


@dataclass(frozen=True)
class M3LLinearRow:
    """One problem of :func:`bench_m3l_linear`.

    Attributes
    ----------
    problem : str
    N, D, L : int
        Training points, features (before the bias feature), labels.
    m3l_s : float
        Median CPU seconds of ``M3LClassifier(C=C, tol=tol).fit`` (its
        default stopping rule, the relative duality gap at most tol).
    strict_s : float
        ``M3LClassifier(C=C, tol=tol, stopping="pg")`` (every projected
        gradient below tol, the paper's rule).
    hinge_s : float
        One-vs-rest ``LinearSVC(loss="hinge", C=2C, tol=tol/2)``.
    default_s : float
        One-vs-rest ``LinearSVC()`` (defaults).
    joint_s : float
        :func:`~polyrank.m3l.m3l_dca` with ``method="joint"`` on the same
        problem (the solve a diagonal R used before).
    ratio_hinge, ratio_default, ratio_joint : float
        m3l_s over hinge_s, default_s, joint_s.
    ratio_strict_hinge : float
        strict_s over hinge_s.
    primal_m3l, primal_strict, primal_hinge, primal_joint : float
        Primal objectives of the same problem (P2 = LIBLINEAR's primal with
        C_svm = 2C, the bias weight regularised).
    m3l_gap_rel : float
        M3L's duality gap / primal.
    m3l_epochs : int
        Epochs of the per-label solve (passes over the active examples).
    hinge_iter : int
        LIBLINEAR's iterations, largest over the labels.
    hamming_m3l_pct, hamming_hinge_pct, hamming_default_pct : float
        Test Hamming losses, percent.
    """

    problem: str = column("problem", str)
    N: int = column("N", str)
    D: int = column("D", str)
    L: int = column("L", str)
    m3l_s: float = column("M3L s", fmt_spec(".3f"))
    strict_s: float = column("M3L pg s", fmt_spec(".3f"))
    hinge_s: float = column("SVC hinge s", fmt_spec(".3f"))
    default_s: float = column("SVC default s", fmt_spec(".3f"))
    joint_s: float = column("joint s", fmt_spec(".3f"))
    ratio_hinge: float = column("M3L/hinge", fmt_spec(".2f"))
    ratio_default: float = column("M3L/default", fmt_spec(".2f"))
    ratio_joint: float = column("M3L/joint", fmt_spec(".2f"))
    ratio_strict_hinge: float = column("M3L pg/hinge", fmt_spec(".2f"))
    primal_m3l: float = column("P M3L", fmt_spec(".8g"))
    primal_strict: float = column("P M3L pg", fmt_spec(".8g"))
    primal_hinge: float = column("P hinge", fmt_spec(".8g"))
    primal_joint: float = column("P joint", fmt_spec(".8g"))
    m3l_gap_rel: float = column("M3L gap/P", fmt_spec(".1e"))
    m3l_epochs: int = column("M3L epochs", str)
    hinge_iter: int = column("SVC iter", str)
    hamming_m3l_pct: float = column("Hamming M3L %", fmt_spec(".2f"))
    hamming_hinge_pct: float = column("Hamming hinge %", fmt_spec(".2f"))
    hamming_default_pct: float = column("Hamming default %", fmt_spec(".2f"))


@record
class M3LLinearSummary(RepeatsInfo, BenchRunInfo):
    """The key figures of :func:`bench_m3l_linear` (dicts keyed by problem).

    Attributes
    ----------
    C_m3l, tol : float
    ratio_hinge, ratio_default : dict of str to float
        M3L's time over the same-loss and the default LinearSVC's (3 decimals).
    target_same_loss, target_default : float
    target_met : dict of str to bool
        Both targets met on the problem.
    primal_rel_diff : dict of str to float
        (P M3L - P hinge) / P hinge.
    growth_exponent : dict of str to float
        Slope of log(time) against log(N) over the generated problems, per
        peer ("m3l", "strict", "hinge", "default", "joint"; absent with one
        size).
    elapsed_s : float
        Seconds (2 decimals).
    """

    C_m3l: float
    tol: float
    ratio_hinge: dict
    ratio_default: dict
    target_same_loss: float
    target_default: float
    target_met: dict
    primal_rel_diff: dict
    growth_exponent: dict
    elapsed_s: float


def linear_problems(quick: bool = False, seed: int = 0, sizes=None):
    """The bench's standardised problems, labels with both classes in
    training only.

    * ``"yeast"``: :func:`polyrank.datasets.load_yeast`, its 1,500
      training genes (quick: a random 500 of them, ``seed``) and its test
      split, 103 features, 14 labels, standardised with the training
      mean and standard deviation.
    * ``"generated N"`` for N in ``sizes`` (default :data:`GENERATED_N`,
      quick: its first two):
      :func:`~polyrank_paper.bench.m3l_labels.labels_problem` with
      100 features and 10 labels.

    Returns
    -------
    list of (name, X_train, X_test, Y_train, Y_test)
        Y in {0, 1}, shapes (N, L) and (N_test, L).
    """

    d = load_yeast()
    Xtr, Ytr = d.X_train, d.Y_train
    if quick:
        idx = np.sort(np.random.default_rng(seed).choice(Xtr.shape[0], 500, replace=False))
        Xtr, Ytr = Xtr[idx], Ytr[idx]
    scaler = StandardScaler().fit(Xtr)
    out = [("yeast", scaler.transform(Xtr), scaler.transform(d.X_test), Ytr, d.Y_test)]
    if sizes is None:
        sizes = GENERATED_N[:2] if quick else GENERATED_N
    for N in sizes:
        out.append((f"generated {N:,}",)
                   + tuple(labels_problem(N, GENERATED_L, seed, GENERATED_D)))
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


def _growth(rows, attr):
    """Slope of log(time) against log(N) from the first to the last
    generated problem."""
    gen = [r for r in rows if r.problem.startswith("generated")]
    if len(gen) < 2 or gen[-1].N == gen[0].N:
        return None
    return round(math.log(getattr(gen[-1], attr) / getattr(gen[0], attr))
                 / math.log(gen[-1].N / gen[0].N), 3)


@register_bench("m3l-linear")
def bench_m3l_linear(*, quick: bool = False, seed: int = 0, progress: bool = False,
                     repeats: int | None = None, C: float = 0.1, tol: float = 1e-3,
                     sizes=None) -> ExperimentResult:
    """Time ``M3LClassifier(C=C, tol=tol)`` (linear, R = I, bias 1) against
    one-vs-rest ``LinearSVC(loss="hinge", C=2 C, tol=tol / 2)`` (the same
    problem) and one-vs-rest ``LinearSVC()`` (scikit-learn's defaults) on
    the problems of :func:`linear_problems`, and against the joint solve
    :func:`~polyrank.m3l.m3l_dca` (``method="joint"``).

    Same problem (Sec. 3.1): M3L with R = I and a bias feature of 1 is L
    SVMs with penalty 2C whose bias weight is regularised, which is what
    LIBLINEAR solves with ``intercept_scaling=1``; both primal objectives
    are printed (LinearSVC's by :func:`liblinear_primal` on the data with
    the constant feature) with M3L's duality gap.  Stopping rules: M3L
    with its defaults stops when each label's duality gap is at most
    ``tol`` times its primal objective (``stopping="gap"``, exact, over all
    variables); the strict variant ``stopping="pg"`` ("M3L pg") stops when
    every projected gradient of D2 is below ``tol`` in absolute value,
    checked on the exact gradient over all variables; LIBLINEAR stops a
    label when its active projected gradients (of y w'x - 1, half of M3L's
    G = 2 - 2 y w'x) are within ``tol / 2`` of 0 and of each other, after
    a pass over all variables, so it and "M3L pg" ask the same of the
    largest projected gradient (``max_iter`` 10^6: it is not cut short).
    ``LinearSVC()`` solves another problem (squared hinge, C = 1, with
    scikit-learn's ``dual="auto"`` the primal trust-region Newton solver
    when N >= D, stopping on the gradient norm relative to the first one)
    and is compared by its test Hamming loss.  Every fit is
    single-threaded (BLAS limited to one thread); each repeat times the
    five fits in turn (interleaved) and the rows report medians of CPU
    seconds. The numba kernels are compiled before the timings.

    Targets: M3L takes at most :data:`TARGET_SAME_LOSS` times the same-loss
    LinearSVC's time and at most :data:`TARGET_DEFAULT` times the default
    LinearSVC's, on each problem.

    Parameters
    ----------
    quick : bool
        500 yeast training points, generated N = 400 and 4,000, one repeat
        (instead of 1,500, N up to 40,000 and three repeats).
    seed : int
        Seed of the data, of the quick yeast subset and of the solvers.
    progress : bool
        Show a tqdm bar on stderr.
    repeats : int, optional
        Interleaved repeats (>= 1).
    C : float
        M3L's C (> 0, default M3LClassifier's); the same-loss LinearSVC gets 2C.
    tol : float
        M3L's tol (> 0, both rules); the same-loss LinearSVC gets tol / 2.
    sizes : sequence of int, optional
        Rows of the generated problems (default 400, 4,000, 40,000).

    Returns
    -------
    ExperimentResult
        ``rows``: one :class:`M3LLinearRow` per problem (time vs N over the
        generated ones); ``summary``: the ratios, the growth exponents and
        whether the targets are met on each problem.

    Raises
    ------
    ValueError
        Bad ``repeats``, ``C``, ``tol`` or ``sizes``.

    References
    ----------
    ``m3l-multilabel-zero-shot.txt``, Sec. 3.1 (R = I is 1-vs-All) and
    Sec. 6 (linear M3L); Hsieh et al. 2008, Alg. 3 (LIBLINEAR's solver).
    """

    repeats = check_int(repeats if repeats is not None else (1 if quick else 3), "repeats",
                        minimum=1)
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol")
    if sizes is not None:
        sizes = tuple(check_int(n, "sizes", minimum=8) for n in sizes)
    t0 = time.perf_counter()
    problems = linear_problems(quick, seed, sizes)
    # compile the kernels outside the timings
    X20, Y20 = problems[0][1][:20], problems[0][3][:20]
    m3l_dca(X20, Y20, None, C, tol=tol, method="joint", random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # 20 rows may give a trivial model
        M3LClassifier(C=C, tol=tol, random_state=seed).fit(X20, Y20)
    rows = []
    bar = progress_bar(len(problems) * repeats, "bench m3l-linear", progress, leave=False)
    try:
        with threadpool_limits(limits=1), warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for name, Xtr, Xte, Ytr, Yte in problems:
                rows.append(_problem_row(name, Xtr, Xte, Ytr, Yte, C, tol, seed, repeats,
                                         bar))
    finally:
        bar.close()
    return _linear_result(rows, quick, seed, repeats, C, tol, t0)


def _linear_result(rows, quick, seed, repeats, C, tol, t0) -> ExperimentResult:
    """The :class:`ExperimentResult` of :func:`bench_m3l_linear`: the
    summary (ratios, targets met, growth exponents) and the notes."""
    met = {r.problem: bool(r.ratio_hinge <= TARGET_SAME_LOSS
                           and r.ratio_default <= TARGET_DEFAULT) for r in rows}
    growth = {k: g for k, g in ((k, _growth(rows, f"{k}_s"))
                                for k in ("m3l", "strict", "hinge", "default", "joint"))
              if g is not None}
    summary = M3LLinearSummary(
        bench="m3l-linear", quick=quick, seed=seed, repeats=repeats, C_m3l=C, tol=tol,
        ratio_hinge={r.problem: round(r.ratio_hinge, 3) for r in rows},
        ratio_default={r.problem: round(r.ratio_default, 3) for r in rows},
        target_same_loss=TARGET_SAME_LOSS, target_default=TARGET_DEFAULT, target_met=met,
        primal_rel_diff={r.problem: (r.primal_m3l - r.primal_hinge) / r.primal_hinge
                         for r in rows},
        growth_exponent=growth, elapsed_s=round(time.perf_counter() - t0, 2))
    notes = []
    for r in rows:
        notes.append(f"{r.problem}: " + speed_phrase(1.0 / r.ratio_hinge, "M3LClassifier",
                                                     "LinearSVC(hinge, C = 2C)")
                     + f" (ratio {r.ratio_hinge:.2f}; with stopping='pg' "
                     f"{r.ratio_strict_hinge:.2f}) and "
                     + speed_phrase(1.0 / r.ratio_default, "it", "LinearSVC()")
                     + f" (ratio {r.ratio_default:.2f}); test Hamming % M3L "
                     f"{r.hamming_m3l_pct:.2f}, hinge {r.hamming_hinge_pct:.2f}, default "
                     f"{r.hamming_default_pct:.2f}")
    if growth:
        notes.append("time ~ N^k over the generated problems: "
                     + ", ".join(f"{k} k = {g:.2f}" for k, g in growth.items()))
    notes.append(f"same problem: M3LClassifier(C={C:g}) with R = I and bias 1 is L SVMs of "
                 f"penalty {2 * C:g} with a regularised bias (Sec. 3.1) = "
                 f"LinearSVC(loss='hinge', C={2 * C:g}, intercept_scaling=1); columns P "
                 "are the primal objectives; LinearSVC() (squared hinge, C = 1) is "
                 "another problem")
    notes.append(f"median CPU seconds of {repeats} interleaved repeat(s), single-threaded; "
                 f"M3L (its default stopping rule) stops when each label's duality gap is "
                 f"at most tol = {tol:g} times its primal objective, 'M3L pg' "
                 f"(stopping='pg') when every |PG| of G = 2 - 2yf is below {tol:g} (both "
                 f"exact, all variables), LinearSVC(hinge) tol = {tol / 2:g} on its "
                 "gradient (half M3L's scale: the rule of 'M3L pg')")
    return ExperimentResult(
        name="m3l-linear",
        title=f"linear M3LClassifier (R = I) vs one-vs-rest LinearSVC, standardised data, "
              f"C = {C:g} (hinge SVC C = {2 * C:g}), tol = {tol:g}",
        rows=rows, summary=summary, notes=notes)


def _problem_row(name, Xtr, Xte, Ytr, Yte, C, tol, seed, repeats, bar) -> M3LLinearRow:
    """Time the five fits on one problem (interleaved repeats) and measure
    their objectives and test Hamming losses."""
    N, L = Ytr.shape
    Xa = np.hstack([Xtr, np.ones((N, 1))])
    out = {}
    fits = {
        "m3l": lambda: M3LClassifier(C=C, tol=tol, random_state=seed).fit(Xtr, Ytr),
        "strict": lambda: M3LClassifier(C=C, tol=tol, stopping="pg",
                                        random_state=seed).fit(Xtr, Ytr),
        "hinge": lambda: OneVsRestClassifier(LinearSVC(
            loss="hinge", C=2 * C, tol=tol / 2, max_iter=1_000_000,
            random_state=seed)).fit(Xtr, Ytr),
        "default": lambda: OneVsRestClassifier(LinearSVC(random_state=seed)).fit(Xtr, Ytr),
        "joint": lambda: m3l_dca(Xa, Ytr, None, C, tol=tol, method="joint",
                                 max_iter=10_000, random_state=seed),
    }
    times = {k: [] for k in fits}
    for _ in range(repeats):
        for k, fit in fits.items():
            def run(k=k, fit=fit):
                out[k] = fit()
            times[k].append(cpu_time(run))
        bar.update()
    med = {k: statistics.median(v) for k, v in times.items()}
    m3l, hinge, default, joint = out["m3l"], out["hinge"], out["default"], out["joint"]
    strict = out["strict"]
    W = np.vstack([np.column_stack([e.coef_.ravel() for e in hinge.estimators_]),
                   [e.intercept_[0] for e in hinge.estimators_]])
    Yte_b = Yte > 0
    return M3LLinearRow(
        problem=name, N=N, D=Xtr.shape[1], L=L,
        m3l_s=med["m3l"], strict_s=med["strict"], hinge_s=med["hinge"],
        default_s=med["default"],
        joint_s=med["joint"], ratio_hinge=med["m3l"] / med["hinge"],
        ratio_default=med["m3l"] / med["default"], ratio_joint=med["m3l"] / med["joint"],
        ratio_strict_hinge=med["strict"] / med["hinge"],
        primal_m3l=float(m3l.result_.primal_objective),
        primal_strict=float(strict.result_.primal_objective),
        primal_hinge=liblinear_primal(Xa, Ytr, W, 2 * C),
        primal_joint=float(joint.primal_objective),
        m3l_gap_rel=float(m3l.result_.gap / m3l.result_.primal_objective),
        m3l_epochs=int(m3l.result_.epochs),
        hinge_iter=int(max(int(e.n_iter_) for e in hinge.estimators_)),
        hamming_m3l_pct=100 * float(np.mean((m3l.decision_function(Xte) > 0) != Yte_b)),
        hamming_hinge_pct=100 * float(np.mean((hinge.decision_function(Xte) > 0) != Yte_b)),
        hamming_default_pct=100 * float(np.mean((default.decision_function(Xte) > 0)
                                                != Yte_b)))
