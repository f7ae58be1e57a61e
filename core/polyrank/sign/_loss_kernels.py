"""numba kernels of the sign-constrained solvers shared by SC-SDCA and
SC-Pegasos: the loss codes, the losses of Table 1 (value, derivative,
conjugate, SDCA step), the sign correction (Eq. 11), CSR row helpers, the
objectives (Eq. 1, Eq. 48) and X' alpha (Eq. 49).

Paper file: ``sign-constrained-sdca-pegasos.txt``.  The conventions of
:mod:`polyrank.sign._kernels` hold here (one row of the CSR ``X`` per
example, ``w = Pi_S(wbar)``, ``wbar = X' alpha / (lam n)``, signs float64 in
{-1, 0, +1}).
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

HINGE = 0
SMOOTH_HINGE = 1
LOGISTIC = 2
SQUARE = 3
ABSOLUTE = 4
SOFTMAX = 10
MAX_HINGE = 11
TOP_K_HINGE = 12

#: tolerance on the domain of a conjugate (a dual variable produced by a
#: clip is exactly inside; rounding of sums may leave it 1e-15 outside)
_DOM_TOL = 1e-9


class CsrExamples(NamedTuple):
    """The examples of the epoch kernels (:func:`sdca_epoch`,
    :func:`pegasos_steps`, :func:`mc_sdca_epoch`, :func:`mc_pegasos_steps`)
    as one argument: X in CSR form, one row per example, with the labels and
    the example weights (numba types a NamedTuple of arrays field by field;
    the kernels read the fields once)."""

    indptr: np.ndarray         # int (n + 1,): CSR row pointers of X (n, d)
    indices: np.ndarray        # int (nnz,): column of each stored entry
    data: np.ndarray           # float64 (nnz,): stored entries
    y: np.ndarray              # float64 (n,) labels (multiclass: int64, 0..m-1)
    sw: np.ndarray             # float64 (n,): example weights s_i, mean 1


# ------------------------------------------------------------ sign correction

@njit(cache=True, nogil=True)
def sign_correct(v, c):
    """Eq. 11 applied to one number: ``v + c max(0, -c v)``, i.e. the
    projection of ``v`` onto {c v >= 0}."""
    if c * v < 0.0:
        return 0.0
    return v


@njit(cache=True, nogil=True)
def project_signs(wbar, c, out):
    """Pi_S of Eq. 11 / Eq. 73 for a whole vector or matrix (flattened views):
    ``out = wbar + c * max(0, -c * wbar)``."""
    a = wbar.ravel()
    b = c.ravel()
    o = out.ravel()
    for h in range(a.shape[0]):
        o[h] = sign_correct(a[h], b[h])


# ------------------------------------------------- binary losses (Table 1)

@njit(cache=True, nogil=True)
def loss_value(code, s, y, smoothing):
    """phi_i(s) of Table 1 (smoothing: the smoothed hinge's smoothing, the
    paper's γ of Table 1)."""
    if code == HINGE:
        return max(0.0, 1.0 - y * s)
    if code == SMOOTH_HINGE:
        m = y * s
        if m >= 1.0:
            return 0.0
        if m <= 1.0 - smoothing:
            return 1.0 - m - 0.5 * smoothing
        return (1.0 - m) * (1.0 - m) / (2.0 * smoothing)
    if code == LOGISTIC:
        t = -y * s
        if t > 0.0:
            return t + math.log1p(math.exp(-t))
        return math.log1p(math.exp(t))
    if code == SQUARE:
        return 0.5 * (s - y) * (s - y)
    # ABSOLUTE
    return abs(s - y)


@njit(cache=True, nogil=True)
def loss_deriv(code, s, y, smoothing):
    """A (sub)gradient phi_i'(s) of Table 1 (for the non-smooth losses the
    subgradient 0 is taken at the kink of the absolute loss and at y s = 1
    for the hinge)."""
    if code == HINGE:
        return -y if y * s < 1.0 else 0.0
    if code == SMOOTH_HINGE:
        m = y * s
        if m >= 1.0:
            return 0.0
        if m <= 1.0 - smoothing:
            return -y
        return -y * (1.0 - m) / smoothing
    if code == LOGISTIC:
        t = y * s
        if t >= 0.0:
            e = math.exp(-t)
            return -y * e / (1.0 + e)
        return -y / (1.0 + math.exp(t))
    if code == SQUARE:
        return s - y
    d = s - y
    if d > 0.0:
        return 1.0
    if d < 0.0:
        return -1.0
    return 0.0


@njit(cache=True, nogil=True)
def conj_neg(code, a, y, smoothing):
    """phi_i^*(-a), the convex conjugate of Table 1's loss at -a (the form in
    which it enters the dual Eq. 14); +inf outside its domain.

    hinge: -b for b = a y in [0, 1]; smoothed hinge: -b + smoothing b^2 / 2;
    logistic: b log b + (1 - b) log(1 - b); square: a^2 / 2 - a y;
    absolute: -a y for |a| <= 1.
    """
    if code == SQUARE:
        return 0.5 * a * a - a * y
    if code == ABSOLUTE:
        if abs(a) > 1.0 + _DOM_TOL:
            return np.inf
        return -a * y
    b = a * y
    if b < -_DOM_TOL or b > 1.0 + _DOM_TOL:
        return np.inf
    b = min(max(b, 0.0), 1.0)
    if code == HINGE:
        return -b
    if code == SMOOTH_HINGE:
        return -b + 0.5 * smoothing * b * b
    # LOGISTIC: negative binary entropy
    out = 0.0
    if b > 0.0:
        out += b * math.log(b)
    if b < 1.0:
        out += (1.0 - b) * math.log1p(-b)
    return out


@njit(cache=True, nogil=True)
def conj_convexity(code, smoothing):
    """The g of a (1/g)-smooth loss, i.e. the modulus of strong convexity of
    its conjugate phi^* (the paper's γ in "(1/γ)-smooth", Table 1): the
    smoothing for the smoothed hinge, 4 for the logistic loss (0.25-smooth),
    1 for the square loss; 0 for the Lipschitz (non-smooth) losses."""
    if code == SMOOTH_HINGE:
        return smoothing
    if code == LOGISTIC:
        return 4.0
    if code == SQUARE:
        return 1.0
    if code == SOFTMAX:
        return 1.0
    return 0.0


@njit(cache=True, nogil=True)
def sdca_delta(code, z, a, y, qq, smoothing, s_lb):
    """The SDCA coordinate step Delta alpha of Alg. 2, step 4.

    Maximises D_t(Delta; w) of Eq. 15, ``-Delta z - qq Delta^2 / 2 -
    phi^*(-(a + Delta))`` (times n), with ``qq = ||x_i||^2 / (lam n)`` and
    ``z = <w, x_i>`` for the sign-corrected w, in closed form for the hinge,
    smoothed hinge, square and absolute losses; for the logistic loss by the
    step of Eq. 16 (``s_lb = lam n g / (lam n g + R^2)`` with g = 4 of
    :func:`conj_convexity`).
    """
    # each step divides by a quantity known before z: written as a product
    # with its reciprocal, the division does not wait for <w, x_i>
    if code == HINGE:
        if qq > 0.0:
            b = y * a + (1.0 - y * z) * (1.0 / qq)
        else:
            b = 1.0
        b = min(max(b, 0.0), 1.0)
        return y * b - a
    if code == SMOOTH_HINGE:
        b = (1.0 - y * z + y * a * qq) * (1.0 / (qq + smoothing))
        b = min(max(b, 0.0), 1.0)
        return y * b - a
    if code == SQUARE:
        return (y - z - a) * (1.0 / (1.0 + qq))
    if code == ABSOLUTE:
        if qq > 0.0:
            an = a + (y - z) * (1.0 / qq)
        else:
            an = a + (y - z) * np.inf if y != z else a
        an = min(max(an, -1.0), 1.0)
        return an - a
    # LOGISTIC: Eq. 16
    g = conj_convexity(code, smoothing)
    u = -loss_deriv(code, z, y, smoothing)
    q = u - a
    if q == 0.0:
        return 0.0
    gap_i = z * a + conj_neg(code, a, y, smoothing) + loss_value(code, z, y, smoothing)
    s = 0.5 + gap_i / (g * q * q)
    s = min(max(s, 0.0), 1.0 / s_lb) * s_lb
    return s * q


# ------------------------------------------------------------ binary solvers

@njit(cache=True, nogil=True)
def row_dot(indptr, indices, data, i, w):
    acc = 0.0
    for p in range(indptr[i], indptr[i + 1]):
        acc += data[p] * w[indices[p]]
    return acc


@njit(cache=True, nogil=True)
def row_sqnorms(indptr, data):
    """||x_i||^2 of every CSR row (the q of Alg. 2's step, R^2 of Eq. 16)."""
    n = indptr.shape[0] - 1
    out = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            acc += data[p] * data[p]
        out[i] = acc
    return out


@njit(cache=True, nogil=True)
def loss_sum(code, z, y, smoothing, sw):
    """sum_i s_i phi_i(z_i) (Table 1): the loss part of the primal Eq. 1
    (times n) from the margins z_i = <w, x_i> and the weights s_i."""
    acc = 0.0
    for i in range(y.shape[0]):
        if sw[i] != 0.0:
            acc += sw[i] * loss_value(code, z[i], y[i], smoothing)
    return acc


@njit(cache=True, nogil=True)
def conj_sum(code, alpha, y, smoothing, sw):
    """sum_i (s_i phi_i)^*(-alpha_i) = sum_i s_i phi_i^*(-alpha_i / s_i): the
    loss part of the dual Eq. 48 (times n) for example weights s_i (rows of
    weight 0 keep alpha_i = 0 and add nothing)."""
    acc = 0.0
    for i in range(y.shape[0]):
        s = sw[i]
        if s != 0.0:
            acc += s * conj_neg(code, alpha[i] / s, y[i], smoothing)
    return acc


@njit(cache=True, nogil=True)
def shuffle(perm, u):
    """Fisher-Yates shuffle of ``perm`` in place: step i (from the end)
    swaps perm[i] with perm[j], j = floor(u[i] (i + 1)) for u[i] uniform on
    [0, 1) (the min guards the rounding of u (i + 1) up to i + 1)."""
    for i in range(perm.shape[0] - 1, 0, -1):
        j = min(int(u[i] * (i + 1)), i)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t


@njit(cache=True, nogil=True)
def objectives(indptr, indices, data, y, sw, code, smoothing, lam, w, alpha, w_dual):
    """Primal P(w) of Eq. 1 and dual D(alpha) of Eq. 48, each loss phi_i
    weighted by s_i (``sw``, mean 1).

    ``w_dual = Pi_S(X' alpha / (lam n))`` is the primal point of alpha
    (Eq. 49); D = -lam/2 ||w_dual||^2 - 1/n sum_i s_i phi_i^*(-alpha_i/s_i).
    Returns (P, D).
    """
    n = y.shape[0]
    loss = 0.0
    for i in range(n):
        if sw[i] != 0.0:
            loss += sw[i] * loss_value(code, row_dot(indptr, indices, data, i, w), y[i],
                                       smoothing)
    P = 0.5 * lam * np.dot(w, w) + loss / n
    D = -0.5 * lam * np.dot(w_dual, w_dual) - conj_sum(code, alpha, y, smoothing, sw) / n
    return P, D


@njit(cache=True, nogil=True)
def xt_alpha(indptr, indices, data, alpha, lam_n, out):
    """out = X' alpha / (lam n) (wbar of Alg. 2 step 5 recomputed exactly);
    ``alpha`` (n, m) and ``out`` (d, m) (the driver passes (n, 1) and
    (d, 1) views in the binary case)."""
    m = alpha.shape[1]
    out[:, :] = 0.0
    inv = 1.0 / lam_n
    if m == 1:
        o = out[:, 0]
        for i in range(indptr.shape[0] - 1):
            a = alpha[i, 0] * inv
            if a != 0.0:
                for p in range(indptr[i], indptr[i + 1]):
                    o[indices[p]] += data[p] * a
        return
    for i in range(indptr.shape[0] - 1):
        for p in range(indptr[i], indptr[i + 1]):
            h = indices[p]
            v = data[p] * inv
            for c in range(m):
                out[h, c] += v * alpha[i, c]
