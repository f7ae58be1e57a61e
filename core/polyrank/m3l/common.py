"""What every M3L driver shares: the input checks, the objectives P2 and D2
and the dual gradient (Eq. 25, 29, 31), per-label gaps, and how a solve
starts and ends (see :mod:`polyrank.m3l.solver` for the identities)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..result import (
    STATUS_CALLBACK,
    STATUS_CONVERGED,
    STATUS_MAX_ITER,
    STATUS_NUMERICAL,
    CallbackRunner,
    finish,
)
from ..result import numerical_failure as _failed
from ..validation import as_float_array, check_design, check_positive
from .priors import check_R, labels_pm1

__all__ = ["m3l_objectives", "projected_gradient", "dual_gradient", "label_gaps"]




def _check_problem(X, Y, R, C, ridge, sample_weight, sparse_ok):
    """Validated (X, Y in {-1, +1}, R + ridge I, Cv = C * sample_weight)."""
    if sp.issparse(X) and not sparse_ok:
        raise TypeError("X: sparse input is only supported by m3l_dca (the linear "
                        "kernel); pass a dense array to m3l_smo")
    X = check_design(X)
    Y = labels_pm1(Y)
    if Y.shape[0] != X.shape[0]:
        raise ValueError(f"Y: expected {X.shape[0]} rows (one per row of X), got "
                         f"{Y.shape[0]}")
    L = Y.shape[1]
    R = np.eye(L) + check_positive(ridge, "ridge", strict=False) * np.eye(L) \
        if R is None else check_R(R, L, ridge)
    C = check_positive(C, "C")
    if sample_weight is None:
        return X, Y, R, np.full(X.shape[0], C)
    w = as_float_array(sample_weight, "sample_weight", ndim=1, shape=(X.shape[0],))
    if w.min() < 0:
        raise ValueError(f"sample_weight: expected weights >= 0, got {w.min():.3g}")
    if not w.any():
        raise ValueError("sample_weight: every example has weight 0 (nothing to learn from)")
    return X, Y, R, C * w


def m3l_objectives(alpha, G, C) -> tuple[float, float]:
    """Primal P2 and dual D2 objectives from the dual variables and the
    dual gradient (see the module docstring for the identities).

    Parameters
    ----------
    alpha, G : ndarray, shape (N, L)
    C : float or ndarray, shape (N,)
        The bound, or the per-example bounds C_i.

    Returns
    -------
    (primal, dual) : tuple of float

    Examples
    --------
    >>> import numpy as np
    >>> m3l_objectives(np.zeros((2, 1)), np.full((2, 1), 2.0), 1.0)
    (4.0, 0.0)
    """
    C = np.reshape(C, (-1, 1)) if np.ndim(C) else C
    primal = float(np.sum(alpha * (1.0 - 0.5 * G)) + np.sum(C * np.maximum(G, 0.0)))
    dual = float(np.sum(alpha * (1.0 + 0.5 * G)))
    return primal, dual


def projected_gradient(alpha, G, C) -> np.ndarray:
    """Projected gradient of D2 (Eq. 31): G where 0 < alpha < C,
    min(0, G) at C, max(0, G) at 0 (0 where C = 0).  ``C`` is a float or
    the per-example bounds (N,).

    Examples
    --------
    >>> import numpy as np
    >>> projected_gradient(np.array([0.0, 1.0, 0.5]), np.array([-1.0, 2.0, 3.0]), 1.0).tolist()
    [0.0, 0.0, 3.0]
    """
    C = np.reshape(C, (-1, 1)) if np.ndim(C) else C
    pg = np.where((alpha <= 0) & (G < 0), 0.0, G)
    return np.where((alpha >= C) & (pg > 0), 0.0, pg)


def dual_gradient(K, Y, R, alpha) -> np.ndarray:
    """Exact gradient of D2 (Eq. 29) from a Gram matrix:
    G = 2 - 2 Y * (2 K (Y alpha) R).

    Parameters
    ----------
    K : ndarray, shape (N, N)
    Y : ndarray, shape (N, L), entries +-1
    R : ndarray, shape (L, L)
    alpha : ndarray, shape (N, L)

    Returns
    -------
    ndarray, shape (N, L)
    """
    return 2.0 - 2.0 * Y * (2.0 * (K @ (Y * alpha)) @ R)


def _check_alpha0(alpha0, N, L, Cv):
    if alpha0 is None:
        return None
    a = as_float_array(alpha0, "alpha0", ndim=2, shape=(N, L)).copy()
    if a.min() < 0 or np.any(a > Cv[:, None]):
        raise ValueError(f"alpha0: expected entries in [0, C_i] (C times the sample "
                         f"weight), got [{a.min():.3g}, {a.max():.3g}] with C_i up to "
                         f"{Cv.max():g}")
    return a


def _finish(runner, status, it, alpha, G, C, max_pg, tol, solver, extra, stopping="pg"):
    primal, dual = m3l_objectives(alpha, G, C)
    if _failed(primal, dual):
        status = STATUS_NUMERICAL
    gap = primal - dual
    if stopping == "gap":
        rel = gap / primal if primal > 0 else 0.0
        rule = (f"duality gap {gap:.3g} <= tol={tol:g} x primal {primal:.6g} (relative "
                f"{rel:.3g}; largest projected gradient {max_pg:.3g})")
        progress_text = f"relative duality gap {rel:.3g} > tol={tol:g}"
    else:
        rule = (f"every projected gradient below tol={tol:g} (max {max_pg:.3g}); duality "
                f"gap {gap:.3g}")
        progress_text = f"max projected gradient {max_pg:.3g} >= tol={tol:g}"
    return finish(
        runner, status, solver=solver, x=extra.pop("x"), dual={"alpha": alpha, "G": G},
        primal=primal, dual_objective=dual, nit=it, unit="iterations", rule=rule,
        progress=progress_text, limit=f"max_iter={it}",
        advice="scale X (e.g. StandardScaler) or lower C",
        max_projected_gradient=float(max_pg), **extra)


def label_gaps(alpha, G, C) -> tuple[np.ndarray, np.ndarray]:
    """Per-label duality gaps and primal objectives of P2 / D2 (with R
    diagonal the problem is a sum over the labels; see the module
    docstring): ``gap[l] = sum_i C_i max(0, G_il) - alpha_il G_il`` (>= 0)
    and ``primal[l] = sum_i alpha_il (1 - G_il / 2) + C_i max(0, G_il)``;
    their sums are P - D and P.

    Parameters
    ----------
    alpha, G : ndarray, shape (N, L)
    C : float or ndarray, shape (N,)

    Returns
    -------
    (gap, primal) : tuple of ndarray, shape (L,)

    Examples
    --------
    >>> import numpy as np
    >>> gap, primal = label_gaps(np.zeros((2, 1)), np.full((2, 1), 2.0), 1.0)
    >>> gap.tolist(), primal.tolist()
    ([4.0], [4.0])
    """
    C = np.reshape(C, (-1, 1)) if np.ndim(C) else C
    hinge = C * np.maximum(G, 0.0)
    return (hinge - alpha * G).sum(axis=0), (alpha * (1.0 - 0.5 * G) + hinge).sum(axis=0)


def _labels_ok(alpha, G, Cv, tol, stopping):
    """(label_pg, ok): each label's largest |projected gradient| and whether
    it meets the stopping rule ("pg": below tol; "gap": its duality gap
    at most tol times its primal objective)."""
    label_pg = np.abs(projected_gradient(alpha, G, Cv)).max(axis=0)
    if stopping == "gap":
        gap, primal = label_gaps(alpha, G, Cv)
        return label_pg, gap <= tol * primal
    return label_pg, label_pg < tol


def _start(callback, callback_every: int):
    """The state of an M3L driver before its first iteration: the callback
    runner, the status ``max_iter`` (until something else ends the solve),
    the largest projected gradient at alpha = 0 (2, Hamming loss) and
    iteration 0."""
    return CallbackRunner(callback, callback_every), STATUS_MAX_ITER, 2.0, 0


def _ending(primal: float, dual: float, converged: bool, stop: bool):
    """The status that ends an M3L solve after a recorded iteration, or
    None to go on: a non-finite or inverted objective first, then the
    stopping rule (``converged``: for the paper's, every projected gradient
    below ``tol``), then a callback's request."""
    if _failed(primal, dual):
        return STATUS_NUMERICAL
    if converged:
        return STATUS_CONVERGED
    if stop:
        return STATUS_CALLBACK
    return None
