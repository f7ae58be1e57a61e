"""Clarabel reference solutions of the M3L dual D2 (for tests and
experiments; small problems only).

Source: ``m3l-multilabel-zero-shot.txt``, Eq. 25 (and Eq. 59-60 of
Appendix B: the dual as one QP over vec(alpha) with Q = 4 Y (K kron R) Y).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..qp import solve_qp
from ..result import SolverResult
from ..validation import as_float_array, check_positive
from .priors import check_R, labels_pm1

__all__ = ["dual_qp"]


def dual_qp(K, Y, R, C: float, tol: float = 1e-10, sample_weight=None) -> SolverResult:
    """Solve D2 (Eq. 25) with the Hamming loss exactly by Clarabel.

    Minimises ``1/2 a'Pa + q'a`` over vec(alpha) (row-major: index
    i * L + l) with ``P = 4 diag(y) (K kron R) diag(y)``, ``q = -2`` (the
    Hamming loss gives Delta^- - Delta^+ = 2) and 0 <= a_il <= C w_i.

    Parameters
    ----------
    K : array_like, shape (N, N)
        Gram matrix (symmetric PSD).
    Y : array_like, shape (N, L)
        Labels in {0, 1} or {-1, +1}.
    R : array_like, shape (L, L)
        Symmetric positive-definite prior.
    C : float
    tol : float
        Clarabel's tolerances.
    sample_weight : array_like, shape (N,), optional
        Per-example weights w_i >= 0 (the box of example i is [0, C w_i]).

    Returns
    -------
    SolverResult
        ``x``: alpha (N, L); ``dual_objective``: D2 at alpha (= -(1/2 a'Pa
        + q'a)); ``status``, ``solver="clarabel"``.

    Raises
    ------
    ValueError
        Bad shapes, R not symmetric positive definite, C <= 0.
    RuntimeError
        If Clarabel fails.

    Examples
    --------
    >>> import numpy as np
    >>> r = dual_qp(np.eye(2), [[1], [-1]], np.eye(1), 1.0)
    >>> np.round(r.x, 6).tolist()     # alpha = min(C, 1/4 * 2 / 1) per point
    [[0.5], [0.5]]
    """
    Y = labels_pm1(Y)
    N, L = Y.shape
    K = as_float_array(K, "K", ndim=2, shape=(N, N))
    R = check_R(R, L)
    C = check_positive(C, "C")
    w = np.ones(N) if sample_weight is None else as_float_array(
        sample_weight, "sample_weight", ndim=1, shape=(N,))
    if w.min() < 0:
        raise ValueError("sample_weight: expected weights >= 0")
    upper = np.repeat(C * w, L)
    y = Y.ravel()
    P = 4.0 * np.kron(K, R) * np.outer(y, y)
    P = 0.5 * (P + P.T)
    n = N * L
    q = np.full(n, -2.0)
    G = sp.vstack([sp.identity(n, format="csc"), -sp.identity(n, format="csc")]).tocsc()
    h = np.concatenate([upper, np.zeros(n)])
    res = solve_qp(P, q, G=G, h=h, tol=tol)
    a = np.clip(res.x, 0.0, upper)
    dual = float(2.0 * a.sum() - 0.5 * a @ P @ a)
    return SolverResult(x=a.reshape(N, L), dual_objective=dual, status=res.status,
                        success=True, solver="clarabel", nit=res.nit,
                        message=res.message)
