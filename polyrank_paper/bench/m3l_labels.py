"""``polyrank bench m3l-labels``: kernel M3L against 1-vs-All SVC as the
number of labels grows.

The M3L paper (``m3l-multilabel-zero-shot.txt``, Sec. 7.1, Table 1)
reports kernel M3L 10-30x faster than LibSVM 1-vs-All, because one kernel
row serves every label (Sec. 5.1.3), while 1-vs-All recomputes it for
each label. This bench measures that on synthetic data
(:func:`sklearn.datasets.make_multilabel_classification`) for growing L.

Following ``DESIGN.md``, speed is reported as ratios against a baseline
timed in the same run (interleaved repeats, medians), never asserted in
tests.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.datasets import make_multilabel_classification
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from polyrank.datasets import load_yeast
from polyrank.kernels import kernel_matrix
from polyrank.m3l import M3LClassifier
from polyrank.m3l.estimator import DEFAULT_C
from polyrank.validation import check_int, check_positive

from .._harness import cpu_time, progress_bar
from ..registry import (
    BenchRunInfo,
    ExperimentResult,
    column,
    fmt_spec,
    record,
    register_bench,
    speed_phrase,
)

__all__ = ["bench_m3l_labels", "bench_m3l_labels_wide", "bench_m3l_rows", "labels_problem",
           "yeast_rows", "svc_primal", "M3LLabelsRow", "M3LLabelsSummary", "M3LRowsRow",
           "M3LRowsSummary"]





@dataclass(frozen=True)
class M3LLabelsRow:
    """One number of labels of :func:`bench_m3l_labels`.

    Attributes
    ----------
    L, N : int
        Labels and training points.
    m3l_s, svc_s : float
        Median CPU seconds of kernel M3L and of 1-vs-All SVC.
    speedup : float
        svc_s / m3l_s.
    hamming_m3l_pct, hamming_svc_pct : float
        Test Hamming losses, percent.
    hamming_diff_pp : float
        M3L - SVC, percentage points.
    primal_m3l, primal_svc : float
        Sums over labels of the binary SVM primals (SVC's with its
        intercepts).
    m3l_gap_rel : float
        M3L's duality gap / primal.
    m3l_steps : int
        M3L's variable updates.
    m3l_solver : str
        ``"m3l-cd"`` or ``"m3l-smo"``.
    cache_misses : int
        Kernel rows M3L computed.
    svc_gram_s : float or None
        Median CPU seconds of SVC given the Gram matrix (None: not run).
    """

    L: int = column("L", str)
    N: int = column()
    m3l_s: float = column("M3L s", fmt_spec(".3f"))
    svc_s: float = column("1-vs-All SVC s", fmt_spec(".3f"))
    speedup: float = column("SVC/M3L", fmt_spec(".2f"))
    hamming_m3l_pct: float = column("Hamming M3L %", fmt_spec(".2f"))
    hamming_svc_pct: float = column("Hamming SVC %", fmt_spec(".2f"))
    hamming_diff_pp: float = column()
    primal_m3l: float = column("P M3L", fmt_spec(".6g"))
    primal_svc: float = column("P SVC (+b)", fmt_spec(".6g"))
    m3l_gap_rel: float = column("M3L gap/P", fmt_spec(".1e"))
    m3l_steps: int = column("M3L steps", str)
    m3l_solver: str = column()
    cache_misses: int = column()
    svc_gram_s: float | None = column("SVC given K s", fmt_spec(".3f"))


@record
class M3LLabelsSummary(BenchRunInfo):
    """The key figures of :func:`bench_m3l_labels`.

    Attributes
    ----------
    N : int
    Ls : tuple of int
    n_features, repeats : int
    C_m3l, C_svc, gamma, tol : float
    speedups : tuple of float
        svc_s / m3l_s per L (3 decimals).
    speedup_grows_with_L : bool
    speedup_at_40 : float or None
    speedup_at_40_ge_10 : bool or None
    hamming_within_half_point : bool
    max_abs_hamming_diff_pp : float
        Percentage points.
    elapsed_s : float
        Seconds (2 decimals).
    """

    N: int
    Ls: tuple
    n_features: int
    repeats: int
    C_m3l: float
    C_svc: float
    gamma: float
    tol: float
    speedups: tuple
    speedup_grows_with_L: bool
    speedup_at_40: float | None
    speedup_at_40_ge_10: bool | None
    hamming_within_half_point: bool
    max_abs_hamming_diff_pp: float
    elapsed_s: float

#: number of features of the synthetic problems
N_FEATURES = 50


def labels_problem(N: int, L: int, seed: int = 0, n_features: int = N_FEATURES):
    """A standardised synthetic multi-label problem with ``N`` training and
    ``N // 4`` test points.

    :func:`sklearn.datasets.make_multilabel_classification` with
    ``n_samples = N + N // 4``, ``n_features``, ``n_classes = L`` and
    ``random_state = seed`` (its defaults otherwise: on average 2 labels
    per point), split by :func:`~sklearn.model_selection.train_test_split`
    (``train_size = N``, same seed), then standardised with the mean and
    standard deviation of the training points.

    Returns
    -------
    (X_train, X_test, Y_train, Y_test) : ndarrays
        Shapes (N, n_features), (N // 4, n_features), (N, L), (N // 4, L);
        Y in {0, 1}.

    Raises
    ------
    ValueError
        If ``N < 8``, ``L < 1`` or ``n_features < 1``.

    Examples
    --------
    >>> Xtr, Xte, Ytr, Yte = labels_problem(40, 3)
    >>> Xtr.shape, Xte.shape, Ytr.shape
    ((40, 50), (10, 50), (40, 3))
    """

    N = check_int(N, "N", minimum=8)
    L = check_int(L, "L", minimum=1)
    n_features = check_int(n_features, "n_features", minimum=1)
    X, Y = make_multilabel_classification(n_samples=N + N // 4, n_features=n_features,
                                          n_classes=L, random_state=seed)
    Xtr, Xte, Ytr, Yte = train_test_split(X, Y, train_size=N, random_state=seed)
    scaler = StandardScaler().fit(Xtr)
    return scaler.transform(Xtr), scaler.transform(Xte), Ytr, Yte


def svc_primal(K, Y, models, C_svm: float) -> float:
    """Sum over the labels of the primal objective of each fitted binary
    ``SVC``, 1/2 beta'K beta + C_svm sum_i max(0, 1 - y_i (K beta + b)_i),
    with its free intercept b.

    Parameters
    ----------
    K : ndarray, shape (N, N)
        The training Gram matrix.
    Y : ndarray, shape (N, L)
        Labels in {-1, +1}.
    models : sequence of fitted :class:`sklearn.svm.SVC`, length L
        Model l fitted on (X, Y[:, l]) (``dual_coef_`` = y_i beta_i on
        ``support_``).
    C_svm : float
        The SVC penalty.

    Returns
    -------
    float
    """
    N, L = Y.shape
    B = np.zeros((N, L))
    b = np.zeros(L)
    for lab, m in enumerate(models):
        if not hasattr(m, "support_"):           # a constant label column
            b[lab] = 1.0 if Y[0, lab] > 0 else -1.0
            continue
        # classes_ = (0, 1) or (-1, 1): the decision is positive for +1
        B[m.support_, lab] = m.dual_coef_.ravel()
        b[lab] = m.intercept_[0]
    F = K @ B
    return float(0.5 * np.sum(B * F) + C_svm * np.maximum(0.0, 1.0 - Y * (F + b)).sum())


@register_bench("m3l-labels")
def bench_m3l_labels(*, quick: bool = False, seed: int = 0, progress: bool = False,
                     repeats: int | None = None, Ls: Sequence[int] | None = None,
                     N: int | None = None, C: float = 1.0, gamma: float | None = None,
                     tol: float = 1e-3, cache_mb: float = 200.0,
                     precomputed: bool = True,
                     n_features: int = N_FEATURES) -> ExperimentResult:
    """Time ``M3LClassifier(kernel="rbf", C=C, gamma=gamma)`` (R = I; its
    kernel solver :func:`~polyrank.m3l.m3l_smo` with ``method="auto"``:
    example-major coordinate ascent on the whole Gram matrix when it fits
    in ``cache_mb``, SMO otherwise) against
    ``OneVsRestClassifier(SVC(kernel="rbf", C=2 C, gamma=gamma))``
    on :func:`labels_problem` for each number of labels L.

    The two fit nearly the same problem: with R = I, M3L is L binary SVMs
    without bias and with penalty 2C (Sec. 3.1, Eq. 15-18 of
    ``m3l-multilabel-zero-shot.txt``), so SVC gets ``C = 2 C``; SVC adds a
    free intercept per label (M3L's constant feature has no effect with
    the translation-invariant rbf kernel), so its optimum is at most M3L's.
    Both objectives are printed (the sums over labels of the binary SVM
    primals), with M3L's duality gap.  Stopping rules: ``tol`` for M3L
    (max |projected gradient| of D2, twice LIBSVM's gradient scale) and
    the same ``tol`` for SVC (its max-violating-pair gap), both with a
    ``cache_mb`` kernel cache.  Every fit is single-threaded (BLAS limited
    to one thread); each repeat times M3L then SVC (interleaved), and the
    rows report medians of CPU seconds.

    Parameters
    ----------
    quick : bool
        N = 1,000 and L = 10, 20, one repeat (instead of N = 4,000,
        L = 10, 20, 40, 80 and five repeats: a fit of a few tenths of a
        second varies by 10-20 % from run to run).
    seed : int
        Seed of the data (:func:`labels_problem`).
    progress : bool
        Show a tqdm bar on stderr.
    repeats : int, optional
        Interleaved repeats (>= 1).
    Ls : sequence of int, optional
        Numbers of labels (each >= 1).
    N : int, optional
        Training points (>= 8); N // 4 more are the test points.
    C : float
        M3L's C (> 0); SVC gets 2 C.
    gamma : float, optional
        rbf width of both (default 1 / n_features: what SVC's
        ``gamma="scale"`` gives on standardised data).
    tol : float
        M3L's tol and SVC's tol, the same value (> 0).
    cache_mb : float
        Kernel cache of both, in MB (> 0).
    precomputed : bool
        Also time ``OneVsRestClassifier(SVC(kernel="precomputed"))`` given
        the training Gram matrix (computed once, outside the timings): SVC
        without kernel evaluations, i.e. what is left of 1-vs-All once
        every kernel row is shared.
    n_features : int
        Features of the synthetic data (>= 1; default 50). A kernel row
        costs O(N n_features): the more features, the larger the share of
        1-vs-All's time that computing rows again for every label takes.

    Returns
    -------
    ExperimentResult
        ``rows``: one :class:`M3LLabelsRow` per L with ``m3l_s``, ``svc_s`` (median CPU seconds),
        ``speedup`` (svc_s / m3l_s), ``hamming_m3l_pct``,
        ``hamming_svc_pct`` (test Hamming loss, %), ``hamming_diff_pp``
        (M3L - SVC, percentage points), ``primal_m3l``, ``primal_svc``
        (sums of the binary SVM primals, SVC's with its intercepts),
        ``m3l_gap_rel`` (M3L's duality gap / primal), ``m3l_steps``
        (variable updates), ``m3l_solver`` (``result_.solver``: "m3l-cd" or
        "m3l-smo"), ``cache_misses`` (kernel rows computed),
        ``svc_gram_s`` (the precomputed-kernel SVC, or None);
        ``summary``: a :class:`M3LLabelsSummary`, the speed-ups, whether
        they grow with L, whether the
        speed-up is >= 10x at L = 40 and the Hamming losses agree within
        0.5 points.

    Raises
    ------
    ValueError
        Bad ``repeats``, ``Ls``, ``N``, ``C``, ``gamma``, ``tol``,
        ``cache_mb``.
    """

    N = check_int(N if N is not None else (1000 if quick else 4000), "N", minimum=8)
    Ls = [check_int(L, "Ls", minimum=1) for L in (Ls or ((10, 20) if quick
                                                       else (10, 20, 40, 80)))]
    repeats = check_int(repeats if repeats is not None else (1 if quick else 5), "repeats",
                        minimum=1)
    C = check_positive(C, "C")
    n_features = check_int(n_features, "n_features", minimum=1)
    gamma = check_positive(gamma if gamma is not None else 1.0 / n_features, "gamma")
    tol = check_positive(tol, "tol")
    cache_mb = check_positive(cache_mb, "cache_mb")
    t0 = time.perf_counter()
    # compile the kernels outside the timings
    Xw, _, Yw, _ = labels_problem(40, 3, seed, n_features)
    M3LClassifier(kernel="rbf", gamma=gamma, C=C).fit(Xw, Yw)
    rows = []
    dtypes = []
    bar = progress_bar(len(Ls) * repeats, "bench m3l-labels", progress, leave=False)
    try:
        with threadpool_limits(limits=1):
            for L in Ls:
                row, dtype = _labels_row(L, N, seed, n_features, C, gamma, tol, cache_mb,
                                         repeats, precomputed, bar)
                rows.append(row)
                if dtype is not None:
                    dtypes.append(dtype)
    finally:
        bar.close()
    return _labels_result(rows, dtypes, quick, seed, N, Ls, n_features, repeats, C, gamma,
                          tol, cache_mb, precomputed, t0)


def _labels_row(L, N, seed, n_features, C, gamma, tol, cache_mb, repeats, precomputed,
                bar):
    """The :class:`M3LLabelsRow` of L labels (interleaved timed repeats of
    M3L, SVC and, with ``precomputed``, SVC given K; medians), and the Gram
    dtype of M3L's "m3l-cd" solver (None for "m3l-smo")."""
    Xtr, Xte, Ytr, Yte = labels_problem(N, L, seed, n_features)
    m3l = M3LClassifier(kernel="rbf", C=C, gamma=gamma, bias=0.0, tol=tol,
                        cache_mb=cache_mb, random_state=seed)
    svc = OneVsRestClassifier(SVC(kernel="rbf", C=2 * C, gamma=gamma, tol=tol,
                                  cache_size=cache_mb))
    K = kernel_matrix(Xtr, kernel="rbf", gamma=gamma)
    svc_k = OneVsRestClassifier(SVC(kernel="precomputed", C=2 * C, tol=tol,
                                    cache_size=cache_mb))
    t_m3l, t_svc, t_svc_k = [], [], []
    for _ in range(repeats):
        t_m3l.append(cpu_time(lambda: m3l.fit(Xtr, Ytr)))
        t_svc.append(cpu_time(lambda: svc.fit(Xtr, Ytr)))
        if precomputed:
            t_svc_k.append(cpu_time(lambda: svc_k.fit(K, Ytr)))
        bar.update()
    ham_m3l = 100 * float(np.mean(m3l.predict(Xte) != Yte))
    ham_svc = 100 * float(np.mean(svc.predict(Xte) != Yte))
    p_svc = svc_primal(K, 2.0 * Ytr - 1.0, svc.estimators_, 2 * C)
    res = m3l.result_
    m3l_s = statistics.median(t_m3l)
    svc_s = statistics.median(t_svc)
    row = M3LLabelsRow(
        L=L, N=N, m3l_s=m3l_s, svc_s=svc_s, speedup=svc_s / m3l_s,
        hamming_m3l_pct=ham_m3l, hamming_svc_pct=ham_svc,
        hamming_diff_pp=ham_m3l - ham_svc,
        primal_m3l=float(res.primal_objective), primal_svc=p_svc,
        m3l_gap_rel=float(res.gap / res.primal_objective),
        m3l_steps=int(res.trace.steps[-1]), m3l_solver=res.solver,
        cache_misses=int(res.cache_misses),
        svc_gram_s=statistics.median(t_svc_k) if precomputed else None)
    return row, (res.gram_dtype if res.solver == "m3l-cd" else None)


def _labels_result(rows, dtypes, quick, seed, N, Ls, n_features, repeats, C, gamma, tol,
                   cache_mb, precomputed, t0) -> ExperimentResult:
    """The :class:`ExperimentResult` of :func:`bench_m3l_labels`: the
    summary and the notes (speed-ups, Hamming agreement, the solver used)."""
    speedups = [r.speedup for r in rows]
    grows = all(b >= a for a, b in zip(speedups, speedups[1:]))
    at40 = next((r for r in rows if r.L == 40), None)
    ham_ok = all(abs(r.hamming_diff_pp) <= 0.5 for r in rows)
    summary = M3LLabelsSummary(
        bench="m3l-labels", quick=quick, seed=seed, N=N, Ls=tuple(Ls), n_features=n_features,
        repeats=repeats, C_m3l=C, C_svc=2 * C, gamma=gamma, tol=tol,
        speedups=tuple(round(s, 3) for s in speedups), speedup_grows_with_L=bool(grows),
        speedup_at_40=None if at40 is None else round(at40.speedup, 3),
        speedup_at_40_ge_10=None if at40 is None else bool(at40.speedup >= 10),
        hamming_within_half_point=bool(ham_ok),
        max_abs_hamming_diff_pp=max(abs(r.hamming_diff_pp) for r in rows),
        elapsed_s=round(time.perf_counter() - t0, 2))
    notes = [f"L = {r.L}: " + speed_phrase(r.speedup, "kernel M3L",
                                               "1-vs-All SVC (libsvm)")
             + f" (M3L {r.m3l_s:.2f} s, SVC {r.svc_s:.2f} s"
             + (f", SVC given K {r.svc_gram_s:.2f} s" if r.svc_gram_s is not None
                else "")
             + f"; primal M3L {r.primal_m3l:.6g}, SVC (+b) {r.primal_svc:.6g})"
             for r in rows]
    notes.append("speed-up grows with L: " + ("yes" if grows else "no")
                 + (f"; at L = 40 it is {at40.speedup:.2f}x" if at40 is not None else ""))
    notes.append(f"test Hamming loss M3L vs SVC within 0.5 points for every L: "
                 f"{'yes' if ham_ok else 'no'} (largest difference "
                 f"{summary.max_abs_hamming_diff_pp:.2f} points)")
    notes.append(f"same problem up to the intercept: M3L(C={C:g}, R = I) is L SVMs "
                 f"without bias and penalty {2 * C:g} (Sec. 3.1); SVC(C={2 * C:g}) adds a "
                 "free intercept per label, so its primal is at most M3L's (columns P)")
    if precomputed:
        notes.append("SVC given K = 1-vs-All SVC on the precomputed Gram matrix (no kernel "
                     "evaluations; K computed outside the timing): the time that sharing "
                     "kernel rows cannot remove from 1-vs-All")
    notes.append(_solver_note(rows, dtypes))
    notes.append(f"median CPU seconds of {repeats} interleaved repeat(s), single-threaded, "
                 f"gamma = {gamma:g}, tol = {tol:g} (both), {cache_mb:g} MB kernel caches")
    return ExperimentResult(
        name="m3l-labels",
        title=f"kernel M3L (R = I) vs 1-vs-All SVC, synthetic N = {N} x {n_features}, rbf, "
              f"L = {', '.join(map(str, Ls))}",
        rows=rows, summary=summary, notes=notes)


def _solver_note(rows, dtypes) -> str:
    """The note naming M3L's solver(s) and the storage of the Gram matrix."""
    solvers = sorted({r.m3l_solver for r in rows})
    return (f"M3L solver: {', '.join(solvers)} (m3l-cd: example-major coordinate ascent "
            "on the whole Gram matrix, one Gram row per example serving all its "
            "labels; m3l-smo: Alg. 1)"
            + (f"; Gram matrix stored in {', '.join(sorted(set(dtypes)))} (float32 for "
               "tol >= 1e-4, as libsvm's Qfloat; the exact check accumulates in float64)"
               if dtypes else ""))


@register_bench("m3l-labels-wide")
def bench_m3l_labels_wide(*, quick: bool = False, seed: int = 0, progress: bool = False,
                          repeats: int | None = None) -> ExperimentResult:
    """:func:`bench_m3l_labels` with ``n_features = 500``, L = 10, 40 and
    one repeat by default (quick: N = 1,000, L = 10, 20).

    A kernel row costs O(N n_features); 1-vs-All computes the rows it needs
    again for every label, M3L once for all labels (Sec. 5.1.3). With 500
    features the rows dominate 1-vs-All's time, as with the features of
    the paper's Table 1 (Sec. 7.1), so the speed-up is much larger than
    with 50 features, where LIBSVM's own arithmetic is about half of its
    time (column "SVC given K s").

    Returns
    -------
    ExperimentResult
        As :func:`bench_m3l_labels`, named ``"m3l-labels-wide"``.
    """
    res = bench_m3l_labels(quick=quick, seed=seed, progress=progress,
                           repeats=repeats if repeats is not None else 1,
                           Ls=(10, 20) if quick else (10, 40), n_features=500)
    res.name = "m3l-labels-wide"
    res.summary = dataclasses.replace(res.summary, bench="m3l-labels-wide")
    return res


@dataclass(frozen=True)
class M3LRowsRow:
    """One training-set size of :func:`bench_m3l_rows`.

    Attributes
    ----------
    N : int
        Training rows.
    m3l_s, svc_s : float
        Median CPU seconds of kernel M3L and of one-vs-rest SVC.
    ratio : float
        m3l_s / svc_s (the issue's target: at most 1).
    hamming_m3l, hamming_svc : float
        Test Hamming losses (fractions).
    hamming_diff : float
        M3L - SVC.
    hamming_nobias : float or None
        Test Hamming loss of M3L without bias (``bias=0``, what the rbf
        kernel got before the bias moved into feature space; None: not run).
    m3l_solver : str
        ``"m3l-cd"`` or ``"m3l-smo"``.
    m3l_epochs : int
        Iterations of M3L.
    m3l_gap_rel : float
        M3L's duality gap / primal.
    m3l_cache_mb : float
        The kernel memory M3L used (MB): the whole Gram matrix for "m3l-cd",
        the LRU rows for "m3l-smo".
    """

    N: int = column("N", str)
    m3l_s: float = column("M3L s", fmt_spec(".2f"))
    svc_s: float = column("1-vs-rest SVC s", fmt_spec(".2f"))
    ratio: float = column("M3L/SVC", fmt_spec(".3f"))
    hamming_m3l: float = column("Hamming M3L", fmt_spec(".4f"))
    hamming_svc: float = column("Hamming SVC", fmt_spec(".4f"))
    hamming_diff: float = column("M3L-SVC", fmt_spec("+.4f"))
    hamming_nobias: float | None = column("Hamming M3L bias=0", fmt_spec(".4f"))
    m3l_solver: str = column("solver", str)
    m3l_epochs: int = column("iters", str)
    m3l_gap_rel: float = column("M3L gap/P", fmt_spec(".1e"))
    m3l_cache_mb: float = column("M3L kernel MB", fmt_spec(".0f"))


@record
class M3LRowsSummary(BenchRunInfo):
    """The key figures of :func:`bench_m3l_rows`.

    Attributes
    ----------
    Ns : tuple of int
    repeats : int
    C_m3l, C_svc, gamma, tol : float
    ratios : tuple of float
        m3l_s / svc_s per N (3 decimals).
    at_most_1x : bool
        Every ratio <= 1.
    hamming_diff_at_largest : float
        M3L - SVC at the largest N.
    within_0002_at_largest : bool
    m3l_growth, svc_growth : float or None
        Exponents a of time ~ N^a between the smallest and largest N.
    elapsed_s : float
    """

    Ns: tuple
    repeats: int
    C_m3l: float
    C_svc: float
    gamma: float
    tol: float
    ratios: tuple
    at_most_1x: bool
    hamming_diff_at_largest: float
    within_0002_at_largest: bool
    m3l_growth: float | None
    svc_growth: float | None
    elapsed_s: float


def yeast_rows(N: int, seed: int = 0):
    """Resampled real rows: ``N`` training rows drawn with replacement from
    the MULAN yeast training split (1,500 x 103, 14 labels), the test split
    (917 rows) as it is, both standardised with the training rows' mean and
    standard deviation.

    Returns
    -------
    (X_train, X_test, Y_train, Y_test) : ndarrays
        (N, 103), (917, 103), (N, 14), (917, 14); Y in {0, 1}.

    Raises
    ------
    ValueError
        If ``N < 8``.
    """
    N = check_int(N, "N", minimum=8)
    d = load_yeast()
    idx = np.random.default_rng(seed).integers(0, d.X_train.shape[0], N)
    scaler = StandardScaler().fit(d.X_train[idx])
    return (scaler.transform(d.X_train[idx]), scaler.transform(d.X_test),
            d.Y_train[idx], d.Y_test)


def _rows_fits(Xtr, Ytr, C, gamma, tol, seed, repeats):
    """(m3l, svc, m3l seconds, svc seconds): interleaved repeats, medians."""
    m3l = M3LClassifier(kernel="rbf", C=C, tol=tol, random_state=seed)   # gamma 1 / D
    svc = OneVsRestClassifier(SVC(kernel="rbf", C=2 * C, gamma=gamma, tol=tol))
    t_m3l, t_svc = [], []
    for _ in range(repeats):
        t_m3l.append(cpu_time(lambda: m3l.fit(Xtr, Ytr)))
        t_svc.append(cpu_time(lambda: svc.fit(Xtr, Ytr)))
    return m3l, svc, statistics.median(t_m3l), statistics.median(t_svc)


def _rows_row(N, C, gamma, tol, seed, repeats, nobias) -> M3LRowsRow:
    """The :class:`M3LRowsRow` of one N."""
    Xtr, Xte, Ytr, Yte = yeast_rows(N, seed)
    m3l, svc, m3l_s, svc_s = _rows_fits(Xtr, Ytr, C, gamma, tol, seed, repeats)
    ham_m3l = float(np.mean(m3l.predict(Xte) != Yte))
    ham_svc = float(np.mean(svc.predict(Xte) != Yte))
    ham_nb = None
    if nobias:
        m0 = M3LClassifier(kernel="rbf", C=C, gamma=gamma, tol=tol, bias=0.0,
                           random_state=seed).fit(Xtr, Ytr)
        ham_nb = float(np.mean(m0.predict(Xte) != Yte))
    res = m3l.result_
    kernel_mb = (4.0 if res.gram_dtype == "float32" else 8.0) * N * N / 1e6 \
        if res.solver == "m3l-cd" else 8.0 * res.cache_rows * N / 1e6
    return M3LRowsRow(N=N, m3l_s=m3l_s, svc_s=svc_s, ratio=m3l_s / svc_s,
                      hamming_m3l=ham_m3l, hamming_svc=ham_svc,
                      hamming_diff=ham_m3l - ham_svc, hamming_nobias=ham_nb,
                      m3l_solver=res.solver, m3l_epochs=int(res.nit),
                      m3l_gap_rel=float(res.gap / res.primal_objective),
                      m3l_cache_mb=kernel_mb)


def _growth(rows, attr):
    """The exponent a of time ~ N^a between the first and last row."""
    if len(rows) < 2 or rows[0].N == rows[-1].N:
        return None
    a, b = getattr(rows[0], attr), getattr(rows[-1], attr)
    return round(math.log(b / a) / math.log(rows[-1].N / rows[0].N), 2)


@register_bench("m3l-rows")
def bench_m3l_rows(*, quick: bool = False, seed: int = 0, progress: bool = False,
                   repeats: int | None = None, Ns: Sequence[int] | None = None,
                   C: float | None = None, tol: float = 1e-3,
                   nobias: bool = True) -> ExperimentResult:
    """Time ``M3LClassifier(kernel="rbf", C=C)`` (defaults otherwise: gamma
    1 / n_features = 1/103, bias 1 as the kernel offset, ``cache_mb="auto"``) against
    ``OneVsRestClassifier(SVC(kernel="rbf", C=2 C, gamma=1/103))`` (its
    200 MB cache, LIBSVM's shrinking) on :func:`yeast_rows` for growing N,
    and compare their test Hamming losses on yeast's test split.

    With R = I, M3L(C) is 14 SVMs of penalty 2C (Sec. 3.1 of
    ``m3l-multilabel-zero-shot.txt``); SVC's intercept is free, M3L's is
    the weight of the bias feature (regularised). The same ``tol`` for both
    (M3L's on the projected gradient of D2, whose scale is twice LIBSVM's:
    M3L's test is the stricter). CPU seconds, BLAS limited to one thread,
    M3L then SVC in each repeat (interleaved), medians.

    Parameters
    ----------
    quick : bool
        N = 500, 1,000 (instead of 2,000, 8,000, 20,000).
    seed : int
        Seed of the resampling and of M3L's visiting order.
    progress : bool
        A tqdm bar on stderr.
    repeats : int, optional
        Interleaved repeats (default 1: SVC takes minutes at N = 20,000).
    Ns : sequence of int, optional
        Training sizes (each >= 8).
    C : float or None
        M3L's C (> 0); None (the default): ``M3LClassifier``'s own default
        for the rbf kernel, ``polyrank.m3l.estimator.DEFAULT_C["rbf"]``
        (0.5), which the notes print.  SVC gets 2 C.
    tol : float
        Both tolerances (> 0).
    nobias : bool
        Also fit M3L with ``bias=0`` (untimed) and report its Hamming loss.

    Returns
    -------
    ExperimentResult
        ``rows``: one :class:`M3LRowsRow` per N; ``summary``: a
        :class:`M3LRowsSummary`.

    Raises
    ------
    ValueError
        Bad ``repeats``, ``Ns``, ``C``, ``tol``.
    """
    Ns = [check_int(n, "Ns", minimum=8) for n in (Ns or ((500, 1000) if quick
                                                         else (2000, 8000, 20000)))]
    repeats = check_int(repeats if repeats is not None else 1, "repeats", minimum=1)
    how = "M3LClassifier's default for the rbf kernel (C=None)" if C is None else "given"
    C = check_positive(DEFAULT_C["rbf"] if C is None else C, "C")
    tol = check_positive(tol, "tol")
    gamma = 1.0 / 103
    t0 = time.perf_counter()
    Xw, _, Yw, _ = yeast_rows(40, seed)
    M3LClassifier(kernel="rbf", C=C).fit(Xw, Yw)     # compile outside the timings
    rows = []
    bar = progress_bar(len(Ns), "bench m3l-rows", progress, leave=False)
    try:
        with threadpool_limits(limits=1):
            for N in Ns:
                rows.append(_rows_row(N, C, gamma, tol, seed, repeats, nobias))
                bar.update()
    finally:
        bar.close()
    res = _rows_result(rows, Ns, repeats, C, gamma, tol, seed, quick, t0)
    res.notes.insert(0, f"M3L's C = {C:g}, {how}; SVC's C = {2 * C:g}")
    return res


def _rows_result(rows, Ns, repeats, C, gamma, tol, seed, quick, t0) -> ExperimentResult:
    """The :class:`ExperimentResult` of :func:`bench_m3l_rows`."""
    last = rows[-1]
    summary = M3LRowsSummary(
        bench="m3l-rows", quick=quick, seed=seed, Ns=tuple(Ns), repeats=repeats, C_m3l=C,
        C_svc=2 * C, gamma=gamma, tol=tol, ratios=tuple(round(r.ratio, 3) for r in rows),
        at_most_1x=all(r.ratio <= 1 for r in rows),
        hamming_diff_at_largest=round(last.hamming_diff, 4),
        within_0002_at_largest=abs(last.hamming_diff) <= 0.002,
        m3l_growth=_growth(rows, "m3l_s"), svc_growth=_growth(rows, "svc_s"),
        elapsed_s=round(time.perf_counter() - t0, 2))
    notes = [f"N = {r.N:,}: M3L {r.m3l_s:.2f} s, SVC {r.svc_s:.2f} s, ratio M3L/SVC "
             f"{r.ratio:.3f} (" + speed_phrase(1 / r.ratio, "kernel M3L", "one-vs-rest SVC")
             + f"); test Hamming M3L {r.hamming_m3l:.4f}, SVC {r.hamming_svc:.4f} "
             f"(diff {r.hamming_diff:+.4f})"
             + (f", M3L with bias=0 {r.hamming_nobias:.4f}" if r.hamming_nobias is not None
                else "")
             for r in rows]
    notes.append(f"growth with N ({rows[0].N:,} -> {last.N:,}): M3L ~ N^{summary.m3l_growth}, "
                 f"SVC ~ N^{summary.svc_growth}")
    notes.append(f"at most 1x SVC at every N: {'yes' if summary.at_most_1x else 'no'}; "
                 f"Hamming within 0.002 of SVC at N = {last.N:,}: "
                 f"{'yes' if summary.within_0002_at_largest else 'no'}")
    notes.append(f"yeast training rows resampled with replacement, yeast test split (917 "
                 f"rows); C = {C:g} (SVC {2 * C:g}), gamma = {gamma:.4g}, tol = {tol:g} (both); "
                 f"M3L cache_mb='auto', SVC cache 200 MB; median CPU seconds of {repeats} "
                 "interleaved repeat(s), one BLAS thread")
    return ExperimentResult(
        name="m3l-rows",
        title=f"kernel M3L (R = I) vs one-vs-rest SVC on resampled yeast rows, rbf, "
              f"N = {', '.join(f'{n:,}' for n in Ns)}",
        rows=rows, summary=summary, notes=notes)
