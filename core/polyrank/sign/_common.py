"""What SC-SDCA and SC-Pegasos share: the objectives P (Eq. 1) and D
(Eq. 48) at a point, the dual point Pi_S(X' alpha / (lam n)) (Eq. 49), the
settings' checks and the duality-gap stopping rule
(``sign-constrained-sdca-pegasos.txt``).
"""

from __future__ import annotations

import numpy as np

from ..validation import check_int, check_positive
from . import _kernels as K
from .data import _csr


def _violation(w, c) -> float:
    """max(0, max_h -c_h w_h): 0.0 exactly when w satisfies the signs."""
    return float(max(0.0, np.max(-c * w)))


def _dual_point(Xc, alpha, lam, c):
    """(wbar, Pi_S(wbar)) with wbar = X' alpha / (lam n) (Eq. 49)."""
    n, d = Xc.shape
    wbar = np.empty((d,) + alpha.shape[1:])
    if isinstance(Xc, np.ndarray):              # layout "dense" (binary losses only)
        K.dense_xt_alpha(Xc, alpha, lam * n, wbar)
    else:
        K.xt_alpha(*_csr(Xc), alpha.reshape(n, -1), lam * n, wbar.reshape(d, -1))
    w_dual = np.empty_like(wbar)
    K.project_signs(wbar, c, w_dual)
    return wbar, w_dual


def _objectives(data, Xc, lam, smoothing, top_k, w, alpha, w_dual=None):
    """(P(w), D(alpha)) with the dual point Pi_S(X' alpha / (lam n))
    recomputed from alpha exactly unless given as ``w_dual``."""
    wbar = None
    if w_dual is None:
        wbar, w_dual = _dual_point(Xc, alpha, lam, data["c"])
    if data["multiclass"]:
        P, D = K.mc_objectives(*_csr(Xc), data["y"], data["sw"], data["code"], top_k, lam,
                               w, alpha, w_dual)
    elif isinstance(Xc, np.ndarray):
        P, D = K.dense_objectives(Xc, data["y"], data["sw"], data["code"], smoothing, lam, w,
                                  alpha, w_dual)
    else:
        P, D = K.objectives(*_csr(Xc), data["y"], data["sw"], data["code"], smoothing, lam, w,
                            alpha, w_dual)
    return float(P), float(D), wbar, w_dual


def _check_common(lam, smoothing, top_k, tol):
    lam = check_positive(lam, "lam")
    smoothing = check_positive(smoothing, "smoothing")
    if smoothing > 1:
        raise ValueError(f"smoothing: Table 1 requires 0 < smoothing <= 1, got {smoothing}")
    top_k = check_int(top_k, "top_k", minimum=1)
    tol = check_positive(tol, "tol", strict=False)
    return lam, smoothing, top_k, tol


def _gap_scale(data: dict, smoothing: float) -> float:
    """max(1, P(0)): what ``tol`` of :func:`sc_sdca` and :func:`sc_pegasos`
    is relative to.

    P(0) = (1/n) sum_i s_i phi_i(0) is the primal objective (Eq. 5) at
    w = 0.  For the classification losses of Table 1 it is at most 1 (1 for
    the hinge, 1 - gamma/2 for the smoothed hinge, log 2 for the logistic
    loss, 1 for every multiclass loss), so the stopping rule is the
    paper's absolute duality gap.  For a regression loss it is
    0.5 mean(y^2) or mean |y|, and a gap relative to it makes the stop
    independent of the targets' units (targets in the hundreds otherwise
    need an absolute gap of 1e-6 on a primal of 1e4).

    Parameters
    ----------
    data : dict
        From :func:`prepare_data` or :func:`trusted_data`.
    smoothing : float
        The smoothed hinge's gamma.

    Returns
    -------
    float
        At least 1.
    """
    if data["multiclass"]:
        return 1.0
    n = data["y"].shape[0]
    P0 = float(K.loss_sum(data["code"], np.zeros(n), data["y"], smoothing, data["sw"])) / n
    return max(1.0, P0)


def _gap_rule(gap: float, tol: float, gap_tol: float) -> str:
    """The stopping rule of a duality-gap solve, as SolverResult states it."""
    if gap_tol == tol:
        return f"duality gap {gap:.3g} <= tol"
    return f"duality gap {gap:.3g} <= tol * P(0) = {gap_tol:.3g}"
