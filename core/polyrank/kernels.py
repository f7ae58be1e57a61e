"""Mercer kernels shared by the kernelised solvers.

The Gram matrices are computed by scikit-learn's
:func:`sklearn.metrics.pairwise.pairwise_kernels`; this module fixes the
names and parameters polyrank accepts and validates them.
"""

from __future__ import annotations

import numpy as np

from ._memory import check_allocation
from .validation import as_float_array, check_int, check_positive

__all__ = ["KERNELS", "kernel_matrix", "check_kernel_params"]

#: Kernel names: k(x, y) = x.y (linear); exp(-gamma ||x - y||^2) (rbf);
#: (gamma x.y + coef0)^degree (poly); "precomputed" takes the Gram matrix.
KERNELS = ("linear", "rbf", "poly", "precomputed")


def check_kernel_params(kernel, gamma, degree, coef0, n_features: int) -> dict:
    """Validate kernel parameters and return the keyword arguments for
    :func:`kernel_matrix` (``gamma=None`` becomes 1 / n_features, as in
    scikit-learn's SVC with ``gamma="auto"``).

    Raises
    ------
    ValueError
        Unknown kernel, gamma <= 0, degree < 1, non-finite coef0.
    TypeError
        Wrong types.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel: expected one of {KERNELS}, got {kernel!r}")
    params: dict = {}
    if kernel in ("rbf", "poly"):
        params["gamma"] = (1.0 / n_features if gamma is None
                           else check_positive(gamma, "gamma"))
    if kernel == "poly":
        params["degree"] = check_int(degree, "degree", minimum=1)
        c0 = float(coef0)
        if not np.isfinite(c0):
            raise ValueError(f"coef0: must be finite, got {coef0}")
        params["coef0"] = c0
    return params


def kernel_matrix(X, Y=None, kernel: str = "linear", **params) -> np.ndarray:
    """Gram matrix K[i, j] = k(X[i], Y[j]).

    Parameters
    ----------
    X : array_like, shape (m, n)
    Y : array_like, shape (m2, n), optional
        Defaults to X.
    kernel : {"linear", "rbf", "poly"}
    **params
        ``gamma``, ``degree``, ``coef0`` as returned by
        :func:`check_kernel_params`.

    Returns
    -------
    ndarray, shape (m, m2)

    Raises
    ------
    ValueError
        On NaN/inf or mismatched feature counts.
    MemoryError
        If the (m, m2) float64 result exceeds the memory available
        (:func:`polyrank._memory.check_allocation`).
    """
    X = as_float_array(X, "X", ndim=2)
    Y = X if Y is None else as_float_array(Y, "X", ndim=2, shape=(None, X.shape[1]))
    if kernel not in ("linear", "rbf", "poly"):
        raise ValueError(f"kernel: expected 'linear', 'rbf' or 'poly', got {kernel!r}")
    check_allocation(8.0 * X.shape[0] * Y.shape[0],
                     f"the {X.shape[0]:,} x {Y.shape[0]:,} kernel matrix (kernel={kernel!r})",
                     "use kernel='linear' (no kernel matrix) or fewer rows")
    # imported here: sklearn.metrics costs about 2 s at ``import polyrank``
    from sklearn.metrics.pairwise import pairwise_kernels

    return np.ascontiguousarray(pairwise_kernels(X, Y, metric=kernel, **params))
