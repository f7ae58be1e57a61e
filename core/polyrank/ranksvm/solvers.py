"""Drivers: Tree-TRON / PRSVM+ for the L2 loss (Eq. 1.3); dual coordinate
descent and a cutting-plane (bundle) method for the L1 loss (Eq. 1.2).

Source: ``large-scale-linear-ranksvm.txt``, Sec. 4.1 (TRON), Sec. 2.3-2.4
(trees), Sec. 3.1 (PRSVM+), Sec. 3.2 (the cutting-plane method of Teo et
al. 2010, Eq. 3.3-3.4, as in TreeRankSVM); dual coordinate descent:
Hsieh et al., "A Dual Coordinate Descent Method for Large-scale Linear
SVM", ICML 2008 (LIBLINEAR's L1-loss SVM solver) on the pair differences.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._csr import row_arrays
from ..qp import solve_qp
from ..result import (
    STATUS_CALLBACK,
    STATUS_CONVERGED,
    STATUS_MAX_ITER,
    CallbackRunner,
    SolverResult,
    finish,
)
from ..tron import tron
from ..validation import as_float_array, check_int, check_positive
from . import _dcd as dcd_kernels
from .objective import RankSVMObjective, not_finite_error

__all__ = ["ranksvm_tron", "ranksvm_dcd", "ranksvm_cutting_plane"]

_SOLVER_NAMES = {"selection_tree": "tree-tron", "y_tree": "y-tree-tron",
                 "direct": "direct-count-tron", "prsvm_plus": "prsvm+"}


def _kept(iterates: list | None) -> dict[str, Any]:
    """The ``iterates`` entry of a result (none when they were not kept)."""
    return {} if iterates is None else {"iterates": iterates}


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
                 tol: float = 1e-3, max_iter: int = 1000, partial_pairs: bool = False,
                 sample_weight=None, w0=None, callback=None, callback_every: int = 1,
                 keep_iterates: bool = False, n_jobs=None) -> SolverResult:
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
        The loss weight of Eq. 1.3 (> 0).
    method : {"selection_tree", "y_tree", "direct", "prsvm_plus"}
    tol : float
        Relative gradient tolerance: the paper's epsilon_s in Eq. 4.4
        (default 1e-3, the paper's and LIBLINEAR's).
    max_iter : int
        Maximum number of iterations, one iteration being one accepted
        Newton step.
    partial_pairs : bool
        Only pairs of adjacent relevance levels (Sec. 5).
    sample_weight : array_like, shape (l,), optional
        Document weights s_i >= 0; a pair weighs s_i s_j (integer weights
        equal duplicated documents, weight 0 = absent), see
        :class:`~polyrank.ranksvm.objective.RankSVMObjective`.
    w0 : array_like, shape (n,), optional
        Start (default zeros, as in the paper).
    callback, callback_every
        See :func:`polyrank.tron.tron`: one call per trust-region step;
        ``info.primal`` is f(w), ``info.dual`` the L2-SVM dual at alpha(w),
        ``info.gap`` their difference (>= 0, zero at the optimum); extras
        ``grad_norm``, ``delta``, ``cg_iter``, ``cg_total``, ``accepted``,
        ``actred``, ``prered`` as in :func:`~polyrank.tron.tron`.
    keep_iterates : bool
        Return ``iterates`` (w after every step), see :func:`~polyrank.tron.tron`.
    n_jobs : int or None
        Threads for f, the gradient and the Hessian-vector products.  None:
        one thread, LIBLINEAR's order of the sums; an int: threads
        (-1 all CPUs) over fixed blocks of whole queries and fixed row
        ranges of X, partial sums added in a fixed order, so that the
        iterates and the result are bitwise the same for every int (and
        differ from None only by rounding in X'r; see
        :class:`~polyrank.ranksvm.objective.RankSVMObjective`).

    Returns
    -------
    SolverResult
        As :func:`polyrank.tron.tron` (``x`` w, ``grad_norm``,
        ``grad_norm0``, ``f0``, ``n_hv`` ...), plus ``n_pairs`` (p),
        ``method``, ``C`` and ``n_sv`` (|SV(w)|, Eq. 2.8).

    Raises
    ------
    ValueError
        Bad shapes, NaN/inf, C <= 0, tol <= 0, unknown method, bad weights,
        no preference pair at all, an objective that is not finite in
        float64 (X far too large or too small: scale it), or ``n_jobs = 0``.
    TypeError
        Non-numeric input, non-integer qid, or ``n_jobs`` not None or an int.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [1.0, 1.0]])
    >>> res = ranksvm_tron(X, [2, 0, 1, 1], [1, 1, 1, 2], C=10.0, tol=1e-8)
    >>> res.status, res.n_pairs, bool(res.x[0] > res.x[1])
    ('converged', 3, True)
    """
    obj = RankSVMObjective(X, y, qid, C=C, method=method, partial_pairs=partial_pairs,
                           sample_weight=sample_weight, n_jobs=n_jobs)
    return _tron(obj, tol=tol, max_iter=max_iter, w0=w0, callback=callback,
                 callback_every=callback_every, keep_iterates=keep_iterates)


def _tron(obj: RankSVMObjective, *, tol=1e-3, max_iter=1000, w0=None, callback=None,
          callback_every=1, keep_iterates=False, min_iter=0,
          start_gap=None) -> SolverResult:
    """:func:`ranksvm_tron` on a built objective (the estimator's entry:
    its input is validated once, by ``validate_data``; ``min_iter`` and
    ``start_gap``: see :func:`polyrank.tron.tron`)."""
    _check_pairs(obj)
    solver = "partial-pairs-tron" if obj.partial_pairs else _SOLVER_NAMES[obj.method]
    res = tron(obj, w0, tol=tol, max_iter=max_iter, callback=callback,
               callback_every=callback_every, keep_iterates=keep_iterates, solver=solver,
               min_iter=min_iter, start_gap=start_gap)
    # (the dual and the gap are NaN, not infinite, where the dual says nothing)
    for key in ("primal_objective", "grad_norm", "grad_norm0"):
        if not math.isfinite(res[key]):
            raise not_finite_error(obj.X, obj.C, key)
    res.n_pairs = obj.n_pairs
    res.method = "adjacent" if obj.partial_pairs else obj.method
    res.C = obj.C
    res.n_sv = obj.workspace(res.x).p_w
    return res


def ranksvm_cutting_plane(X, y, qid, C: float = 1.0, *, method: str = "selection_tree",
                          tol: float = 1e-3, max_iter: int = 500, sample_weight=None,
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
    tol : float
        Stop when (best f - lower bound) <= tol * best f (a relative gap,
        as in TreeRankSVM; Sec. 3.2 names no symbol for it).
    max_iter : int
        Maximum number of iterations, one iteration being one cutting
        plane.
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
    >>> res = ranksvm_cutting_plane(X, [2, 0, 1, 1], [1, 1, 1, 2], C=10.0, tol=1e-6)
    >>> res.status, bool(0 <= res.gap <= 1e-6 * res.primal_objective)
    ('converged', True)
    """
    obj = RankSVMObjective(X, y, qid, C=C, method=method, sample_weight=sample_weight)
    return _cutting_plane(obj, tol=tol, max_iter=max_iter, w0=w0, callback=callback,
                          callback_every=callback_every, keep_iterates=keep_iterates)


#: A cutting plane whose bundle weight stayed below ``_IDLE_ALPHA`` for
#: ``_IDLE_PLANES`` master problems in a row leaves the bundle (as in SVMstruct
#: and BMRM codes): the master QP stays small (its optimum needs at most n + 1
#: planes) and the lower bound stays valid (any subset of the planes is a
#: model below the loss).
_IDLE_PLANES = 50
_IDLE_ALPHA = 1e-8


#: Clarabel's tolerances for the master problem, tried in turn: on badly scaled
#: planes (large C, unscaled X) it can stop with "InsufficientProgress" at 1e-10; a
#: less accurate alpha is still a point of the simplex, so the lower bound computed
#: from it stays valid (weak duality), only the next plane may be less useful
_MASTER_TOLS = (1e-10, 1e-8, 1e-6)


def _master_dual(P, b, scale: float, it: int) -> np.ndarray:
    """alpha on the simplex minimising 1/2 alpha'P alpha - b'alpha with P =
    AA' (the dual of Eq. 3.3), divided by ``scale`` for Clarabel; projected
    back onto the simplex."""
    t = b.size
    for tol in _MASTER_TOLS:
        try:
            qp = solve_qp(P / scale, -b / scale, A_eq=np.ones((1, t)), b_eq=np.ones(1),
                          G=-np.eye(t), h=np.zeros(t), tol=tol)
            break
        except RuntimeError as exc:
            error = exc
    else:
        raise ValueError(f"X: Clarabel failed on the cutting-plane master problem "
                         f"(Eq. 3.3) after {it} planes ({error}); scale X (e.g. "
                         f"sklearn.preprocessing.StandardScaler), lower C, or use "
                         f"loss='l2'") from error
    alpha = np.maximum(qp.x, 0.0)
    return alpha / alpha.sum()


def _cutting_plane(obj: RankSVMObjective, *, tol=1e-3, max_iter=500, w0=None, callback=None,
                   callback_every=1, keep_iterates=False) -> SolverResult:
    """:func:`ranksvm_cutting_plane` on a built objective."""
    tol = check_positive(tol, "tol")
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
        if best_f - lower <= tol * best_f:
            status = STATUS_CONVERGED
            break
        if stop:
            status = STATUS_CALLBACK
            break
        idle = np.where(alpha < _IDLE_ALPHA, idle + 1, 0)
        keep = idle < _IDLE_PLANES
        if not keep.all():
            A, b, P, idle, alpha = A[keep], b[keep], P[np.ix_(keep, keep)], idle[keep], alpha[keep]
    return finish(
        runner, status, solver="cutting-plane-l1", x=best_w, dual=alpha, primal=best_f,
        dual_objective=lower, nit=it, unit="cutting planes",
        rule=f"gap {best_f - lower:.3g} <= tol * f", progress=f"gap {best_f - lower:.3g}",
        limit=f"max_iter={max_iter}", n_pairs=obj.n_pairs, method=obj.method, C=obj.C,
        **_kept(iterates if keep_iterates else None))


def ranksvm_dcd(X, y, qid, C: float = 1.0, *, tol: float = 1e-3, max_iter: int = 1000,
                shrinking: bool = True, continuation: bool = True, sample_weight=None,
                alpha0=None, random_state=None, callback=None, callback_every: int = 1,
                keep_iterates: bool = False) -> SolverResult:
    """Solve L1-loss linear RankSVM (Eq. 1.2) by dual coordinate descent
    over the preference pairs.

    Minimises f(w) = 1/2 w'w + C sum_{(i,j) in P} c_ij max(0, 1 - w'(x_i -
    x_j)) through its dual, max sum_p alpha_p - 1/2 ||sum_p alpha_p (x_i -
    x_j)||^2 over 0 <= alpha_p <= C c_ij: LIBLINEAR's dual coordinate
    descent for the hinge-loss SVM (Hsieh et al., ICML 2008, Alg. 1, with
    its shrinking) applied to the pair differences, which are never stored
    (a step reads rows i and j of X).  After every pass over all pairs,
    whenever the shrunk problem is solved, and every 10 passes, w is
    rebuilt exactly from alpha (no drift) and the duality gap f(w) -
    D(alpha) is computed over all pairs, f(w) with the selection tree
    (Sec. 2.4), f also at the mean w of the passes since the last
    measurement; the solve stops when the gap of the best w seen is <= tol
    * f(w): a certificate, whatever the shrinking did.

    Memory is O(p) (two indices, alpha, the bound and ||x_i - x_j||^2 per
    pair: 40 bytes); with a dense X whose p x n pair differences take at
    most 256 MB, those are stored too, row by row as LIBLINEAR has them (one
    dot product and one axpy per step instead of two each: about 2x faster
    on MQ2008).  :func:`ranksvm_cutting_plane` needs O(l) and suits more
    pairs than fit in memory.  Not in the paper, which solves Eq. 1.2
    by TreeRankSVM's cutting planes (Sec. 3.2, 4.4): that method needs
    hundreds of planes at large C, this one converges on the paper's whole
    C grid (``polyrank reproduce ranksvm-methods``).

    At large C the passes find within a few tens which pairs end at a bound
    but need thousands to settle the alphas near the margin (MQ2008 at C =
    2^10: about 2,800 passes for a relative gap of 1e-3).  So from pass 20
    of a stage on, a gap measurement that does not certify also polishes,
    as OSQP polishes on its guessed active set: the pairs whose margin at
    the best w is within 0.1 of 1 or whose alpha is strictly inside its box
    (MQ2008: about 4,000 of 52,325) are solved exactly by Clarabel with
    every other alpha at its bound; the result replaces alpha when it
    raises D(alpha), and its w is one more primal candidate (then again
    after twice the passes, with twice the band; skipped above 20,000
    uncertain pairs, or when its estimated cost exceeds the passes of the
    stage so far, as with many features).  The gap is still that of all
    pairs: the stop stays a certificate.  MQ2008, C = 2^8 .. 2^10: 12-22
    passes (plus 171-235 in the continuation stages) for every seed.

    Parameters
    ----------
    X : array_like or scipy.sparse matrix, shape (l, n)
    y : array_like, shape (l,)
        Relevance labels: (i, j) is a pair where y_i > y_j in one query.
    qid : array_like of int, shape (l,)
        Query ids.
    C : float
        The loss weight of Eq. 1.2 (> 0): the box [0, C c_ij] of each alpha.
    tol : float
        Relative duality gap to stop at (> 0): stop when f(w) - D(alpha) <=
        tol * f(w) (not in the paper; the same role as its epsilon_s).
    max_iter : int
        Maximum number of iterations, one iteration being one pass over the
        (active) pairs.
    shrinking : bool
        LIBLINEAR's shrinking: pairs at a bound that stay there leave the
        passes until the shrunk problem is solved (the gap is always
        measured on all pairs).  False: every pass visits every pair.
    continuation : bool
        From a cold start at a large C, first solve at C 2^-k, ..., C / 2
        (k such that C 2^-k times the median ||x_i - x_j||^2 is about 1),
        each to ``tol`` and each warm-starting the next with alpha doubled:
        dual coordinate descent needs many passes at large C from zero and
        few from the solution at C / 2 (on MQ2008 at C = 2^7: over 1,000
        passes cold, about 140 along the path).  Each stage has its own
        ``max_iter``; their passes are reported as ``continuation_passes``.
        Ignored with ``alpha0``.
    sample_weight : array_like, shape (l,), optional
        Document weights s_i >= 0; a pair weighs c_ij = s_i s_j.
    alpha0 : array_like, shape (p,), optional
        Warm start: dual variables in the order of ``result.dual`` of a
        previous solve on the same (y, qid, sample_weight), each in
        [0, C c_ij] (e.g. the solution at C' times C / C', along a grid of
        C).  Default zeros.
    random_state : int, Generator or None
        Seed of the pass orders.
    callback, callback_every
        ``callback(info: IterInfo)`` at every gap measurement at the
        requested C (not during continuation; ``info.iteration`` counts
        passes): ``info.primal`` = f of the best w so
        far, ``info.dual`` = D(alpha); extras ``f_current`` (f of this
        pass's w), ``n_active``, ``n_changed``; ``info.time_s`` counts
        from the start of the solve, continuation included.  Raising
        StopIteration stops.
    keep_iterates : bool
        Also return ``iterates``: the best w at every gap measurement at C.

    Returns
    -------
    SolverResult
        ``x``: the best w (n,); ``dual``: alpha (p,), pairs in query order
        (:func:`~polyrank.ranksvm._dcd.enumerate_pairs`);
        ``primal_objective``, ``dual_objective``, ``gap`` (>= 0 up to
        rounding), ``nit`` (passes), ``status``, ``trace``; plus
        ``n_pairs``, ``C``, ``method="dcd"``, ``n_sv`` (pairs with
        alpha_p > 0) and ``continuation_passes``.

    Raises
    ------
    ValueError
        Bad shapes, NaN/inf, C <= 0, tol <= 0, bad weights, no preference
        pair, ``alpha0`` of the wrong length or outside [0, C c_ij], or an
        objective that is not finite in float64 (scale X).
    TypeError
        Non-numeric input or non-integer qid.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [1.0, 1.0]])
    >>> y, qid = [2, 0, 1, 1], [1, 1, 1, 2]
    >>> res = ranksvm_dcd(X, y, qid, C=10.0, tol=1e-8)
    >>> res.status, res.n_pairs, bool(res.x[0] > res.x[1]), res.dual.size
    ('converged', 3, True, 3)
    """
    obj = RankSVMObjective(X, y, qid, C=C, sample_weight=sample_weight)
    return _dcd(obj, tol=tol, max_iter=max_iter, shrinking=shrinking, alpha0=alpha0,
                continuation=continuation, random_state=random_state, callback=callback,
                callback_every=callback_every, keep_iterates=keep_iterates)


#: dual coordinate descent measures the duality gap (a full X w, a tree
#: count and w rebuilt from alpha) after a pass over all pairs, when the
#: shrunk problem is solved, and otherwise every ``_GAP_EVERY`` passes: a
#: fixed cadence, so the stop comes at most 9 passes after the gap met the
#: tolerance (it was max(10, it / 4) passes: on MQ2008 at C = 2^8 the stop
#: came 300 to over 1,000 passes in, depending on the seed)
_GAP_EVERY = 10
#: dense X: store the pair differences when they take at most this many MB
_PAIR_CACHE_MB = 256
_NO_PAIRS = np.empty((0, 0))
#: shrinking: the shrunk problem counts as solved when its projected
#: gradients span at most this (LIBLINEAR's unshrinking test)
_PG_TOL = 1e-3
#: polishing (:func:`_dcd_polish`): first at the measurement at or after this
#: many passes of a stage that does not certify, then after twice the passes
_POLISH_AFTER = 20
#: the uncertain pairs of the first polish: margin within this of 1 (doubled
#: at each later polish), or alpha strictly inside its box
_POLISH_BAND = 0.1
#: polish only when there are at most this many uncertain pairs (MQ2008 at
#: C = 2^10: about 4,000 with the first band; all 52,325 take Clarabel ~10 s)
_POLISH_MAX_PAIRS = 20_000
#: ... and when their rows x_i, x_j have at most twice this many nonzeros
#: (the QP's constraint matrix; MQ2008: 46 per pair)
_POLISH_MAX_NNZ = 4_000_000
#: the cost of a polish in passes: this times nnz(S) min(n, |S|) over nnz(P)
#: (the nonzeros of the rows x_i, x_j of the uncertain pairs S and of all
#: pairs P); calibrated: MQ2008 (n = 46) about 18 passes estimated, 20-40
#: measured; generated dense data, n = 1,000: about 800 estimated, 3,000
#: measured (30 s a polish against 10 ms a pass)
_POLISH_COST = 5.0


def _dcd_passes(obj, rows, pairs, alpha, *, C, tol, max_iter, shrinking, rng,
                runner=None, iterates=None):
    """Passes of dual coordinate descent on the problem with the pairs and
    bounds of ``pairs`` (:class:`~polyrank.ranksvm._dcd.PairArrays`) until
    the duality gap of the best w seen is <= tol * f(w) (or max_iter);
    alpha is updated in place.  Returns (w, primal, dual, passes, status).

    The candidates for the best w are w(alpha) at every measurement and the
    mean of the passes' w since the previous one: f(w) of the iterates
    oscillates by about 0.1 % at large C, and the mean (f is convex) is
    often below them; either is a primal point, so the gap stays a
    certificate.  From pass ``_POLISH_AFTER`` on, a measurement that does not
    certify also polishes (:func:`_dcd_polish`), then again after twice as
    many passes, each time with twice the band."""
    I, J = pairs.I, pairs.J
    p, l = I.size, obj.X.shape[0]
    w = obj._rmatvec(dcd_kernels.pair_coef(I, J, alpha, l))
    active = np.arange(p, dtype=np.int64)
    n_active = p
    pg_max_old, pg_min_old = math.inf, -math.inf
    best_w, best_f = w, math.inf
    dual = math.nan
    w_sum, since = np.zeros_like(w), 0
    polish_at, band = _POLISH_AFTER, _POLISH_BAND
    for it in range(1, max_iter + 1):
        full = n_active == p
        n_active, pg_max, pg_min, changed = dcd_kernels.dcd_epoch(
            *rows, pairs, dcd_kernels.DcdIterate(alpha, w, active), n_active, pg_max_old,
            pg_min_old, shrinking, int(rng.integers(2**31 - 1)))
        solved = pg_max - pg_min <= _PG_TOL or changed == 0   # this (shrunk) problem
        since += 1
        w_sum += w
        moved = False
        if full or solved or since >= _GAP_EVERY or it == max_iter:
            w, f, dual, best_w, best_f, moved = _dcd_check(
                obj, pairs, alpha, C, w_sum / since, best_w, best_f, tol,
                (band, it) if it >= polish_at else None)
            w_sum[:], since = 0.0, 0
            if it >= polish_at:
                polish_at, band = 2 * it, 2.0 * band
            if iterates is not None:
                iterates.append(best_w)
            stop = runner is not None and runner.record(
                it, best_f, dual, f_current=f, n_active=float(n_active),
                n_changed=float(changed))
            if best_f - dual <= tol * best_f:
                return best_w, best_f, dual, it, STATUS_CONVERGED
            if stop:
                return best_w, best_f, dual, it, STATUS_CALLBACK
        if moved or (n_active < p and solved):
            # alpha polished, or the shrunk problem is solved but the whole
            # one is not: all pairs back in (LIBLINEAR's rule)
            n_active = p
            pg_max_old, pg_min_old = math.inf, -math.inf
        else:
            pg_max_old = pg_max if pg_max > 0 else math.inf
            pg_min_old = pg_min if pg_min < 0 else -math.inf
    return best_w, best_f, dual, max_iter, STATUS_MAX_ITER


def _dcd_check(obj, pairs, alpha, C, w_mean, best_w, best_f, tol, polish):
    """A gap measurement of :func:`_dcd_passes` (:func:`_dcd_measure`) and,
    when it does not certify and ``polish`` = (band, passes of the stage so
    far) is not None, a polish (:func:`_dcd_polish`): its alpha replaces
    alpha (in place) when its D(alpha) is higher, and the w of its QP is one
    more primal candidate.
    Returns (w, f(w), D(alpha), best_w, best_f, alpha_replaced)."""
    w, f, dual, best_w, best_f = _dcd_measure(obj, pairs, alpha, C, w_mean, best_w, best_f)
    if polish is None or best_f - dual <= tol * best_f:
        return w, f, dual, best_w, best_f, False
    polished = _dcd_polish(obj, pairs, alpha, best_w, *polish, tol)
    if polished is None:
        return w, f, dual, best_w, best_f, False
    new_alpha, w_qp = polished
    w_new, f_new, dual_new, best_w, best_f = _dcd_measure(obj, pairs, new_alpha, C, w_qp,
                                                          best_w, best_f)
    if dual_new <= dual:
        return w, f, dual, best_w, best_f, False
    alpha[:] = new_alpha
    return w_new, f_new, dual_new, best_w, best_f, True


def _dcd_polish(obj, pairs, alpha, best_w, band, passes, tol):
    """A final stage on the uncertain pairs: the pairs whose margin
    w'(x_i - x_j) at ``best_w`` lies within ``band`` of 1, or whose alpha_p is
    strictly inside [0, U_p], solved exactly by Clarabel
    (:func:`polyrank.qp.solve_qp`, the primal with a slack per uncertain pair)
    to 1e-3 ``tol`` (at most 1e-6, at least 1e-10) while every other pair
    keeps its bound (U_p below the margin, 0 above).
    Dual coordinate descent finds these bounds within a few passes but needs
    thousands to settle the few thousand alphas near the margin at large C
    (on MQ2008 at C = 2^10).  Returns (alpha, w of the QP): a feasible alpha
    (the QP's multipliers, clipped to the box) to measure over all pairs, or
    None (no uncertain pair, too many pairs or nonzeros, Clarabel did not
    solve, or its estimated cost exceeds the ``passes`` of the stage so far:
    ``_POLISH_COST`` nnz(S) min(n, |S|) against nnz(P), nnz of a set of
    pairs being that of their rows x_i and x_j, so a polish about at most
    doubles the work where it does not help; MQ2008: about 18 passes)."""
    I, J, U = pairs.I, pairs.J, pairs.U
    Xw = obj._matvec(best_w)
    margin = Xw[I] - Xw[J]
    S = (np.abs(1.0 - margin) <= band) | ((alpha > 0.0) & (alpha < U))
    s, n = int(np.count_nonzero(S)), obj.n_features
    row_nnz = np.diff(obj.X.indptr) if sp.issparse(obj.X) else np.full(obj.X.shape[0], n)
    nnz_S = float(row_nnz[I[S]].sum() + row_nnz[J[S]].sum())
    work = float(row_nnz[I].sum() + row_nnz[J].sum())      # nonzeros read by a pass
    if (s == 0 or s > _POLISH_MAX_PAIRS or nnz_S > 2 * _POLISH_MAX_NNZ
            or _POLISH_COST * nnz_S * min(n, s) > passes * work):
        return None
    Z = sp.csc_matrix(obj.X[I[S]] - obj.X[J[S]])
    below = np.where(~S & (margin < 1.0), U, 0.0)
    b = obj._rmatvec(dcd_kernels.pair_coef(I, J, below, obj.X.shape[0]))
    eye = sp.eye(s, format="csc")
    G = sp.vstack([sp.hstack([-Z, -eye]), sp.hstack([sp.csc_matrix((s, n)), -eye])],
                  format="csc")
    P = sp.diags(np.r_[np.ones(n), np.zeros(s)], format="csc")
    try:
        res = solve_qp(P, np.r_[-b, U[S]], G=G, h=np.r_[-np.ones(s), np.zeros(s)],
                       tol=min(1e-6, max(1e-10, 1e-3 * tol)))
    except RuntimeError:
        return None
    below[S] = np.clip(res.dual["ineq"][:s], 0.0, U[S])
    return below, res.x[:n]


def _dcd_measure(obj, pairs, alpha, C, w_mean, best_w, best_f):
    """One gap measurement of :func:`_dcd_passes`: w rebuilt exactly from
    alpha (no drift, so D(alpha) is a true lower bound), f at it and at
    ``w_mean``, and the best of them and (best_w, best_f).  Returns (w,
    f(w), D(alpha), best_w, best_f)."""
    w = obj._rmatvec(dcd_kernels.pair_coef(pairs.I, pairs.J, alpha, obj.X.shape[0]))
    sq = float(w @ w)
    f = 0.5 * sq + C * obj.workspace(w).hinge
    dual = float(alpha.sum()) - 0.5 * sq
    if not (math.isfinite(f) and math.isfinite(dual)):
        raise not_finite_error(obj.X, C, "f(w)")
    f_mean = 0.5 * float(w_mean @ w_mean) + C * obj.workspace(w_mean).hinge
    for cand, fc in ((w, f), (w_mean, f_mean)):
        if fc < best_f:                 # f(w) is not monotone in the passes
            best_w, best_f = cand.copy(), fc
    return w, f, dual, best_w, best_f


def _dcd(obj: RankSVMObjective, *, tol=1e-3, max_iter=1000, shrinking=True, alpha0=None,
         continuation=True, random_state=None, callback=None, callback_every=1,
         keep_iterates=False) -> SolverResult:
    """:func:`ranksvm_dcd` on a built objective (the estimator's entry)."""
    tol = check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    for name, value in (("shrinking", shrinking), ("continuation", continuation)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name}: expected a bool, got {type(value).__name__}")
    _check_pairs(obj)
    g = obj.groups
    sw = obj.sample_weight if obj.sample_weight is not None else np.empty(0)
    I, J, c = dcd_kernels.enumerate_pairs(g.perm, g.start, g.level, sw)
    U = obj.C * c
    rows = row_arrays(obj.X)
    Qd = dcd_kernels.pair_sqnorms(*rows, obj.n_features, I, J)  # type: ignore[call-arg]
    # dense X: the pair differences stored row by row when they fit in
    # _PAIR_CACHE_MB (LIBLINEAR's layout on explicit pairs)
    D = _NO_PAIRS
    if not sp.issparse(obj.X) and I.size * obj.n_features * 8 <= _PAIR_CACHE_MB * 2**20:
        D = np.ascontiguousarray(obj.X[I] - obj.X[J])
    if not np.all(np.isfinite(Qd)):
        raise not_finite_error(obj.X, obj.C, "||x_i - x_j||^2")
    p = I.size
    if alpha0 is None:
        alpha = np.zeros(p)
    else:
        alpha = as_float_array(alpha0, "alpha0", ndim=1).copy()
        if alpha.size != p:
            raise ValueError(f"alpha0: expected {p} dual variables (one per preference "
                             f"pair), got {alpha.size}")
        if alpha.min() < 0 or np.any(alpha > U * (1.0 + 1e-12)):
            raise ValueError("alpha0: every alpha_p must lie in [0, C c_ij]; scale a "
                             "solution at C' by C / C'")
        np.minimum(alpha, U, out=alpha)      # a scaled solution's rounding
    pairs = dcd_kernels.PairArrays(I, J, U, Qd, D)
    rng = np.random.default_rng(random_state)
    # continuation: from a cold start at a large C, solve at C 2^-k, ..., C/2
    # first (each warm-starts the next, alpha scaled by 2), k such that the
    # first C times the median ||x_i - x_j||^2 is about 1
    q = float(np.median(Qd[Qd > 0])) if np.any(Qd > 0) else 1.0
    n_stages = (max(0, math.ceil(math.log2(obj.C * q))) if continuation and alpha0 is None
                else 0)
    # the clock of the trace starts before the continuation stages
    runner = CallbackRunner(callback, callback_every)
    passes = 0
    for k in range(n_stages, 0, -1):
        Ck = obj.C * 2.0 ** -k
        if k < n_stages:
            alpha *= 2.0
        # each stage to tol: looser stages (tried: 1e-2) cost more passes later
        *_, used, _ = _dcd_passes(obj, rows, pairs._replace(U=U * 2.0 ** -k), alpha, C=Ck,
                                  tol=tol, max_iter=max_iter, shrinking=shrinking, rng=rng)
        passes += used
    if n_stages:
        alpha *= 2.0
    iterates: list | None = [] if keep_iterates else None
    w, primal, dual, it, status = _dcd_passes(
        obj, rows, pairs, alpha, C=obj.C, tol=tol, max_iter=max_iter,
        shrinking=shrinking, rng=rng, runner=runner, iterates=iterates)
    return finish(
        runner, status, solver="dcd-l1", x=w, dual=alpha, primal=primal,
        dual_objective=dual, nit=it, unit="passes",
        rule=f"duality gap {primal - dual:.3g} <= tol * f",
        progress=f"duality gap {primal - dual:.3g}", limit=f"max_iter={max_iter}",
        n_pairs=obj.n_pairs, method="dcd", C=obj.C, n_sv=int(np.count_nonzero(alpha)),
        continuation_passes=passes, **_kept(iterates))
