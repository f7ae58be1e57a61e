"""Drivers: Tree-TRON / PRSVM+ for the L2 loss (Eq. 1.3) and a cutting-plane
(bundle) method for the L1 loss (Eq. 1.2).

Source: ``large-scale-linear-ranksvm.txt``, Sec. 4.1 (TRON), Sec. 2.3-2.4
(trees), Sec. 3.1 (PRSVM+), Sec. 3.2 (the cutting-plane method of Teo et
al. 2010, Eq. 3.3-3.4, as in TreeRankSVM).
"""

from __future__ import annotations

import math

import numpy as np

from ..qp import solve_qp
from ..result import (STATUS_CALLBACK, STATUS_CONVERGED, STATUS_MAX_ITER,
                      CallbackRunner, SolverResult)
from ..tron import tron
from ..validation import check_int, check_positive
from .objective import RankSVMObjective

__all__ = ["ranksvm_tron", "ranksvm_cutting_plane"]

_SOLVER_NAMES = {"selection_tree": "tree-tron", "y_tree": "y-tree-tron",
                 "direct": "direct-count-tron", "prsvm_plus": "prsvm+"}


def _objective(X, y, qid, C, method, partial_pairs):
    obj = RankSVMObjective(X, y, qid, C=C, method=method, partial_pairs=partial_pairs)
    if obj.n_pairs == 0:
        raise ValueError("y, qid: no preference pairs (every query has a single "
                         "relevance level or a single document); the solution "
                         "would be w = 0")
    return obj


def ranksvm_tron(X, y, qid, C: float = 1.0, *, method: str = "selection_tree",
                 eps: float = 1e-3, max_iter: int = 1000, partial_pairs: bool = False,
                 w0=None, callback=None, callback_every: int = 1,
                 keep_iterates: bool = False) -> SolverResult:
    """Solve L2-loss linear RankSVM (Eq. 1.3) by TRON.

    Minimises f(w) = 1/2 w'w + C sum_{(i,j) in P} max(0, 1 - w'(x_i -
    x_j))^2 with :func:`polyrank.tron.tron` (Sec. 4.1) on a
    :class:`~polyrank.ranksvm.objective.RankSVMObjective`.  With the default
    ``method="selection_tree"`` this is the paper's Tree-TRON; with
    ``"prsvm_plus"`` it is PRSVM+ in the same TRON framework (as the paper
    does, Sec. 4.4); ``"y_tree"`` and ``"direct"`` are the other counting
    methods of Sec. 4.3.

    Parameters
    ----------
    X : array_like or scipy.sparse matrix, shape (l, n)
    y : array_like, shape (l,)
        Relevance labels.
    qid : array_like of int, shape (l,)
        Query ids.
    C : float
        > 0.
    method : {"selection_tree", "y_tree", "direct", "prsvm_plus"}
    eps : float
        Eq. 4.4 tolerance (default 1e-3, the paper's and LIBLINEAR's).
    max_iter : int
        Maximum Newton steps.
    partial_pairs : bool
        Only pairs of adjacent relevance levels (Sec. 5).
    w0 : array_like, shape (n,), optional
        Start (default zeros, as in the paper).
    callback, callback_every
        See :func:`polyrank.tron.tron`; ``info.primal`` is f(w),
        ``info.dual`` the L2-SVM dual at alpha(w), ``info.gap`` their
        difference (>= 0, zero at the optimum).
    keep_iterates : bool
        Return ``iterates`` (w after every step), see :func:`~polyrank.tron.tron`.

    Returns
    -------
    SolverResult
        As :func:`polyrank.tron.tron`, plus ``n_pairs`` (p), ``method``,
        ``C`` and ``n_sv`` (|SV(w)|, Eq. 2.8).

    Raises
    ------
    ValueError
        Bad shapes, NaN/inf, C <= 0, eps <= 0, unknown method, or no
        preference pair at all.
    TypeError
        Non-numeric input or non-integer qid.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [1.0, 1.0]])
    >>> res = ranksvm_tron(X, [2, 0, 1, 1], [1, 1, 1, 2], C=10.0, eps=1e-8)
    >>> res.status, res.n_pairs, bool(res.x[0] > res.x[1])
    ('converged', 3, True)
    """
    obj = _objective(X, y, qid, C, method, partial_pairs)
    res = tron(obj, w0, eps=eps, max_iter=max_iter, callback=callback,
               callback_every=callback_every, keep_iterates=keep_iterates,
               solver="partial-pairs-tron" if partial_pairs else _SOLVER_NAMES[method])
    res.n_pairs = obj.n_pairs
    res.method = "adjacent" if partial_pairs else method
    res.C = obj.C
    res.n_sv = obj.workspace(res.x).p_w
    return res


def ranksvm_cutting_plane(X, y, qid, C: float = 1.0, *, method: str = "selection_tree",
                          eps: float = 1e-3, max_iter: int = 500, w0=None,
                          callback=None, callback_every: int = 1,
                          keep_iterates: bool = False) -> SolverResult:
    """Solve L1-loss linear RankSVM (Eq. 1.2) by the cutting-plane (bundle)
    method of Sec. 3.2 (Teo et al. 2010, as in TreeRankSVM).

    At w^t the loss L(w) = C sum_P max(0, 1 - w'(x_i - x_j)) and the
    subgradient a_t = -C X'(l^- - l^+) (Eq. 3.4) come from one sweep of the
    counting method; the cutting plane a_t'w + b_t joins the bundle, and
    w^{t+1} minimises 1/2 w'w + max_m (a_m'w + b_m) (Eq. 3.3), solved
    through its dual (a QP over the simplex, Clarabel via
    :func:`polyrank.qp.solve_qp`): w = -sum_m alpha_m a_m.  The master
    optimum J_t(w^{t+1}) is a lower bound on min f; the best f(w^m) seen is
    an upper bound; their difference is the gap recorded per iteration.

    Parameters
    ----------
    X, y, qid, C, method
        As :func:`ranksvm_tron`.
    eps : float
        Stop when (best f - lower bound) <= eps * best f.
    max_iter : int
        Maximum number of cutting planes.
    w0 : array_like, shape (n,), optional
        First point (default zeros).
    callback, callback_every
        ``info.primal`` is the best f so far, ``info.dual`` the bundle's
        lower bound; extras ``f_current`` (f at the newest point) and
        ``n_planes``.
    keep_iterates : bool
        Also return ``iterates``: the best w after every cutting plane.

    Returns
    -------
    SolverResult
        ``x`` (the best w seen), ``primal_objective`` (its f of Eq. 1.2),
        ``dual_objective`` (the lower bound), ``gap``, ``nit``,
        ``dual`` (the bundle weights alpha), ``n_pairs``, ``trace``.

    Raises
    ------
    ValueError
        As :func:`ranksvm_tron`.
    RuntimeError
        If Clarabel fails on the master problem.
    """
    eps = check_positive(eps, "eps")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    obj = _objective(X, y, qid, C, method, False)
    runner = CallbackRunner(callback, callback_every)
    n = obj.n_features
    w = np.zeros(n) if w0 is None else np.asarray(w0, dtype=np.float64).copy()
    planes_a, planes_b = [], []
    best_f, best_w = math.inf, w.copy()
    lower = -math.inf
    alpha = np.zeros(0)
    iterates = []
    status = STATUS_MAX_ITER
    it = 0
    for it in range(1, max_iter + 1):
        loss, a = obj.l1_loss(w)
        f = 0.5 * float(w @ w) + loss
        if f < best_f:
            best_f, best_w = f, w.copy()
        planes_a.append(a)
        planes_b.append(loss - float(a @ w))
        A = np.array(planes_a)
        b = np.array(planes_b)
        t = b.size
        # dual of Eq. 3.3: min_alpha 1/2 ||A'alpha||^2 - b'alpha on the simplex,
        # divided by a positive scale (same minimiser; ||a_m||^2 grows like
        # (C p)^2, which Clarabel's tolerances would not survive unscaled)
        P = A @ A.T
        P = 0.5 * (P + P.T)
        scale = max(float(np.max(np.diag(P))), float(np.max(np.abs(b))), 1e-300)
        qp = solve_qp(P / scale, -b / scale, A_eq=np.ones((1, t)), b_eq=np.ones(1),
                      G=-np.eye(t), h=np.zeros(t), tol=1e-10)
        alpha = np.maximum(qp.x, 0.0)
        alpha /= alpha.sum()
        w = -(A.T @ alpha)
        # the master objective at its minimiser: a lower bound on min f
        lower = max(lower, 0.5 * float(w @ w) + float(np.max(A @ w + b)))
        stop = runner.record(it, best_f, lower, f_current=f, n_planes=float(t))
        if keep_iterates:
            iterates.append(best_w.copy())
        if best_f - lower <= eps * abs(best_f):
            status = STATUS_CONVERGED
            break
        if stop:
            status = STATUS_CALLBACK
            break
    messages = {
        STATUS_CONVERGED: f"gap {best_f - lower:.3g} <= eps * f after {it} cutting planes",
        STATUS_MAX_ITER: f"max_iter={max_iter} cutting planes; gap {best_f - lower:.3g}",
        STATUS_CALLBACK: f"callback raised StopIteration after cutting plane {it}",
    }
    return SolverResult(
        x=best_w, dual=alpha, primal_objective=best_f, dual_objective=lower,
        gap=best_f - lower, nit=it, success=status == STATUS_CONVERGED,
        status=status, message=messages[status], solver="cutting-plane-l1",
        trace=runner.trace, n_pairs=obj.n_pairs, method=method, C=obj.C,
        **({"iterates": iterates} if keep_iterates else {}))
