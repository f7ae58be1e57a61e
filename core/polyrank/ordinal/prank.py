"""Kernel PRank: the perceptron ranking algorithm of Crammer and Singer, the
baseline of Sec. 10 of ``row-column-generation-ordinal.txt`` (its ref. [2]:
K. Crammer and Y. Singer, "Pranking with ranking", NIPS 14, 2002, Fig. 1)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..kernels import check_kernel_params
from ..result import (
    STATUS_CALLBACK,
    STATUS_COMPLETED,
    STATUS_CONVERGED,
    STATUS_NUMERICAL,
    CallbackRunner,
    SolverResult,
    finish,
)
from ..validation import check_int
from . import _kernels
from .generation import check_labels, check_X

__all__ = ["prank", "prank_trusted", "prank_decision", "KERNEL_CODES"]

#: numba codes of the kernel names of :mod:`polyrank.kernels`
KERNEL_CODES = {"linear": _kernels.LINEAR, "rbf": _kernels.RBF, "poly": _kernels.POLY}


def _kernel_args(kernel, gamma, degree, coef0, m):
    if kernel not in KERNEL_CODES:
        raise ValueError(f"kernel: expected one of {tuple(KERNEL_CODES)}, got {kernel!r}")
    params = check_kernel_params(kernel, gamma, degree, coef0, m)
    return (KERNEL_CODES[kernel], float(params.get("gamma", 1.0)),
            float(params.get("degree", 1)), float(params.get("coef0", 0.0))), params


def prank(X, labels, *, kernel: str = "linear", gamma=None, degree: int = 3,
          coef0: float = 1.0, max_iter: int = 1, shuffle: bool = False,
          random_state=None, average: bool = False, callback=None,
          callback_every: int = 1) -> SolverResult:
    """Kernel PRank, on-line, ``max_iter`` passes over the objects (fewer
    when a pass makes no mistake).

    Keeps f(x) = sum_j alpha_j kappa(x^j, x) and thresholds b_1 <= ... <=
    b_l; predicts the label min {r | f(x) < b_{r+1}} (b_{l+1} = +inf) and, on
    a mistake, moves f and every threshold on the wrong side by one
    (Crammer & Singer, Fig. 1; see :func:`polyrank.ordinal._kernels.prank_epoch`).
    Kernel values are computed on the fly against the objects with
    alpha_j != 0 (the paper notes PRank needs a row of K~ per step, Sec. 10).

    Parameters
    ----------
    X : array_like or scipy.sparse matrix, shape (n, m)
        Sparse (used as CSR) with the linear kernel only: then w = sum_j
        alpha_j x^j is kept and a score costs one sparse row.
    labels : array_like of int, shape (n,)
        Labels 0..l, every label used (:func:`check_labels`).
    kernel, gamma, degree, coef0
        As in :func:`polyrank.ordinal.solve_ordinal`.
    max_iter : int
        The number of passes over the data (>= 1; the paper's on-line
        PRank: 1).  PRank is an online algorithm: the passes are its
        design, not a cap on a convergence process; the run stops earlier
        only after a pass without a mistake (the data separated).
    shuffle : bool
        Visit the objects in a fresh random order each pass (else in the
        given order).
    random_state : int, Generator or None
        Seed of the shuffling.
    average : bool
        Return the averaged model (the mean of alpha and of the thresholds
        over every step of every pass, the averaged perceptron of Freund &
        Schapire 1999 applied to PRank by Harrington, "Online ranking /
        collaborative filtering using the perceptron algorithm", ICML 2003)
        instead of the last one (the paper's PRank, Fig. 1).  Averaging
        damps the last updates' noise: one pass of averaged PRank on
        standardised red wine has a test MAE of 0.41 against 0.77 for the
        last iterate.  The averaged thresholds stay ordered (an average of
        ordered vectors).
    callback : callable, optional
        ``callback(info)`` after each pass (primal/dual/gap are NaN; extras
        ``mistakes``, ``online_rank_loss`` and ``n_support``); StopIteration
        stops.
    callback_every : int

    Returns
    -------
    SolverResult
        ``x``: alpha (n,); ``thresholds`` (l,); ``support`` (indices with
        alpha != 0); ``nit`` passes; ``mistakes`` in the last pass;
        ``kernel`` and ``kernel_params`` (the kernel's checked parameters);
        ``state``: the last iterate and the running sums of the average
        (a dict), from which :func:`prank_trusted` continues (``state=``);
        ``primal_objective``, ``dual_objective`` and ``gap`` are NaN (PRank
        is an online algorithm with no objective and no dual);
        ``status``: ``"converged"`` if a pass made no mistake,
        ``"completed the passes"`` (:data:`~polyrank.result.STATUS_COMPLETED`,
        ``success`` True) after ``max_iter`` passes with mistakes,
        ``"numerical failure"`` if a score was not finite (features so large
        that their products overflow; the pass stops there) or ``"stopped by
        callback"``.

    Raises
    ------
    ValueError, TypeError
        Bad X, labels (see :func:`check_labels`), kernel or max_iter < 1.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> r = prank(X, [0, 0, 1, 1], max_iter=10)
    >>> r.status, r.mistakes
    ('converged', 0)
    >>> prank(X, [0, 0, 1, 1]).message          # one pass, the on-line protocol
    'completed 1 passes (max_iter=1); 2 mistakes in the last pass'
    """
    X = check_X(X, kernel)
    labels, _ = check_labels(labels, X.shape[0])
    return prank_trusted(X, labels, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         max_iter=max_iter, shuffle=shuffle, random_state=random_state,
                         average=average, callback=callback, callback_every=callback_every)


def prank_trusted(X, labels, *, kernel: str = "linear", gamma=None, degree: int = 3,
                  coef0: float = 1.0, max_iter: int = 1, shuffle: bool = False,
                  random_state=None, average: bool = False, callback=None,
                  callback_every: int = 1, state=None) -> SolverResult:
    """:func:`prank` on data a caller has validated already (the estimator
    :class:`~polyrank.ordinal.PRank`; validate once, ``CONTRIBUTING.md``).

    Parameters
    ----------
    X : ndarray of float64 or canonical scipy.sparse CSR, shape (n, m)
        Finite; sparse only with the linear kernel.
    labels : ndarray of int64, shape (n,)
        0..l with every label used.
    kernel, gamma, degree, coef0, max_iter, shuffle, random_state, average, callback, \
callback_every :
        As :func:`prank`; checked here as there (no pass over the data).
    state : dict, optional
        The ``state`` of an earlier result on the same data: the passes
        continue from its last iterate (and, with ``average``, its running
        sums), as if that run had had more passes (a warm start).  None:
        from alpha = 0, thresholds = 0 (Fig. 1).

    Returns
    -------
    SolverResult
        As :func:`prank`.

    Raises
    ------
    ValueError, TypeError
        Bad settings, as :func:`prank`; the data is not checked again.
    """
    sparse = sp.issparse(X)
    if sparse:
        X.sort_indices()
    n, m = X.shape
    l = int(labels.max())
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    kargs, params = _kernel_args(kernel, gamma, degree, coef0, m)
    rng = np.random.default_rng(random_state)
    runner = CallbackRunner(callback, callback_every)
    alpha, thr, support, alpha_acc, thr_acc, w, step, n_support = _start(n, m, l, state)
    status = STATUS_COMPLETED
    mistakes = 0
    it = 0
    model = _kernels.PrankIterate(alpha, thr, support, alpha_acc, thr_acc)
    for it in range(1, max_iter + 1):
        order = rng.permutation(n) if shuffle else np.arange(n)
        if sparse:
            mistakes, n_support, loss, finite, step = _kernels.prank_epoch_csr(
                X.indptr, X.indices, X.data, labels, order, model, n_support, step, average, w)
        else:
            mistakes, n_support, loss, finite, step = _kernels.prank_epoch(
                X, labels, order, model, n_support, step, average, *kargs)
        stop = runner.record(it, np.nan, np.nan, mistakes=float(mistakes),
                             online_rank_loss=loss / n, n_support=float(n_support))
        if not finite:
            status = STATUS_NUMERICAL
            break
        if mistakes == 0:
            status = STATUS_CONVERGED
            break
        if stop:
            status = STATUS_CALLBACK
            break
    last = {"alpha": alpha.copy(), "thr": thr.copy(), "support": support.copy(),
            "alpha_acc": alpha_acc.copy(), "thr_acc": thr_acc.copy(), "w": w.copy(),
            "step": step, "n_support": n_support}
    if average and step > 0:     # the mean of the iterates after steps 1..T
        alpha = ((step + 1) * alpha - alpha_acc) / step
        thr = ((step + 1) * thr - thr_acc) / step
    sup = np.sort(support[:n_support])
    res = finish(runner, status, solver="prank", x=alpha, dual=None, primal=np.nan,
                 dual_objective=np.nan, nit=it, unit="passes",
                 rule="the last pass made no mistake",
                 progress=f"{mistakes} mistakes in the last pass",
                 limit=f"max_iter={max_iter}", thresholds=thr.copy(), support=sup,
                 average=bool(average), state=last,
                 mistakes=int(mistakes), kernel=kernel, kernel_params=params)
    if status == STATUS_NUMERICAL:      # PRank has no objective: say what happened
        res.message = (f"in pass {it} a score was not finite (NaN or infinity: products of "
                       f"the features overflow float64); scale the features (e.g. "
                       f"sklearn.preprocessing.StandardScaler)")
    return res


def _start(n: int, m: int, l: int, state):
    """(alpha, thr, support, alpha_acc, thr_acc, w, step, n_support): zeros
    (Fig. 1), or copies of an earlier run's ``state`` (a warm start)."""
    if state is None:
        # alpha_acc: sum_s s * (update of step s), for the average; w: the
        # linear model on CSR rows (sum_j alpha_j x^j)
        return (np.zeros(n), np.zeros(l), np.empty(n, dtype=np.int64), np.zeros(n),
                np.zeros(l), np.zeros(m), 0, 0)
    return (state["alpha"].copy(), state["thr"].copy(), state["support"].copy(),
            state["alpha_acc"].copy(), state["thr_acc"].copy(), state["w"].copy(),
            int(state["step"]), int(state["n_support"]))


def prank_decision(X_fit, alpha, X, kernel, params) -> np.ndarray:
    """Scores f(x) = sum_j alpha_j kappa(x^j, x) of a PRank model for the rows of X."""
    sup = np.flatnonzero(alpha)
    code = KERNEL_CODES[kernel]
    return _kernels.prank_scores(np.ascontiguousarray(X_fit[sup]), alpha[sup],
                                 np.ascontiguousarray(X), code,
                                 float(params.get("gamma", 1.0)),
                                 float(params.get("degree", 1)),
                                 float(params.get("coef0", 0.0)))

