"""Independent reference solutions of the SVOR problem of
:func:`polyrank.ordinal.solve_svor`.

Not the package's algorithm: the same problem written as a convex QP with
explicit slack variables, one per (object, threshold) pair, and solved by
Clarabel through :func:`polyrank.qp.solve_qp` (accurate to ~1e-9), for the
tests and the benchmark.  Small problems only: the QP has m + l + n l
variables (n + l + n l with a kernel, whose constraint rows are dense).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..kernels import check_kernel_params, kernel_matrix
from ..qp import solve_qp
from ..result import SolverResult
from ..validation import as_float_array, check_positive
from .generation import check_labels, check_X
from .svor import SVOR_LOSSES

__all__ = ["svor_qp"]


def _pairs(labels, l, cw):
    """The pairs (i, j) with c_i > 0, j = 0..l-1 the threshold between
    grades j and j + 1, and their signs s_ij (+1 if l_i > j)."""
    rows = np.flatnonzero(cw > 0)
    i = np.repeat(rows, l)
    j = np.tile(np.arange(l), rows.size)
    return i, j, np.where(labels[i] > j, 1.0, -1.0)


def svor_qp(X, labels, c: float = 10.0, *, loss: str = "squared_hinge",
            kernel: str = "linear", gamma=None, degree: int = 3, coef0: float = 1.0,
            sample_weight=None, tol: float = 1e-10) -> SolverResult:
    """Solve the SVOR problem by Clarabel, the slacks as variables.

    With f_i = x_i . w (linear) or (K u)_i (kernel, ||w||^2 = u'Ku)::

        min  ||w||^2 + ||b||^2 + sum_ij c v_i L(xi_ij)
        s.t. xi_ij >= 1 - s_ij (f_i - b_j)       for every pair with v_i > 0
             (xi_ij >= 0 for the hinge, L(t) = t; L(t) = t^2 needs no sign)

    Parameters
    ----------
    X : array_like or sparse, shape (n, m)
    labels : array_like of int, shape (n,)
        0..l, every label used.
    c, loss, kernel, gamma, degree, coef0, sample_weight
        As in :func:`polyrank.ordinal.solve_svor`.
    tol : float
        Clarabel's tolerances.

    Returns
    -------
    SolverResult
        ``x`` (w (m,) or u (n,)), ``thresholds`` b (l,), ``objective``
        (recomputed from x, b and the optimal slacks), ``scores`` f (n,),
        ``alpha`` (n, l): half the Clarabel multipliers of the pair
        constraints (LIBLINEAR's units: W = sum_ij alpha_ij s_ij (x_i, -e_j)),
        ``solver`` "clarabel".

    Raises
    ------
    ValueError, TypeError
        Bad input, as :func:`~polyrank.ordinal.solve_svor`; RuntimeError
        from Clarabel if it does not solve the QP.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0], [7.0]])
    >>> r = svor_qp(X, [0, 0, 1, 1, 2, 2])
    >>> bool(r.thresholds[0] < r.thresholds[1]), bool(r.x[0] > 0)
    (True, True)
    """
    if loss not in SVOR_LOSSES:
        raise ValueError(f"loss: expected one of {SVOR_LOSSES}, got {loss!r}")
    c = check_positive(c, "c")
    X = check_X(X, kernel)
    n = X.shape[0]
    labels, l = check_labels(labels, n)
    cw = np.full(n, c) if sample_weight is None else c * as_float_array(
        sample_weight, "sample_weight", ndim=1, shape=(n,))
    if kernel == "linear":
        A = X.toarray() if sp.issparse(X) else X
        Q = np.eye(A.shape[1])
    else:
        A = kernel_matrix(X, kernel=kernel,
                          **check_kernel_params(kernel, gamma, degree, coef0, X.shape[1]))
        Q = 0.5 * (A + A.T)
    d = A.shape[1]
    i, j, s = _pairs(labels, l, cw)
    p = i.size
    squared = loss == "squared_hinge"
    # -s_ij a_i . x + s_ij b_j - xi_ij <= -1
    G = sp.hstack([sp.csr_matrix(-s[:, None] * A[i]),
                   sp.csr_matrix((s, (np.arange(p), j)), shape=(p, l)),
                   -sp.identity(p, format="csr")], format="csc")
    h = -np.ones(p)
    P = sp.block_diag([sp.csr_matrix(2.0 * Q), 2.0 * sp.identity(l),
                       sp.diags(2.0 * cw[i] if squared else np.zeros(p))], format="csc")
    q = np.r_[np.zeros(d + l), np.zeros(p) if squared else cw[i]]
    if not squared:                                           # xi >= 0
        G = sp.vstack([G, sp.hstack([sp.csr_matrix((p, d + l)), -sp.identity(p)])],
                      format="csc")
        h = np.r_[h, np.zeros(p)]
    res = solve_qp(P, q, G=G, h=h, tol=tol, max_iter=500)
    x, b = res.x[:d].copy(), res.x[d:d + l].copy()
    f = A @ x
    r = np.maximum(0.0, 1.0 - s * (f[i] - b[j]))
    data = float(cw[i] @ (r * r if squared else r))
    alpha = np.zeros((n, l))
    alpha[i, j] = 0.5 * res.dual["ineq"][:p]
    return SolverResult(x=x, thresholds=b, objective=float(x @ Q @ x + b @ b) + data,
                        scores=f, alpha=alpha, solver="clarabel")
