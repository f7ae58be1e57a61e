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
from .objective import RankSVMObjective, not_finite_error

__all__ = ["ranksvm_tron", "ranksvm_cutting_plane"]

_SOLVER_NAMES = {"selection_tree": "tree-tron", "y_tree": "y-tree-tron",
                 "direct": "direct-count-tron", "prsvm_plus": "prsvm+"}


def _check_pairs(obj: RankSVMObjective) -> None:
    if obj.n_pairs > 0:
        return
    if obj.X.shape[0] == 1:
        raise ValueError("X: no preference pairs in n_samples=1 (counting documents of "
                         "positive weight); a ranking needs two documents of different "
                         "relevance in one query")
    raise ValueError("y, qid: no preference pairs (every query has a single "
                     "relevance level or a single document); the solution "
                     "would be w = 0")


def ranksvm_tron(X, y, qid, C: float = 1.0, *, method: str = "selection_tree",
                 eps: float = 1e-3, max_iter: int = 1000, partial_pairs: bool = False,
                 sample_weight=None, w0=None, callback=None, callback_every: int = 1,
                 keep_iterates: bool = False) -> SolverResult:
    """Solve L2-loss linear RankSVM (Eq. 1.3) by TRON.

    Minimises f(w) = 1/2 w'w + C sum_{(i,j) in P} c_ij max(0, 1 - w'(x_i -
    x_j))^2 (c_ij = s_i s_j with document weights, else 1) with
    :func:`polyrank.tron.tron` (Sec. 4.1) on a
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
    sample_weight : array_like, shape (l,), optional
        Document weights s_i >= 0; a pair weighs s_i s_j (integer weights
        equal duplicated documents, weight 0 = absent), see
        :class:`~polyrank.ranksvm.objective.RankSVMObjective`.
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
        Bad shapes, NaN/inf, C <= 0, eps <= 0, unknown method, bad weights,
        no preference pair at all, or an objective that is not finite in
        float64 (X far too large or too small: scale it).
    TypeError
        Non-numeric input or non-integer qid.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [1.0, 1.0]])
    >>> res = ranksvm_tron(X, [2, 0, 1, 1], [1, 1, 1, 2], C=10.0, eps=1e-8)
    >>> res.status, res.n_pairs, bool(res.x[0] > res.x[1])
    ('converged', 3, True)
    """
    obj = RankSVMObjective(X, y, qid, C=C, method=method, partial_pairs=partial_pairs,
                           sample_weight=sample_weight)
    return _tron(obj, eps=eps, max_iter=max_iter, w0=w0, callback=callback,
                 callback_every=callback_every, keep_iterates=keep_iterates)


def _tron(obj: RankSVMObjective, *, eps=1e-3, max_iter=1000, w0=None, callback=None,
          callback_every=1, keep_iterates=False) -> SolverResult:
    """:func:`ranksvm_tron` on a built objective (the estimator's entry:
    its input is validated once, by ``validate_data``)."""
    _check_pairs(obj)
    solver = "partial-pairs-tron" if obj.partial_pairs else _SOLVER_NAMES[obj.method]
    res = tron(obj, w0, eps=eps, max_iter=max_iter, callback=callback,
               callback_every=callback_every, keep_iterates=keep_iterates, solver=solver)
    for key in ("primal_objective", "dual_objective", "gap", "grad_norm", "grad_norm0"):
        if not math.isfinite(res[key]):
            raise not_finite_error(obj.X, obj.C, key)
    res.n_pairs = obj.n_pairs
    res.method = "adjacent" if obj.partial_pairs else obj.method
    res.C = obj.C
    res.n_sv = obj.workspace(res.x).p_w
    return res


def ranksvm_cutting_plane(X, y, qid, C: float = 1.0, *, method: str = "selection_tree",
                          eps: float = 1e-3, max_iter: int = 500, sample_weight=None,
                          w0=None, callback=None, callback_every: int = 1,
                          keep_iterates: bool = False) -> SolverResult:
    """Solve L1-loss linear RankSVM (Eq. 1.2) by the cutting-plane (bundle)
    method of Sec. 3.2 (Teo et al. 2010, as in TreeRankSVM).

    At w^t the loss L(w) = C sum_P c_ij max(0, 1 - w'(x_i - x_j)) and the
    subgradient a_t = -C X'(l^- - l^+) (Eq. 3.4) come from one sweep of the
    counting method; the cutting plane a_t'w + b_t <= L(w) joins the bundle,
    and w^{t+1} minimises the master problem J_t(w) = 1/2 w'w + max_m
    (a_m'w + b_m) (Eq. 3.3), solved through its dual, a QP over the simplex
    (Clarabel via :func:`polyrank.qp.solve_qp`): w = -sum_m alpha_m a_m.

    The bounds are certified: the best f(w^m) seen is an upper bound on
    min f, and the master's dual value b'alpha - 1/2 ||A'alpha||^2 at the
    (projected) alpha on the simplex is a lower bound on min J_t <= min f by
    weak duality, whatever the accuracy of the QP solve.  (The master's
    primal value J_t(w^{t+1}) is not: at an inexactly solved w it can lie
    above min f.)  So the recorded gap is always >= 0.  The dual QP is
    divided by the best f so far, so that Clarabel's absolute tolerances
    act on values of order 1 even when ||a_m||^2 ~ (C p)^2 is huge.  A plane
    whose weight alpha_m stayed ~0 for 50 master problems in a row leaves
    the bundle (its optimum needs at most n + 1 planes), which keeps each
    QP small; the bound stays valid.

    Parameters
    ----------
    X, y, qid, C, method, sample_weight
        As :func:`ranksvm_tron`.
    eps : float
        Stop when (best f - lower bound) <= eps * best f.
    max_iter : int
        Maximum number of cutting planes.
    w0 : array_like, shape (n,), optional
        First point (default zeros).
    callback, callback_every
        ``info.primal`` is the best f so far, ``info.dual`` the certified
        lower bound; extras ``f_current`` (f at the newest point) and
        ``n_planes`` (planes in the bundle).
    keep_iterates : bool
        Also return ``iterates``: the best w after every cutting plane.

    Returns
    -------
    SolverResult
        ``x`` (the best w seen), ``primal_objective`` (its f of Eq. 1.2),
        ``dual_objective`` (the lower bound), ``gap`` (>= 0), ``nit``,
        ``dual`` (the weights alpha of the planes in the final bundle),
        ``n_pairs``, ``trace``.

    Raises
    ------
    ValueError
        As :func:`ranksvm_tron`; also when Clarabel fails on a master
        problem (the message says to scale X, lower C or use the L2 loss).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [1.0, 1.0]])
    >>> res = ranksvm_cutting_plane(X, [2, 0, 1, 1], [1, 1, 1, 2], C=10.0, eps=1e-6)
    >>> res.status, bool(0 <= res.gap <= 1e-6 * res.primal_objective)
    ('converged', True)
    """
    obj = RankSVMObjective(X, y, qid, C=C, method=method, sample_weight=sample_weight)
    return _cutting_plane(obj, eps=eps, max_iter=max_iter, w0=w0, callback=callback,
                          callback_every=callback_every, keep_iterates=keep_iterates)


#: A cutting plane whose bundle weight stayed below ``_IDLE_ALPHA`` for
#: ``_IDLE_PLANES`` master problems in a row leaves the bundle (as in SVMstruct
#: and BMRM codes): the master QP stays small (its optimum needs at most n + 1
#: planes) and the lower bound stays valid (any subset of the planes is a
#: model below the loss).
_IDLE_PLANES = 50
_IDLE_ALPHA = 1e-8


def _master_dual(P, b, scale: float, it: int) -> np.ndarray:
    """alpha on the simplex minimising 1/2 alpha'P alpha - b'alpha with P =
    AA' (the dual of Eq. 3.3), divided by ``scale`` for Clarabel; projected
    back onto the simplex."""
    t = b.size
    try:
        qp = solve_qp(P / scale, -b / scale, A_eq=np.ones((1, t)), b_eq=np.ones(1),
                      G=-np.eye(t), h=np.zeros(t), tol=1e-10)
    except RuntimeError as exc:
        raise ValueError(f"X: Clarabel failed on the cutting-plane master problem "
                         f"(Eq. 3.3) after {it} planes ({exc}); scale X (e.g. "
                         f"sklearn.preprocessing.StandardScaler), lower C, or use "
                         f"loss='l2'") from exc
    alpha = np.maximum(qp.x, 0.0)
    return alpha / alpha.sum()


def _cutting_plane(obj: RankSVMObjective, *, eps=1e-3, max_iter=500, w0=None, callback=None,
                   callback_every=1, keep_iterates=False) -> SolverResult:
    """:func:`ranksvm_cutting_plane` on a built objective."""
    eps = check_positive(eps, "eps")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    _check_pairs(obj)
    runner = CallbackRunner(callback, callback_every)
    n = obj.n_features
    w = np.zeros(n) if w0 is None else np.asarray(w0, dtype=np.float64).copy()
    A = np.zeros((0, n))                        # the bundle: planes a_m'w + b_m
    b = np.zeros(0)
    P = np.zeros((0, 0))                        # A A', grown by one row and column
    idle = np.zeros(0, dtype=np.int64)
    best_f, best_w = math.inf, w.copy()
    lower = -math.inf
    alpha = np.zeros(0)
    iterates = []
    status = STATUS_MAX_ITER
    it = 0
    for it in range(1, max_iter + 1):
        loss, a = obj.l1_loss(w)
        f = 0.5 * float(w @ w) + loss
        if not math.isfinite(f):
            raise not_finite_error(obj.X, obj.C, "f(w)")
        if f < best_f:
            best_f, best_w = f, w.copy()
        Aa = A @ a
        P = np.block([[P, Aa[:, None]], [Aa[None, :], np.array([[float(a @ a)]])]])
        A = np.vstack([A, a])
        b = np.append(b, loss - float(a @ w))
        idle = np.append(idle, 0)
        alpha = _master_dual(P, b, best_f, it)
        w = -(A.T @ alpha)
        # weak duality: the master's dual value at any alpha on the simplex is
        # <= min J_t <= min f; and min f <= best_f
        bound = float(b @ alpha) - 0.5 * float(w @ w)
        if not math.isfinite(bound):
            raise not_finite_error(obj.X, obj.C, "the cutting-plane lower bound")
        lower = min(max(lower, bound), best_f)
        stop = runner.record(it, best_f, lower, f_current=f, n_planes=float(b.size))
        if keep_iterates:
            iterates.append(best_w.copy())
        if best_f - lower <= eps * best_f:
            status = STATUS_CONVERGED
            break
        if stop:
            status = STATUS_CALLBACK
            break
        idle = np.where(alpha < _IDLE_ALPHA, idle + 1, 0)
        keep = idle < _IDLE_PLANES
        if not keep.all():
            A, b, P, idle, alpha = A[keep], b[keep], P[np.ix_(keep, keep)], idle[keep], alpha[keep]
    messages = {
        STATUS_CONVERGED: f"gap {best_f - lower:.3g} <= eps * f after {it} cutting planes",
        STATUS_MAX_ITER: f"max_iter={max_iter} cutting planes; gap {best_f - lower:.3g}",
        STATUS_CALLBACK: f"callback raised StopIteration after cutting plane {it}",
    }
    return SolverResult(
        x=best_w, dual=alpha, primal_objective=best_f, dual_objective=lower,
        gap=best_f - lower, nit=it, success=status == STATUS_CONVERGED,
        status=status, message=messages[status], solver="cutting-plane-l1",
        trace=runner.trace, n_pairs=obj.n_pairs, method=obj.method, C=obj.C,
        **({"iterates": iterates} if keep_iterates else {}))
