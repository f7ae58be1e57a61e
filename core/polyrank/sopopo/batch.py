"""Batch label ranking by successive soft projections (Sec. 4, Fig. 5).

Solves the batch problem Eq. 6 (in the pseudo-example form Eq. 24/26, one
slack per piece with C_i = C sigma_i) by dual block-coordinate ascent on
Eq. 30: each step frees the dual variables of one piece and solves the
resulting soft projection Eq. 35 exactly with SOPOPO (Fig. 3).  Theorem 6
guarantees convergence of the dual to the optimum.
"""

from __future__ import annotations

import numpy as np

from ..kernels import check_kernel_params, kernel_matrix
from ..result import (STATUS_CALLBACK, STATUS_CONVERGED, STATUS_MAX_ITER,
                      CallbackRunner, SolverResult)
from ..validation import as_float_array, check_int, check_positive
from . import _kernels
from .graph import build_pieces

__all__ = ["sopopo_batch", "ORDERS", "STATUS_STALLED"]

#: ``status`` when a whole pass leaves the dual unchanged before the gap
#: tolerance is met (the tolerance is below what float64 resolves).
STATUS_STALLED = "stalled at rounding level"
#: greedy steps smaller than this (relative to |D|) are rounding noise
_GREEDY_MIN = 1e-16

#: Piece orders: "shuffle" (a fresh random permutation every pass),
#: "cyclic" (pieces in input order), "greedy" (the piece with the largest
#: dual increase at every step, as assumed in the analysis of Sec. 4.3).
ORDERS = ("shuffle", "cyclic", "greedy")


def _check_targets(Y, m: int) -> np.ndarray:
    Y = as_float_array(Y, "Y", ndim=2)
    if Y.shape[0] != m:
        raise ValueError(f"Y: expected {m} rows (one per example of X), got {Y.shape[0]}")
    if Y.shape[1] < 2:
        raise ValueError(f"Y: needs at least 2 labels (columns), got {Y.shape[1]}")
    return Y


def sopopo_batch(X, Y, C: float = 1.0, *, decomposition="all_pairs",
                 normalize: bool = False, kernel: str = "linear", gamma=None,
                 degree: int = 3, coef0: float = 1.0, order: str = "shuffle",
                 tol: float = 1e-3, atol: float = 0.0, max_iter: int = 1000,
                 callback=None, callback_every: int = 1,
                 random_state=None) -> SolverResult:
    """Fit a label ranker by the iterative soft-projection procedure of Fig. 5.

    Minimises Eq. 6 of ``sopopo-label-ranking.txt``::

        1/2 sum_r ||w_r||^2 + C sum_i sum_j sigma_j xi_j^i
        s.t. w_r.x_i - w_s.x_i >= gamma^i_r - gamma^i_s - xi_j^i  for (r, s) in E_j(gamma^i)

    over w_1..w_k (or their kernel expansions).  One iteration is one pass
    over all pieces (for ``order="greedy"``: as many greedy steps as there
    are pieces).  After every pass the primal objective (Eq. 24), the dual
    objective (Eq. 30) and their gap are recorded in the trace.

    Parameters
    ----------
    X : array_like, shape (m, n)
        Instances; for ``kernel="precomputed"`` the Gram matrix (m, m).
    Y : array_like, shape (m, k)
        Target rankings gamma^i (real valued; 0/1 multilabel rows are the
        special case of Sec. 2).  Rows with all entries equal are rejected.
    C : float
        Slack penalty C > 0.
    decomposition : str or callable
        ``"all_pairs"``, ``"adjacent_layers"``, ``"top_vs_rest"`` (Fig. 2),
        or ``callable(gamma) -> [(A, B[, sigma]), ...]`` checked against
        the conditions of Sec. 2.
    normalize : bool
        Use sigma_j = 1/d_i (the average piece loss) instead of sigma_j = 1.
    kernel : {"linear", "rbf", "poly", "precomputed"}
        Mercer kernel (end of Sec. 4.2).  The linear kernel with a
        non-greedy order keeps W (k, n) explicitly; every other case keeps
        dual coefficients and the training predictions F = K coef.
    gamma, degree, coef0 : float, int, float
        Kernel parameters (see :mod:`polyrank.kernels`).  ``gamma`` here is
        the rbf/poly width, not a target ranking.
    order : {"shuffle", "cyclic", "greedy"}
        Order in which pieces are visited (see :data:`ORDERS`).  "greedy"
        costs a sweep over all pieces per update; when no piece offers an
        increase above rounding noise (1e-16 |D|), it makes a cyclic pass.
    tol, atol : float
        Stop when ``P - D <= max(atol, tol * P)`` after a pass.  If a whole
        pass leaves every dual variable unchanged before that, the solve
        stops with ``status=STATUS_STALLED``, ``success=False``.
    max_iter : int
        Maximum number of passes.
    callback : callable, optional
        ``callback(info: IterInfo)`` after each pass; extras
        ``dual_increase`` (total over the pass) and ``max_dual_increase``.
        Raising :class:`StopIteration` stops the solve.
    callback_every : int
        Call the callback every this many passes.
    random_state : int, Generator or None
        Seed for ``order="shuffle"``.

    Returns
    -------
    SolverResult
        ``x``: W (k, n) for the explicit linear form, else the dual
        coefficients (m, k) with w_r = sum_i x[i, r] phi(x_i);
        ``dual``: dict with ``alpha``, ``beta`` (concatenated per piece, see
        ``pieces``) and ``pieces`` (:class:`PieceSet`); ``coef_form``:
        ``"primal"`` or ``"dual"``; ``primal_objective``,
        ``dual_objective``, ``gap``, ``nit``, ``status``, ``trace``.

    Raises
    ------
    ValueError
        Invalid shapes, NaN/inf, C <= 0, unknown decomposition/kernel/order,
        rows of Y without preferences, invalid custom decompositions.
    TypeError
        Non-numeric input or wrongly typed parameters.
    """
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol", strict=False)
    atol = check_positive(atol, "atol", strict=False)
    if tol == 0 and atol == 0:
        raise ValueError("tol, atol: at least one must be > 0")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    if order not in ORDERS:
        raise ValueError(f"order: expected one of {ORDERS}, got {order!r}")
    X = as_float_array(X, "X", ndim=2)
    m = X.shape[0]
    Y = _check_targets(Y, m)
    pieces = build_pieces(Y, decomposition, normalize, C)
    runner = CallbackRunner(callback, callback_every)
    rng = np.random.default_rng(random_state)
    alpha = np.zeros(pieces.A_idx.size)
    beta = np.zeros(pieces.B_idx.size)
    k = Y.shape[1]
    explicit = kernel == "linear" and order != "greedy"
    args = (pieces.example, pieces.C, pieces.A_ptr, pieces.A_idx,
            pieces.B_ptr, pieces.B_idx, alpha, beta)
    if explicit:
        W = np.zeros((k, X.shape[1]))
        sqnorm = np.einsum("ij,ij->i", X, X)
    else:
        if kernel == "precomputed":
            if X.shape[1] != m:
                raise ValueError(f"X: a precomputed kernel must be square (m, m), got {X.shape}")
            K = X
        else:
            params = check_kernel_params(kernel, gamma, degree, coef0, X.shape[1])
            K = kernel_matrix(X, kernel=kernel, **params)
        if np.any(np.diag(K) < 0):
            raise ValueError("X: the kernel matrix has negative diagonal entries; "
                             "it is not a Mercer (PSD) kernel")
        coef = np.zeros((m, k))
        F = np.zeros((m, k))
    P = pieces.n_pieces
    status = STATUS_MAX_ITER
    primal = dual = np.nan
    it = 0
    for it in range(1, max_iter + 1):
        changed = 0
        if order == "greedy":
            min_inc = _GREEDY_MIN * max(abs(dual), 1.0) if it > 1 else 0.0
            inc, big, changed = _kernels.greedy_kernel(K, Y, F, coef, P, min_inc, *args)
        if order != "greedy" or changed == 0:
            # greedy: once no piece offers more than rounding noise, a cyclic
            # pass still makes the (tiny, real) progress that noise hides
            perm = rng.permutation(P) if order == "shuffle" else np.arange(P)
            if explicit:
                inc, big, changed = _kernels.pass_linear(X, sqnorm, Y, W, perm, *args)
            else:
                inc, big, changed = _kernels.pass_kernel(K, Y, F, coef, perm, *args)
        if explicit:
            F = X @ W.T
            sqw = float(np.sum(W * W))
        else:
            # recompute the predictions exactly: no drift from the rank-one updates
            F = K @ coef
            sqw = float(np.sum(coef * F))
        primal, dual = _kernels.objectives(F, Y, *args, sqw)
        stop = runner.record(it, primal, dual, dual_increase=inc, max_dual_increase=big)
        if primal - dual <= max(atol, tol * abs(primal)):
            status = STATUS_CONVERGED
            break
        if stop:
            status = STATUS_CALLBACK
            break
        if changed == 0:
            status = STATUS_STALLED
            break
    messages = {
        STATUS_CONVERGED: f"duality gap {primal - dual:.3g} <= max(atol, tol * P) after {it} passes",
        STATUS_MAX_ITER: f"max_iter={max_iter} passes done; duality gap {primal - dual:.3g}",
        STATUS_CALLBACK: f"callback raised StopIteration after pass {it}",
        STATUS_STALLED: (f"pass {it} left the dual unchanged with duality gap "
                         f"{primal - dual:.3g} above the tolerance: tol is below what "
                         "float64 resolves here"),
    }
    return SolverResult(
        x=W if explicit else coef,
        coef_form="primal" if explicit else "dual",
        dual={"alpha": alpha, "beta": beta, "pieces": pieces},
        primal_objective=float(primal), dual_objective=float(dual),
        gap=float(primal - dual), nit=it, success=status == STATUS_CONVERGED,
        status=status, message=messages[status], solver="sopopo-batch",
        trace=runner.trace)
