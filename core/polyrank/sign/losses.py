"""The loss functions of Table 1 and Sec. 5 of
``sign-constrained-sdca-pegasos.txt``: value, (sub)gradient, convex
conjugate, r_loss and the SDCA coordinate step.

The numerical work is done by the numba functions of
:mod:`polyrank.sign._kernels` (the solvers call those directly); this module
gives them names, input checks and vectorised Python entry points for users
and tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..validation import as_float_array, check_int, check_positive
from . import _kernels as K

__all__ = ["BINARY_LOSSES", "REGRESSION_LOSSES", "MULTICLASS_LOSSES", "LOSSES",
           "Loss", "get_loss", "r_loss"]

#: classification losses of Table 1 (labels in {-1, +1})
BINARY_LOSSES = {"hinge": K.HINGE, "smoothed_hinge": K.SMOOTH_HINGE,
                 "logistic": K.LOGISTIC}
#: regression losses of Table 1 (real labels)
REGRESSION_LOSSES = {"square": K.SQUARE, "absolute": K.ABSOLUTE}
#: multiclass losses of Sec. 5 (Eq. 20-22; labels 0..m-1)
MULTICLASS_LOSSES = {"softmax": K.SOFTMAX, "max_hinge": K.MAX_HINGE,
                     "top_k_hinge": K.TOP_K_HINGE}
#: every loss name and its kernel code
LOSSES = {**BINARY_LOSSES, **REGRESSION_LOSSES, **MULTICLASS_LOSSES}


def _check_name(loss) -> str:
    if not isinstance(loss, str):
        raise TypeError(f"loss: expected a str, got {type(loss).__name__}")
    if loss not in LOSSES:
        raise ValueError(f"loss: expected one of {sorted(LOSSES)}, got {loss!r}")
    return loss


def r_loss(loss: str, y, smoothing: float = 0.01, top_k: int = 1,
           n_classes: int | None = None) -> float:
    """The constant r_loss of Table 1 (an upper bound of Phi(0)/n,
    Assumption 2.1(b)); here it equals Phi(0)/n.

    hinge: 1; smoothed hinge: 1 - smoothing/2; logistic: log 2; square:
    ||y||^2 / (2n); absolute: ||y||_1 / n; soft-max: log m; max-hinge: 1;
    top-k hinge: min(k, m - 1) / k.

    Parameters
    ----------
    loss : str
        A name of :data:`LOSSES`.
    y : array_like, shape (n,)
        Labels (used by the regression losses).
    smoothing : float
        Smoothing of the smoothed hinge (the paper's γ, Table 1).
    top_k, n_classes : int
        k of the top-k hinge and the number of classes m (multiclass only).

    Returns
    -------
    float

    Examples
    --------
    >>> r_loss("square", [1.0, -3.0])
    2.5
    """
    loss = _check_name(loss)
    y = np.asarray(y, dtype=np.float64)
    if loss == "hinge":
        return 1.0
    if loss == "smoothed_hinge":
        return 1.0 - 0.5 * smoothing
    if loss == "logistic":
        return math.log(2.0)
    if loss == "square":
        return float(y @ y) / (2 * y.size)
    if loss == "absolute":
        return float(np.abs(y).sum()) / y.size
    if n_classes is None:
        raise ValueError("n_classes: required for a multiclass loss")
    if loss == "softmax":
        return math.log(n_classes)
    if loss == "max_hinge":
        return 1.0
    return min(top_k, n_classes - 1) / top_k


@dataclass(frozen=True)
class Loss:
    """One loss of Table 1 (binary classification and regression) with the
    quantities the solvers need.

    Parameters
    ----------
    name : str
        ``"hinge"``, ``"smoothed_hinge"``, ``"logistic"``, ``"square"`` or
        ``"absolute"``.
    smoothing : float
        Smoothing 0 < smoothing <= 1 of the smoothed hinge (the paper's γ,
        Table 1; ignored by the other losses).

    Notes
    -----
    Source: ``sign-constrained-sdca-pegasos.txt``, Table 1 (definitions,
    labels, Lipschitz/smoothness, r_loss), Eq. 14-15 (the conjugate in the
    dual), Alg. 2 step 4 and Eq. 16 (the coordinate step).  The conjugates:
    with b = a y, phi^*(-a) = -b (hinge, b in [0, 1]), -b + smoothing b^2/2
    (smoothed hinge), b log b + (1-b) log(1-b) (logistic), a^2/2 - a y
    (square), -a y for |a| <= 1 (absolute).

    Examples
    --------
    >>> h = Loss("hinge")
    >>> h.value([0.0, 2.0], [1.0, 1.0]).tolist(), h.grad([0.0], [1.0]).tolist()
    ([1.0, 0.0], [-1.0])
    """

    name: str
    smoothing: float = 0.01

    def __post_init__(self):
        _check_name(self.name)
        if self.name in MULTICLASS_LOSSES:
            raise ValueError(f"loss: {self.name!r} is a multiclass loss; Loss "
                             "covers the losses of Table 1")
        g = check_positive(self.smoothing, "smoothing")
        if g > 1:
            raise ValueError(f"smoothing: Table 1 requires 0 < smoothing <= 1, got {g}")

    @property
    def code(self) -> int:
        """The kernel code of :mod:`polyrank.sign._kernels`."""
        return LOSSES[self.name]

    @property
    def smoothness(self) -> float:
        """g of a (1/g)-smooth loss (0 for the Lipschitz ones); see
        :func:`polyrank.sign._kernels.conj_convexity`."""
        return float(K.conj_convexity(self.code, float(self.smoothing)))

    def _pairs(self, s, y):
        s = as_float_array(s, "s", ndim=1, allow_empty=True)
        y = as_float_array(y, "y", ndim=1, shape=(s.shape[0],), allow_empty=True)
        return s, y

    def value(self, s, y) -> np.ndarray:
        """phi_i(s_i) for each pair (s_i, y_i); shape (n,)."""
        s, y = self._pairs(s, y)
        return np.array([K.loss_value(self.code, a, b, self.smoothing) for a, b in zip(s, y)])

    def grad(self, s, y) -> np.ndarray:
        """A (sub)gradient phi_i'(s_i); shape (n,)."""
        s, y = self._pairs(s, y)
        return np.array([K.loss_deriv(self.code, a, b, self.smoothing) for a, b in zip(s, y)])

    def conjugate(self, u, y) -> np.ndarray:
        """The convex conjugate phi_i^*(u_i) (+inf outside its domain)."""
        u, y = self._pairs(u, y)
        return np.array([K.conj_neg(self.code, -a, b, self.smoothing) for a, b in zip(u, y)])

    def r_loss(self, y) -> float:
        """r_loss of Table 1 for labels ``y``."""
        return r_loss(self.name, y, self.smoothing)

    def sdca_step(self, z, alpha, y, qq, s_lb=1.0) -> float:
        """The SDCA step Delta alpha for one example (Alg. 2, step 4).

        Parameters
        ----------
        z : float
            <w, x_i> for the sign-corrected w.
        alpha : float
            Current alpha_i.
        y : float
            y_i.
        qq : float
            ||x_i||^2 / (lam n) (>= 0).
        s_lb : float
            lam n g / (lam n g + R^2) of Eq. 16, g = :attr:`smoothness`
            (logistic loss only).
        """
        return float(K.sdca_delta(self.code, float(z), float(alpha), float(y),
                                  float(qq), float(self.smoothing), float(s_lb)))


def get_loss(loss: str, top_k: int = 1) -> tuple[int, bool]:
    """(kernel code, is_multiclass) of a loss name.

    Raises
    ------
    TypeError, ValueError
        On an unknown name or a top_k < 1.
    """
    loss = _check_name(loss)
    check_int(top_k, "top_k", minimum=1)
    return LOSSES[loss], loss in MULTICLASS_LOSSES
