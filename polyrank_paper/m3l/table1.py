"""Table 1 of ``m3l-multilabel-zero-shot.txt`` on yeast: training time of
linear and rbf M3L (R = I) against 1-vs-All LIBLINEAR and LIBSVM, single-threaded.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from sklearn.metrics import hamming_loss
from sklearn.svm import SVC, LinearSVC
from threadpoolctl import threadpool_limits

from polyrank.datasets import load_yeast
from polyrank.m3l import M3LClassifier
from polyrank.validation import check_int

from .._harness import median_times, progress_bar
from ..registry import ExperimentResult, PaperItem, RunInfo, record, register
from ._common import _PAPER, LINEAR, RBF, Table1Row

__all__ = ["m3l_table1", "Table1Summary"]


@record
class Table1Summary(RunInfo):
    """The key figures of :func:`m3l_table1` (rows: :class:`Table1Row`).

    Attributes
    ----------
    Ns : tuple of int
        Training set sizes.
    repeats : int
    linear_ratio_liblinear_over_m3l, rbf_ratio_libsvm_over_m3l : tuple of float
        The ratios per N (3 decimals; > 1: M3L faster).
    max_linear_primal_rel_diff : float
    elapsed_s : float
        Seconds (2 decimals).
    paper : tuple of PaperItem
    """

    Ns: tuple
    repeats: int
    linear_ratio_liblinear_over_m3l: tuple
    rbf_ratio_libsvm_over_m3l: tuple
    max_linear_primal_rel_diff: float
    elapsed_s: float
    paper: tuple


def _one_vs_all_linear(Xa, Y, C, tol):
    return [LinearSVC(loss="hinge", fit_intercept=False, C=2 * C, tol=tol, dual=True,
                      max_iter=100_000, random_state=0).fit(Xa, Y[:, lab])
            for lab in range(Y.shape[1])]


def _one_vs_all_rbf(X, Y, C, gamma, tol, cache_mb):
    return [SVC(kernel="rbf", gamma=gamma, C=2 * C, tol=tol, cache_size=cache_mb).fit(
        X, Y[:, lab]) for lab in range(Y.shape[1])]


def _timing_rows(Ns, repeats, seed, bar, tol=1e-3, cache_mb=200.0):
    d = load_yeast()
    rng = np.random.default_rng(seed)
    order = rng.permutation(d.X_train.shape[0])
    # compile the kernels outside the timings
    M3LClassifier(**LINEAR).fit(d.X_train[:20], d.Y_train[:20])
    M3LClassifier(**RBF).fit(d.X_train[:20], d.Y_train[:20])
    rows = []
    with threadpool_limits(limits=1):
        for N in Ns:
            idx = order[:N]
            X, Y = d.X_train[idx], d.Y_train[idx]
            Xa = np.hstack([X, np.ones((N, 1))])
            Ypm = 2 * Y - 1
            out = {}
            # the paper's rule: tau on the projected gradients (Appendix B)
            lin = M3LClassifier(tol=tol, stopping="pg", random_state=seed, **LINEAR)
            t_lin = median_times(lambda lin=lin, X=X, Y=Y: lin.fit(X, Y), repeats)[1]
            t_ll = median_times(lambda out=out, Xa=Xa, Ypm=Ypm: out.__setitem__(
                "ll", _one_vs_all_linear(Xa, Ypm, LINEAR["C"], tol)), repeats)[1]
            rbf = M3LClassifier(tol=tol, cache_mb=cache_mb, **RBF)
            t_rbf = median_times(lambda rbf=rbf, X=X, Y=Y: rbf.fit(X, Y), repeats)[1]
            t_svm = median_times(lambda out=out, X=X, Ypm=Ypm: out.__setitem__(
                "svm", _one_vs_all_rbf(X, Ypm, RBF["C"], RBF["gamma"], tol, cache_mb)),
                repeats)[1]
            # same solutions (R = I): primal objectives of the linear problems
            W = np.column_stack([m.coef_.ravel() for m in out["ll"]])
            p_ll = 0.5 * np.sum(W * W) + 2 * LINEAR["C"] * np.maximum(
                0, 1 - Ypm * (Xa @ W)).sum()
            P_svm = np.column_stack([m.predict(d.X_test) for m in out["svm"]])
            rows.append(Table1Row(
                N=int(N), linear_m3l_s=t_lin, liblinear_1vsall_s=t_ll,
                linear_ratio=t_ll / t_lin,
                rbf_m3l_s=t_rbf, libsvm_1vsall_s=t_svm, rbf_ratio=t_svm / t_rbf,
                linear_primal_rel_diff=abs(lin.result_.primal_objective - p_ll) / p_ll,
                rbf_test_hamming_m3l_pct=100 * hamming_loss(2 * d.Y_test - 1,
                                                            2 * rbf.predict(d.X_test) - 1),
                rbf_test_hamming_libsvm_pct=100 * hamming_loss(2 * d.Y_test - 1, P_svm),
                rbf_cache_misses=int(rbf.result_.cache_misses),
            ))
            if bar is not None:
                bar.update()
    return rows


@register("m3l-table1", "Table 1 on yeast: training time of linear M3L vs 1-vs-All "
          "LinearSVC and RBF M3L vs 1-vs-All SVC for growing N, R = I")
def m3l_table1(*, Ns: Sequence[int] | None = None, repeats: int | None = None, seed: int = 0,
               quick: bool = False, progress: bool = False) -> ExperimentResult:
    """Table 1 on yeast: training times for growing N with R = I.

    Linear M3L (DCA with shrinkage, Sec. 6, C = 0.5) against 1-vs-All
    LIBLINEAR (scikit-learn ``LinearSVC(loss="hinge", fit_intercept=False,
    C=2C)`` per label on the same bias-augmented features: the same
    problems, Sec. 3.1), and rbf M3L (SMO, Alg. 1, gamma = 1, C = 1) against
    1-vs-All LIBSVM (``SVC(kernel="rbf", C=2C)`` per label, which adds its
    own free intercept), both with a 200 MB kernel cache. tol = 1e-3 for
    M3L (max |projected gradient|), the same ``tol`` for LIBLINEAR/LIBSVM
    (their max-violation criteria, half the gradient scale: no stricter
    than ours). Median CPU time of ``repeats`` fits, single-threaded.

    Parameters
    ----------
    Ns : sequence of int, optional
        Training set sizes (default 250, 500, 1000, 1500; quick 200, 400),
        the first N of a fixed random permutation of the yeast training split.
    repeats : int, optional
        Timings per fit (default 3; quick 1).
    seed, quick, progress

    Returns
    -------
    ExperimentResult
        ``rows``: a :class:`Table1Row` per N, the times, ratios (baseline / M3L: > 1 means M3L is
        faster), the relative difference of the linear primal objectives,
        and the test Hamming losses of the rbf models.

    Notes
    -----
    Source: ``m3l-multilabel-zero-shot.txt``, Sec. 7.1, Table 1 (AwA, RCV1,
    Siam, Media Mill; not bundled).
    """
    Ns = [check_int(n, "Ns", minimum=20) for n in (Ns or ((200, 400) if quick else
                                                          (250, 500, 1000, 1500)))]
    if max(Ns) > 1500:
        raise ValueError("Ns: yeast has 1500 training points")
    repeats = check_int(repeats if repeats is not None else (1 if quick else 3), "repeats",
                        minimum=1)
    t0 = time.perf_counter()
    bar = progress_bar(len(Ns), "m3l-table1", progress, leave=False)
    try:
        rows = _timing_rows(Ns, repeats, seed, bar)
    finally:
        bar.close()
    last = rows[-1]
    max_diff = max(r.linear_primal_rel_diff for r in rows)
    elapsed = round(time.perf_counter() - t0, 2)
    notes = [f"N = {last.N}: LibLinear / linear M3L = {last.linear_ratio:.2f}x, "
             f"LibSVM / rbf M3L = {last.rbf_ratio:.2f}x (> 1: M3L faster)",
             f"same problems (linear): primal objectives agree to "
             f"{max_diff:.1e} (relative)",
             "the paper (AwA, N = 2,000 .. 24,292): LM3L about as fast as LibLinear; "
             "KM3L 10-30x faster than LibSVM"]
    data = (f"yeast (D = 103, L = 14), N = {last.N}; AwA, RCV1 and Siam features not "
            "bundled")
    summary = Table1Summary(
        experiment="m3l-table1", quick=quick, seed=seed, Ns=tuple(Ns), repeats=repeats,
        linear_ratio_liblinear_over_m3l=tuple(round(r.linear_ratio, 3) for r in rows),
        rbf_ratio_libsvm_over_m3l=tuple(round(r.rbf_ratio, 3) for r in rows),
        max_linear_primal_rel_diff=max_diff, elapsed_s=elapsed,
        paper=(PaperItem(item="Table 1: 1-vs-All LibLinear time over linear M3L's",
                         paper="0.4-1.8x (about as fast)",
                         ours=f"{last.linear_ratio:.2f}x", data=data),
               PaperItem(item="Table 1: 1-vs-All LibSVM (RBF) time over kernel M3L's",
                         paper="3.8-15x (AwA, RCV1, Siam)",
                         ours=f"{last.rbf_ratio:.2f}x", data=data)))
    return ExperimentResult(
        name="m3l-table1",
        title=f"Table 1 ({_PAPER}, Sec. 7.1) on yeast: training time vs N, R = I",
        rows=rows, summary=summary, notes=notes)
