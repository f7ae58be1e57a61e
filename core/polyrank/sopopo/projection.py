"""A single soft projection onto a polyhedron: SOPOPO (Fig. 3).

Source: S. Shalev-Shwartz and Y. Singer, "Efficient Learning of Label Ranking
by Soft Projections onto Polyhedra", JMLR 7, 2006 (``sopopo-label-ranking.txt``),
Sec. 3: the soft projection Eq. 7, its reduced dual Eq. 19, the decoupled
functions g (Eq. 20-21), the knots of Thm. 4, and the algorithm of Fig. 3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import as_float_array, check_label_set, check_positive
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
    z, _ = _kernels.knots_sorted(-np.sort(-mu))
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
    out = _kernels.g_sorted(z_arr.reshape(-1), -np.sort(-mu)).reshape(z_arr.shape)
    return float(out) if np.ndim(z) == 0 else out


@dataclass(frozen=True)
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
    mu = _vector(mu, "mu")
    nu = _vector(nu, "nu")
    C = check_positive(C, "C")
    z, ta, tb, lo, hi, R, S = _kernels.solve_reduced_kernel(mu, nu, C)
    alpha = np.maximum(mu - ta, 0.0)
    beta = np.maximum(nu - tb, 0.0)
    obj = 0.5 * (np.sum((alpha - mu) ** 2) + np.sum((beta - nu) ** 2))
    return ReducedSolution(float(z), alpha, beta, float(ta), float(tb),
                           (float(lo), float(hi)), int(R), int(S), float(obj))


def _check_problem(x, gamma, U, A, B):
    x = as_float_array(x, "x", ndim=1)
    gamma = as_float_array(gamma, "gamma", ndim=1)
    k = gamma.shape[0]
    U = as_float_array(U, "U", shape=(k, x.shape[0]))
    A = check_label_set(A, "A", k)
    B = check_label_set(B, "B", k)
    common = np.intersect1d(A, B)
    if common.size:
        raise ValueError(f"A, B: must be disjoint (condition 3 of Sec. 2), both "
                         f"contain labels {common.tolist()}")
    if gamma[A].min() <= gamma[B].max():
        a = A[np.argmin(gamma[A])]
        b = B[np.argmax(gamma[B])]
        raise ValueError(
            f"gamma: inconsistent with the edges A x B (condition 1 of Sec. 2 "
            f"needs gamma_r > gamma_s on every edge); gamma[{a}] = {gamma[a]} "
            f"<= gamma[{b}] = {gamma[b]}")
    return x, gamma, U, A, B


def margins(x, gamma, U, A, B):
    """The vectors mu and nu of the reduced problem (Sec. 3.2, before Eq. 19).

    ``mu_a = (gamma_a - u_a . x) / ||x||^2`` for a in A and
    ``nu_b = (u_b . x - gamma_b) / ||x||^2`` for b in B.

    Parameters
    ----------
    x : array_like, shape (n,)
        The instance; must be non-zero.
    gamma : array_like, shape (k,)
        Target ranking.
    U : array_like, shape (k, n)
        Current prototypes u_1..u_k (rows).
    A, B : array_like of int
        Disjoint, non-empty sets of 0-based labels with gamma_a > gamma_b.

    Returns
    -------
    mu : ndarray, shape (|A|,)
    nu : ndarray, shape (|B|,)

    Raises
    ------
    ValueError
        On invalid shapes, NaN, empty/overlapping/out-of-range label sets,
        gamma inconsistent with the edges, or x = 0 (mu and nu are undefined).
    """
    x, gamma, U, A, B = _check_problem(x, gamma, U, A, B)
    sq = float(x @ x)
    if sq == 0.0:
        raise ValueError("x: is the zero vector, so mu and nu (which divide by "
                         "||x||^2) are undefined; soft_project returns W = U")
    f = U @ x
    return (gamma[A] - f[A]) / sq, (f[B] - gamma[B]) / sq


@dataclass(frozen=True)
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
    mu, nu : ndarray
        The reduced-problem vectors (in the order of A and B).
    """

    W: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    z: float
    xi: float
    objective: float
    dual_objective: float
    mu: np.ndarray
    nu: np.ndarray


def soft_project(x, gamma, U, A, B, C) -> SoftProjection:
    """Soft projection onto the polyhedron of a complete bipartite graph (Eq. 7).

    Solves exactly, in O(k log k) after the O(kn) inner products,

    ``min_{W, xi >= 0} 1/2 sum_y ||w_y - u_y||^2 + C xi
    s.t. w_r . x - w_s . x >= gamma_r - gamma_s - xi  for all (r, s) in A x B``

    by the reduction to Eq. 19 and the knot search of Fig. 3.

    Parameters
    ----------
    x : array_like, shape (n,)
        The instance.  ``x = 0`` is allowed: the constraints do not depend
        on W, so W = U, alpha = beta = 0 and xi = max edge weight.
    gamma : array_like, shape (k,)
        Target ranking vector.
    U : array_like, shape (k, n)
        Current prototypes (rows u_y).
    A, B : array_like of int
        Disjoint, non-empty sets of 0-based label indices with
        gamma_a > gamma_b for all a in A, b in B.
    C : float
        The slack penalty, C > 0.

    Returns
    -------
    SoftProjection

    Raises
    ------
    ValueError
        On wrong shapes, NaN or infinity, empty, out-of-range, duplicated or
        overlapping A and B, gamma inconsistent with the edges, C <= 0.
    TypeError
        On non-numeric input or non-integer label indices.

    Examples
    --------
    The example of the paper's Fig. 4 (gamma = 1..6, u.x = (2,3,5,1,6,4),
    A = {4,5,6}, B = {1,2,3} in 1-based labels, ||x|| = 1):

    >>> import numpy as np
    >>> U = np.array([[2.0], [3.0], [5.0], [1.0], [6.0], [4.0]])
    >>> res = soft_project([1.0], np.arange(1.0, 7.0), U, [3, 4, 5], [0, 1, 2], C=10.0)
    >>> round(res.z, 4), res.alpha.round(4).tolist(), res.beta.round(4).tolist()
    (4.6, [2.8, 0.0, 1.8], [1.2, 1.2, 2.2])
    """
    x, gamma, U, A, B = _check_problem(x, gamma, U, A, B)
    C = check_positive(C, "C")
    sq = float(x @ x)
    f = U @ x
    if sq == 0.0:
        xi = float(max(0.0, np.max(gamma[A]) - np.min(gamma[B])))
        empty_a = np.zeros(A.size)
        empty_b = np.zeros(B.size)
        return SoftProjection(U.copy(), empty_a, empty_b, 0.0, xi, C * xi, C * xi,
                              np.full(A.size, np.nan), np.full(B.size, np.nan))
    mu = (gamma[A] - f[A]) / sq
    nu = (f[B] - gamma[B]) / sq
    red = solve_reduced(mu, nu, C)
    W = U.copy()
    W[A] += red.alpha[:, None] * x[None, :]
    W[B] -= red.beta[:, None] * x[None, :]
    fw = W @ x
    xi = max(0.0, float(np.max(gamma[A] - fw[A]) + np.max(fw[B] - gamma[B])))
    primal = 0.5 * sq * (np.sum(red.alpha ** 2) + np.sum(red.beta ** 2)) + C * xi
    # Eq. 16 in terms of mu, nu: D = ||x||^2 (1/2||mu||^2 + 1/2||nu||^2 - objective of Eq. 19)
    dual = sq * (0.5 * (mu @ mu + nu @ nu) - red.objective)
    return SoftProjection(W, red.alpha, red.beta, red.z, xi, float(primal),
                          float(dual), mu, nu)
