"""A single soft projection onto a polyhedron: SOPOPO (Fig. 3).

Source: S. Shalev-Shwartz and Y. Singer, "Efficient Learning of Label Ranking
by Soft Projections onto Polyhedra", JMLR 7, 2006 (``sopopo-label-ranking.txt``),
Sec. 3: the soft projection Eq. 7, its reduced dual Eq. 19, the decoupled
functions g (Eq. 20-21), the knots of Thm. 4, and the algorithm of Fig. 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..validation import (
    as_float_array,
    as_label_array,
    check_magnitude,
    check_positive,
    max_abs_value,
)
from . import _kernels

__all__ = ["knots", "g", "solve_reduced", "margins", "soft_project",
           "ReducedSolution", "SoftProjection"]


def _vector(mu, name: str) -> np.ndarray:
    return as_float_array(mu, name, ndim=1)


def knots(mu) -> np.ndarray:
    """The knots of g(z; mu) (Thm. 4).

    With mu sorted so that mu_1 >= mu_2 >= ... >= mu_p,
    ``z_i = sum_{r<=i} mu_r - i * mu_i``; g is quadratic between consecutive
    knots.  The first knot is always 0 and the sequence is non-decreasing.

    Parameters
    ----------
    mu : array_like, shape (p,)
        Any order; sorted inside.  Finite.

    Returns
    -------
    ndarray, shape (p,)
        The knots z_1 <= ... <= z_p.

    Raises
    ------
    ValueError
        If ``mu`` is empty, not 1-d, or has NaN/infinity.

    Examples
    --------
    >>> knots([3.0, -1.0, 2.0])
    array([0., 1., 7.])
    """
    mu = _vector(mu, "mu")
    z, _ = _kernels.knots_sorted(np.sort(mu))
    return z


def g(z, mu) -> np.ndarray:
    """g(z; mu) = min 1/2 ||alpha - mu||^2 s.t. sum(alpha) = z, alpha >= 0 (Eq. 20).

    Evaluated in closed form by Thm. 4: on [z_i, z_{i+1}),
    ``g = 1/2 [(sum_{r<=i} mu_r - z)^2 / i + sum_{r>i} mu_r^2]``.  (Thm. 4 in
    the paper drops the factor 1/2 of Eq. 20; knots and minimisers agree.)

    Parameters
    ----------
    z : float or array_like
        Points z >= 0 (the feasible set of Eq. 20 is empty for z < 0).
    mu : array_like, shape (p,)
        Any order.

    Returns
    -------
    float or ndarray
        g at each z, shaped like ``z``.

    Raises
    ------
    ValueError
        If ``z`` has negative or non-finite entries, or ``mu`` is invalid.

    Examples
    --------
    >>> float(g(0.0, [1.0, 2.0]))   # alpha = 0
    2.5
    """
    mu = _vector(mu, "mu")
    z_arr = as_float_array(z, "z", allow_empty=True)
    if np.any(z_arr < 0):
        raise ValueError("z: g(z; mu) is defined for z >= 0 only (Eq. 20 has "
                         "no feasible alpha for z < 0)")
    out = _kernels.g_sorted(z_arr.reshape(-1), np.sort(mu)).reshape(z_arr.shape)
    return float(out) if np.ndim(z) == 0 else out


@dataclass(slots=True)
class ReducedSolution:
    """Solution of the reduced problem Eq. 19, returned by :func:`solve_reduced`.

    Attributes
    ----------
    z : float
        The optimal coupling value z* = sum(alpha) = sum(beta) in [0, C].
    alpha : ndarray, shape (p,)
        Optimal alpha, in the order of the given ``mu``.
    beta : ndarray, shape (q,)
        Optimal beta, in the order of the given ``nu``.
    theta_alpha, theta_beta : float
        Thresholds of Eq. 23: alpha = (mu - theta_alpha)_+, beta = (nu - theta_beta)_+.
    interval : tuple of float
        The bracketing interval [z', N(z')] of Fig. 3 that contains z*
        ((0, 0) when z* = 0 because g'(0) >= 0).
    R, S : int
        R(z*), S(z*): the numbers of knots of mu and of nu at or left of the interval.
    objective : float
        g(z*; mu) + g(z*; nu) = 1/2 ||alpha - mu||^2 + 1/2 ||beta - nu||^2.
    """

    z: float
    alpha: np.ndarray
    beta: np.ndarray
    theta_alpha: float
    theta_beta: float
    interval: tuple
    R: int
    S: int
    objective: float


def solve_reduced(mu, nu, C) -> ReducedSolution:
    """Solve the reduced problem Eq. 19 exactly by SOPOPO (Fig. 3).

    ``min 1/2||alpha - mu||^2 + 1/2||beta - nu||^2 s.t. alpha, beta >= 0,
    sum(alpha) = sum(beta) <= C``, i.e. ``min_{z in [0, C]} g(z; mu) + g(z; nu)``
    (Sec. 3.3), in O(k log k) for k = p + q.

    Parameters
    ----------
    mu : array_like, shape (p,)
    nu : array_like, shape (q,)
        Any order, finite, non-empty.
    C : float
        The bound C > 0.

    Returns
    -------
    ReducedSolution

    Raises
    ------
    ValueError
        If ``mu`` or ``nu`` is empty or non-finite, or ``C`` is not > 0.
    TypeError
        If ``C`` is not a real number.

    Examples
    --------
    The instance of the paper's Fig. 4 (minimum just below 5, between the
    second and third knots of the union {0, 0, 1, 1, 1, 7}):

    >>> s = solve_reduced([3.0, -1.0, 2.0], [1.0, 1.0, 2.0], C=10.0)
    >>> s.z, s.interval, s.alpha.round(6).tolist(), s.beta.round(6).tolist()
    (4.6, (1.0, 7.0), [2.8, 0.0, 1.8], [1.2, 1.2, 2.2])
    """
    if not _ready(mu, 1):
        mu = as_float_array(mu, "mu", ndim=1, finite=False)
    if not _ready(nu, 1):
        nu = as_float_array(nu, "nu", ndim=1, finite=False)
    for v, name in ((mu, "mu"), (nu, "nu")):
        if v.size == 0:
            raise ValueError(f"{name}: must not be empty")
    C = check_positive(C, "C")
    return _solve_reduced(mu, nu, C)


#: Up to this many labels the sort runs inside numba (no array round trips);
#: above it numpy's vectorised sort is several times faster.
_NUMBA_SORT_MAX = 256
_EMPTY = np.empty(0)


def _solve_reduced(mu: np.ndarray, nu: np.ndarray, C: float) -> ReducedSolution:
    alpha = np.empty(mu.size)
    beta = np.empty(nu.size)
    if mu.size + nu.size <= _NUMBA_SORT_MAX:
        out = _kernels.solve_reduced_full(mu, nu, C, _EMPTY, _EMPTY, alpha, beta)
    else:
        out = _kernels.solve_reduced_full(mu, nu, C, np.sort(mu), np.sort(nu), alpha, beta)
    bad, z, ta, tb, lo, hi, R, S, obj = out
    if bad >= 0:
        name, i = ("mu", bad) if bad < mu.size else ("nu", bad - mu.size)
        raise ValueError(f"{name}: contains NaN or infinity (first at index {i})")
    return ReducedSolution(z, alpha, beta, ta, tb, (lo, hi), R, S, obj)


_PIECE_ERRORS = {
    1: "A: label indices must lie in [0, {k}), got {r}",
    2: "B: label indices must lie in [0, {k}), got {r}",
    3: "A: contains duplicate labels ({r})",
    4: "B: contains duplicate labels ({r})",
    5: "A, B: must be disjoint (condition 3 of Sec. 2), both contain label {r}",
    6: ("y: inconsistent with the edges A x B (condition 1 of Sec. 2 needs "
        "y_r > y_s on every edge); y[{r}] = {gr} <= y[{s}] = {gs}"),
    7: "x: contains NaN or infinity (first at index {r})",
    8: "y: contains NaN or infinity (first at index {r})",
    9: "U: row {r} contains NaN or infinity (or U @ x overflows)",
}


def _ready(a, ndim: int) -> bool:
    """Fast path: already a C-contiguous float64 array of the right ndim."""
    return (type(a) is np.ndarray and a.dtype == np.float64 and a.ndim == ndim
            and a.flags.c_contiguous)


def _ready_labels(a) -> bool:
    return type(a) is np.ndarray and a.dtype == np.int64 and a.ndim == 1 and a.size > 0


def _convert_problem(x, y, U, A, B):
    """Types and shapes of a soft-projection problem (values are checked by
    :func:`_kernels.check_piece`).  Arrays that are already C-contiguous
    float64 / int64 pass through without a copy.  U fixes the shape: k
    labels (rows) and n features (columns); x and y must match it."""
    if not _ready(x, 1):
        x = as_float_array(x, "x", ndim=1, finite=False)
    if x.size == 0:
        raise ValueError("x: must not be empty")
    if not _ready(U, 2):
        U = as_float_array(U, "U", ndim=2, finite=False)
    if U.shape[1] != x.shape[0]:
        raise ValueError(f"U, x: U has shape {U.shape} but x has {x.shape[0]} entries; "
                         "U needs one column per entry of x (feature)")
    if not _ready(y, 1):
        y = as_float_array(y, "y", ndim=1, finite=False)
    if y.shape[0] != U.shape[0]:
        raise ValueError(f"y, U: y has {y.shape[0]} entries but U has {U.shape[0]} rows; "
                         "both need one per label")
    # ||x||^2 and the edges y_r - y_s must not overflow (NaN/inf: the kernel's message)
    _check_size(x, "x", x.size)
    _check_size(y, "y", 1)
    A = A if _ready_labels(A) else as_label_array(A, "A")
    B = B if _ready_labels(B) else as_label_array(B, "B")
    return x, y, U, A, B


#: float64 max / 4: check_magnitude's bound on the squared entries, times d
_FMAX_4 = float(np.finfo(np.float64).max) / 4.0


def _check_size(v: np.ndarray, name: str, d: int) -> None:
    """check_magnitude(v, name, n_features=d) for NaN-free v in one dot product.

    ``v @ v <= float64 max / (4 d)`` bounds every |v_i| by check_magnitude's
    limit ``sqrt(float64 max / (4 d))``, so the common case costs one BLAS
    pass and no numpy reductions; otherwise (a large entry, an overflowing
    sum, NaN or infinity) the full check runs and raises exactly as it
    would have.  NaN and infinity are left to the kernel's message."""
    if not v.dot(v) <= _FMAX_4 / d:
        if math.isfinite(max_abs_value(v)):
            check_magnitude(v, name, n_features=d)


def _raise_piece_error(code, r, s, y):
    if code:
        raise ValueError(_PIECE_ERRORS[code].format(
            k=y.shape[0], r=r, s=s, gr=y[r] if code == 6 else 0,
            gs=y[s] if code == 6 else 0))


def _check_problem(x, y, U, A, B):
    """Convert and validate; returns (x, y, U, A, B, f = U x).

    Finiteness of U is checked through f: a NaN or infinity in row r of U
    makes f_r non-finite (NaN * 0 is NaN), so O(k) work suffices."""
    x, y, U, A, B = _convert_problem(x, y, U, A, B)
    f = U @ x
    code, r, s = _kernels.check_piece(y.shape[0], A, B, y, x, f)
    _raise_piece_error(code, r, s, y)
    return x, y, U, A, B, f


def margins(x, y, U, A, B):
    """The vectors mu and nu of the reduced problem (Sec. 3.2, before Eq. 19).

    ``mu_a = (y_a - u_a . x) / ||x||^2`` for a in A and
    ``nu_b = (u_b . x - y_b) / ||x||^2`` for b in B.

    Parameters
    ----------
    x : array_like, shape (n,)
        The instance; must be non-zero.
    y : array_like, shape (k,)
        Target ranking (the paper's γ, Sec. 2).
    U : array_like, shape (k, n)
        Current prototypes u_1..u_k (rows).
    A, B : array_like of int
        Disjoint, non-empty sets of 0-based labels with y_a > y_b.

    Returns
    -------
    mu : ndarray, shape (|A|,)
    nu : ndarray, shape (|B|,)

    Raises
    ------
    ValueError
        On invalid shapes, NaN, empty/overlapping/out-of-range label sets,
        y inconsistent with the edges, or x = 0 (mu and nu are undefined).
    """
    x, y, U, A, B, f = _check_problem(x, y, U, A, B)
    sq = float(x @ x)
    if sq == 0.0:
        raise ValueError("x: is the zero vector, so mu and nu (which divide by "
                         "||x||^2) are undefined; soft_project returns W = U")
    return (y[A] - f[A]) / sq, (f[B] - y[B]) / sq


@dataclass(slots=True)
class SoftProjection:
    """Result of :func:`soft_project`.

    Attributes
    ----------
    W : ndarray, shape (k, n)
        The projected prototypes (Eq. 15): w_a = u_a + alpha_a x (a in A),
        w_b = u_b - beta_b x (b in B), w_y = u_y otherwise.
    alpha : ndarray, shape (|A|,)
        Dual variables of Eq. 14 in the order of ``A``.
    beta : ndarray, shape (|B|,)
        Dual variables of Eq. 14 in the order of ``B``.
    z : float
        The optimal z* = sum(alpha) = sum(beta) (Sec. 3.3).
    xi : float
        The optimal slack xi of Eq. 7.
    objective : float
        Optimal value of Eq. 7: 1/2 sum_y ||w_y - u_y||^2 + C xi.
    dual_objective : float
        Value of the reduced dual Eq. 16 at (alpha, beta); equals
        ``objective`` by strong duality.

    See Also
    --------
    margins : the vectors mu and nu of the reduced problem.
    """

    W: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    z: float
    xi: float
    objective: float
    dual_objective: float


def soft_project(x, y, U, A, B, C) -> SoftProjection:
    """Soft projection onto the polyhedron of a complete bipartite graph (Eq. 7).

    Solves exactly, in O(k log k) after the O(kn) inner products,

    ``min_{W, xi >= 0} 1/2 sum_y ||w_y - u_y||^2 + C xi
    s.t. w_r . x - w_s . x >= y_r - y_s - xi  for all (r, s) in A x B``

    by the reduction to Eq. 19 and the knot search of Fig. 3.

    Parameters
    ----------
    x : array_like, shape (n,)
        The instance.  ``x = 0`` is allowed: the constraints do not depend
        on W, so W = U, alpha = beta = 0 and xi = max edge weight.
    y : array_like, shape (k,)
        Target ranking (the paper's γ, Sec. 2).
    U : array_like, shape (k, n)
        Current prototypes (rows u_y).
    A, B : array_like of int
        Disjoint, non-empty sets of 0-based label indices with
        y_a > y_b for all a in A, b in B.
    C : float
        The slack penalty, C > 0.

    Returns
    -------
    SoftProjection

    Raises
    ------
    ValueError
        On wrong shapes, NaN or infinity, empty, out-of-range, duplicated or
        overlapping A and B, y inconsistent with the edges, C <= 0.
    TypeError
        On non-numeric input or non-integer label indices.

    Examples
    --------
    The example of the paper's Fig. 4 (y = 1..6, u.x = (2,3,5,1,6,4),
    A = {4,5,6}, B = {1,2,3} in 1-based labels, ||x|| = 1):

    >>> import numpy as np
    >>> U = np.array([[2.0], [3.0], [5.0], [1.0], [6.0], [4.0]])
    >>> res = soft_project([1.0], np.arange(1.0, 7.0), U, [3, 4, 5], [0, 1, 2], C=10.0)
    >>> round(res.z, 4), res.alpha.round(4).tolist(), res.beta.round(4).tolist()
    (4.6, [2.8, 0.0, 1.8], [1.2, 1.2, 2.2])
    """
    x, y, U, A, B = _convert_problem(x, y, U, A, B)
    if not (type(C) is float and 0.0 < C < math.inf):     # fast path: a finite float > 0
        C = check_positive(C, "C")
    return _soft_project(x, y, U, A, B, C)


def _soft_project(x: np.ndarray, y: np.ndarray, U: np.ndarray, A: np.ndarray,
                  B: np.ndarray, C: float) -> SoftProjection:
    """:func:`soft_project` on converted arrays (C-contiguous float64 x (n,),
    y (k,), U (k, n), int64 A, B, float C > 0): the trusted path, which
    leaves the checks of A, B, y and finiteness to the kernel (O(k + n),
    the same messages) and skips the conversions and the magnitude checks
    of :func:`_convert_problem`."""
    W = np.empty(U.shape)
    alpha = np.empty(A.size)
    beta = np.empty(B.size)
    if A.size + B.size <= _NUMBA_SORT_MAX:
        out = _kernels.soft_project_kernel(U, x, y, _EMPTY, A, B, C, _EMPTY, _EMPTY,
                                           W, alpha, beta)
    else:
        f = U @ x
        out = _kernels.soft_project_kernel(U, x, y, f, A, B, C, np.sort(y[A] - f[A]),
                                           np.sort(f[B] - y[B]), W, alpha, beta)
    if out[0] == -1:
        # x = 0: the constraints of Eq. 7 do not involve W, so W = U and the
        # slack takes the largest edge weight.
        xi = float(np.max(y[A]) - np.min(y[B]))
        return SoftProjection(U.copy(), np.zeros(A.size), np.zeros(B.size), 0.0, xi,
                              C * xi, C * xi)
    if out[0]:
        _raise_piece_error(out[0], out[1], out[2], y)
    return SoftProjection(W, alpha, beta, *out[3:])
