"""numba kernels of sign-constrained Pegasos and SDCA (Kato et al.).

Paper file: ``sign-constrained-sdca-pegasos.txt``.  Plain arrays in, numbers
out; no Python objects.  Conventions:

* ``X`` is given in CSR form ``(indptr, indices, data)`` with one *row* per
  example (the paper's ``X`` is d x n with one column per example).
* Binary/regression losses (Table 1) are identified by an integer code
  (:data:`HINGE` ... :data:`ABSOLUTE`); multiclass losses (Sec. 5, Eq. 20-22)
  by :data:`SOFTMAX`, :data:`MAX_HINGE`, :data:`TOP_K_HINGE`.
* Dual variables follow Eq. 14 / Eq. 48: the primal point is recovered as
  ``w = Pi_S(wbar)``, ``wbar = X' alpha / (lam n)``, and the loss enters the
  dual through ``phi_i^*(-alpha_i)``.
* The sign vector ``c`` (Eq. 4) is float64 with entries in {-1, 0, +1}; the
  sign correction of Eq. 11 is ``w_h <- w_h + c_h max(0, -c_h w_h)``.
"""

import math
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .._sort import heapsort_prefix

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


class DenseExamples(NamedTuple):
    """The examples of :func:`sdca_epoch_dense` as one argument: a dense X
    with the labels and the example weights (the dense twin of
    :class:`CsrExamples`)."""

    X: np.ndarray              # float64 (n, d), C-contiguous: one row per example
    y: np.ndarray              # float64 (n,) labels
    sw: np.ndarray             # float64 (n,): example weights s_i, mean 1


class SignBox(NamedTuple):
    """The sign constraints of Eq. 4 as the box Pi_S clips to (Eq. 11), one
    argument of :func:`sdca_epoch_dense`: ``lo = 0`` where c = +1, ``hi =
    0`` where c = -1, else -inf / +inf."""

    lo: np.ndarray             # float64 (d,): lower bounds of w
    hi: np.ndarray             # float64 (d,): upper bounds of w


class SdcaIterate(NamedTuple):
    """The iterate of binary/regression SC-SDCA, one argument of
    :func:`sdca_epoch` and :func:`sdca_epoch_dense` (all updated in place
    except ``w_prev``)."""

    alpha: np.ndarray          # float64 (n,): dual variables (Eq. 14)
    wbar: np.ndarray           # float64 (d,): X' alpha / (lam n)
    w: np.ndarray              # float64 (d,): Pi_S(wbar)
    wsum: np.ndarray           # float64 (d,): lazy running sum of w (averaging)
    last: np.ndarray           # int64 (d,): step of each coordinate's last change
    w_prev: np.ndarray         # float64 (d,): the previous epoch's iterate (track)
    z_prev: np.ndarray         # float64 (n,): receives <w_prev, x_i> (track)


class McSdcaIterate(NamedTuple):
    """The iterate of multiclass SC-SDCA, one argument of
    :func:`mc_sdca_epoch` (all updated in place)."""

    A: np.ndarray              # float64 (n, m): dual variables (Eq. 48)
    Wbar: np.ndarray           # float64 (d, m): X' A / (lam n)
    W: np.ndarray              # float64 (d, m): Pi_S(Wbar)
    Wsum: np.ndarray           # float64 (d, m): lazy running sum of W (averaging)
    last: np.ndarray           # int64 (d,): step of each row's last change


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
def row_scores(indptr, indices, data, i, W, z):
    """z = W' x_i: the m class scores of example i (CSR row i of X, W of
    shape (d, m)); the multiclass twin of :func:`row_dot`."""
    for c in range(W.shape[1]):
        z[c] = 0.0
    for p in range(indptr[i], indptr[i + 1]):
        h = indices[p]
        v = data[p]
        for c in range(W.shape[1]):
            z[c] += v * W[h, c]


@intrinsic
def _prefetch(typingctx, arr, offset):
    """Hint the CPU to load the cache line holding element ``offset`` of the
    C-contiguous array ``arr`` (flat index; LLVM's ``llvm.prefetch``, read,
    high locality).  No effect on results."""
    if not isinstance(arr, types.Array) or not isinstance(offset, types.Integer):
        return None
    sig = types.void(arr, offset)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), i8p)
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


#: rows ahead whose memory an epoch asks for before it needs them: the
#: epochs visit rows in random order, which the hardware prefetcher cannot
#: follow
_PREFETCH_ROWS = 6


@njit(cache=True, nogil=True)
def _prefetch_range(arr, start, stop):
    """Prefetch the cache lines of the flat elements [start, stop) (8 float64
    or int64 per 64-byte line)."""
    for q in range(start, stop, 8):
        _prefetch(arr, q)
    if stop > start:
        _prefetch(arr, stop - 1)


@njit(cache=True, nogil=True)
def sdca_epoch(rows, code, smoothing, lam, sqnorm, s_lb, it, c, perm, t0, average, track):
    """One epoch of SC-SDCA (Alg. 2) on CSR rows: for i in ``perm``, the
    coordinate step (step 4, :func:`sdca_delta`), the update of wbar (step
    5) and the sign correction of the coordinates of x_i (step 6; the other
    coordinates of wbar are unchanged, so Eq. 11 leaves them as they are).

    If ``average``, accumulates ``wsum += w^(t-1)`` for every step t of the
    epoch lazily (``last[h]`` is the step at which coordinate h last changed;
    flush with :func:`flush_average`), the sum of Alg. 2, step 8.  ``t0`` is
    the number of steps before this epoch.

    If ``track``, also stores ``z_prev[i] = <w_prev, x_i>`` while row i is
    in cache: the margins of the previous epoch's iterate, from which
    :func:`loss_sum` gives its primal objective without another pass over X.

    ``sw`` (n,) are the example weights s_i (mean 1 over all n rows): the
    loss of row i is s_i phi_i, whose dual variable alpha_i = s_i a_i has
    the step s_i :func:`sdca_delta` (z, a_i, y_i, s_i qq) (rows of weight 0
    are skipped).  With every s_i = 1 the step is Alg. 2's exactly.

    ``rows``: :class:`CsrExamples` (X, y, sw); ``it``: :class:`SdcaIterate`
    (alpha, wbar, w, wsum, last, w_prev, z_prev); ``sqnorm`` (n,) the
    ||x_i||^2; ``c`` (d,) the signs.

    Returns the number of dual variables alpha_i that changed.
    """
    indptr, indices, data, y, sw = rows.indptr, rows.indices, rows.data, rows.y, rows.sw
    alpha, wbar, w, wsum, last = it.alpha, it.wbar, it.w, it.wsum, it.last
    w_prev, z_prev = it.w_prev, it.z_prev
    n = perm.shape[0]
    inv_lam_n = 1.0 / (lam * y.shape[0])
    changed = 0
    for j in range(n):
        if j + _PREFETCH_ROWS < n:
            r = perm[j + _PREFETCH_ROWS]
            _prefetch_range(indices, indptr[r], indptr[r + 1])
            _prefetch_range(data, indptr[r], indptr[r + 1])
        i = perm[j]
        z = row_dot(indptr, indices, data, i, w)
        if track:
            z_prev[i] = row_dot(indptr, indices, data, i, w_prev)
        s = sw[i]
        if s == 0.0:
            continue
        d = s * sdca_delta(code, z, alpha[i] / s, y[i], sqnorm[i] * inv_lam_n * s, smoothing,
                           s_lb)
        if d == 0.0:
            continue
        changed += 1
        alpha[i] += d
        scale = d * inv_lam_n
        t = t0 + j              # steps done before this one
        for p in range(indptr[i], indptr[i + 1]):
            h = indices[p]
            if average:
                wsum[h] += w[h] * (t + 1 - last[h])
                last[h] = t + 1
            wbar[h] += scale * data[p]
            w[h] = sign_correct(wbar[h], c[h])
    return changed


#: fast-math flags of the dense inner products: reassociation lets LLVM
#: vectorise the sums (their rounding differs from a left-to-right sum by a
#: few ulp); no flag that changes inf/NaN semantics
_VEC = {"reassoc", "contract", "nsz"}


@njit(cache=True, nogil=True, fastmath=_VEC)
def _dot(x, w):
    acc = 0.0
    for h in range(x.shape[0]):
        acc += x[h] * w[h]
    return acc


@njit(cache=True, nogil=True, fastmath=_VEC)
def _dot2(x, w, v):
    """(<x, w>, <x, v>) in one pass over x."""
    a = 0.0
    b = 0.0
    for h in range(x.shape[0]):
        a += x[h] * w[h]
        b += x[h] * v[h]
    return a, b


@njit(cache=True, nogil=True, fastmath=_VEC)
def _axpy_project(s, x, wbar, w, lo, hi):
    """wbar += s x, then w = Pi_S(wbar) (Eq. 11) written as the clip of
    wbar_h to [lo_h, hi_h] (lo = 0 where c = +1, hi = 0 where c = -1, else
    -inf / +inf)."""
    for h in range(x.shape[0]):
        v = wbar[h] + s * x[h]
        wbar[h] = v
        v = v if v > lo[h] else lo[h]
        w[h] = v if v < hi[h] else hi[h]


@njit(cache=True, nogil=True)
def sdca_epoch_dense(rows, code, smoothing, lam, sqnorm, s_lb, it, box, perm, t0, average,
                     track):
    """:func:`sdca_epoch` for a dense, C-contiguous X (n, d): the same steps
    of Alg. 2 with vectorised inner products and updates (a step touches
    every coordinate, so the sign correction is applied to all of w, as a
    clip to [lo, hi] of ``box``, a :class:`SignBox`).  ``rows``:
    :class:`DenseExamples` (X, y, sw); ``it`` (:class:`SdcaIterate`),
    ``average``, ``track``: as in :func:`sdca_epoch`.

    Returns the number of alpha_i that changed.
    """
    X, y, sw = rows.X, rows.y, rows.sw
    lo, hi = box.lo, box.hi
    alpha, wbar, w, wsum, last = it.alpha, it.wbar, it.w, it.wsum, it.last
    w_prev, z_prev = it.w_prev, it.z_prev
    n = perm.shape[0]
    d = X.shape[1]
    inv_lam_n = 1.0 / (lam * y.shape[0])
    changed = 0
    for j in range(n):
        if j + _PREFETCH_ROWS < n:
            r = perm[j + _PREFETCH_ROWS] * d
            _prefetch_range(X, r, r + d)
        i = perm[j]
        x = X[i]
        if track:
            z, z_prev[i] = _dot2(x, w, w_prev)
        else:
            z = _dot(x, w)
        s = sw[i]
        if s == 0.0:
            continue
        d_alpha = s * sdca_delta(code, z, alpha[i] / s, y[i], sqnorm[i] * inv_lam_n * s,
                                 smoothing, s_lb)
        if d_alpha == 0.0:
            continue
        changed += 1
        alpha[i] += d_alpha
        if average:
            t = t0 + j
            for h in range(d):
                wsum[h] += w[h] * (t + 1 - last[h])
                last[h] = t + 1
        _axpy_project(d_alpha * inv_lam_n, x, wbar, w, lo, hi)
    return changed


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
def active_rows(code, alpha, alpha_before, y, sw):
    """The rows kept by the shrinking of :func:`polyrank.sign.sc_sdca`: those
    whose alpha_i changed in the last full epoch or lies inside the domain
    of phi_i^* (not at a bound: y alpha in {0, 1} for the hinge losses,
    |alpha| = 1 for the absolute loss; the logistic and square losses have
    no reachable bound, so all their rows stay), bounds scaled by the weight
    s_i; rows of weight 0 never.  int64 indices, ascending."""
    n = alpha.shape[0]
    keep = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        if sw[i] == 0.0:
            continue
        a = alpha[i] / sw[i]
        if code == HINGE or code == SMOOTH_HINGE:
            b = a * y[i]
            bound = b == 0.0 or b == 1.0
        elif code == ABSOLUTE:
            bound = a == 1.0 or a == -1.0
        else:
            bound = False
        if alpha[i] != alpha_before[i] or not bound:
            keep[k] = i
            k += 1
    return keep[:k].copy()


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
def flush_average(w, wsum, last, t):
    """Bring the lazy sum of :func:`sdca_epoch` up to step t: adds w[h] for
    every step since coordinate h last changed."""
    for h in range(w.shape[0]):
        wsum[h] += w[h] * (t - last[h])
        last[h] = t


@njit(cache=True, nogil=True)
def pegasos_steps(rows, code, smoothing, lam, radius, c, w, wsum, perm, batch_size, t_first,
                  n_steps):
    """``n_steps`` iterations of SC-Pegasos (Alg. 1), t = t_first, ...

    Iteration t takes the mini-batch A_t = perm[(t - t_first) k : ... + k]
    (k = ``batch_size``), does the gradient step of Eq. 9
    ``w <- (1 - 1/t) w - 1/(k lam t) sum_{i in A_t} phi_i'(<w, x_i>) x_i``,
    the sign correction Eq. 11 (step 6) and the projection onto the ball of
    radius sqrt(r_loss / lam) (step 7).  ``wsum`` accumulates w_t (before the
    step) for the average of step 9.  The sub-gradient of row i is scaled by
    its weight s_i (``sw``, mean 1).  ``rows``: :class:`CsrExamples`.
    """
    indptr, indices, data, y, sw = rows.indptr, rows.indices, rows.data, rows.y, rows.sw
    d = w.shape[0]
    g = np.zeros(d)
    for s in range(n_steps):
        t = t_first + s
        for h in range(d):
            wsum[h] += w[h]
            g[h] = 0.0
        base = s * batch_size
        for j in range(batch_size):
            i = perm[base + j]
            if sw[i] == 0.0:
                continue
            z = row_dot(indptr, indices, data, i, w)
            dphi = sw[i] * loss_deriv(code, z, y[i], smoothing)
            if dphi != 0.0:
                for p in range(indptr[i], indptr[i + 1]):
                    g[indices[p]] += dphi * data[p]
        shrink = 1.0 - 1.0 / t
        step = 1.0 / (batch_size * lam * t)
        sq = 0.0
        for h in range(d):
            v = sign_correct(shrink * w[h] - step * g[h], c[h])
            w[h] = v
            sq += v * v
        nrm = math.sqrt(sq)
        if nrm > radius:
            f = radius / nrm
            for h in range(d):
                w[h] *= f


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
def dual_from_primal(indptr, indices, data, y, sw, code, smoothing, w, alpha):
    """alpha_i = -s_i phi_i'(<w, x_i>): the dual point that SDCA would reach
    at w (Fenchel-Young equality); used to certify Pegasos iterates."""
    for i in range(y.shape[0]):
        if sw[i] == 0.0:
            alpha[i] = 0.0
            continue
        z = row_dot(indptr, indices, data, i, w)
        alpha[i] = -sw[i] * loss_deriv(code, z, y[i], smoothing)


# ------------------------------------------------ multiclass losses (Sec. 5)

@njit(cache=True, nogil=True)
def _margin_vector(code, s, yi, out):
    """(I - 1 e_yi') s + 1 - e_yi of Eq. 21/22."""
    m = s.shape[0]
    for j in range(m):
        out[j] = s[j] - s[yi] + (0.0 if j == yi else 1.0)


@njit(cache=True, nogil=True)
def _topk_indices(v, k):
    """Indices of the k largest entries of v, largest first (ties by lower
    index): the order of ``np.argsort(-v, kind="mergesort")[:k]``, by k
    scans for the first largest entry not yet taken, O(k m) for m classes
    (numba's merge sort cost 1.4 s of compile time for a handful of
    classes)."""
    m = v.shape[0]
    k = min(k, m)
    out = np.empty(k, dtype=np.int64)
    taken = np.zeros(m, dtype=np.bool_)
    for r in range(k):
        best = -1
        for j in range(m):
            if not taken[j] and (best < 0 or v[j] > v[best]):
                best = j
        taken[best] = True
        out[r] = best
    return out


@njit(cache=True, nogil=True)
def mc_loss_value(code, s, yi, k):
    """phi^m_i(s): soft-max (Eq. 20), max-hinge (Eq. 21), top-k hinge (Eq. 22)."""
    m = s.shape[0]
    if code == SOFTMAX:
        mx = s[0]
        for j in range(m):
            mx = max(mx, s[j])
        acc = 0.0
        for j in range(m):
            acc += math.exp(s[j] - mx)
        return mx + math.log(acc) - s[yi]
    v = np.empty(m)
    _margin_vector(code, s, yi, v)
    if code == MAX_HINGE:
        return v.max()
    idx = _topk_indices(v, k)
    acc = 0.0
    for j in idx:
        acc += v[j]
    return acc / k


@njit(cache=True, nogil=True)
def mc_loss_grad(code, s, yi, k, out):
    """A (sub)gradient of phi^m_i at s, written to ``out`` (length m)."""
    m = s.shape[0]
    if code == SOFTMAX:
        mx = s.max()
        acc = 0.0
        for j in range(m):
            out[j] = math.exp(s[j] - mx)
            acc += out[j]
        for j in range(m):
            out[j] /= acc
        out[yi] -= 1.0
        return
    v = np.empty(m)
    _margin_vector(code, s, yi, v)
    for j in range(m):
        out[j] = 0.0
    if code == MAX_HINGE:
        j = np.argmax(v)
        out[j] += 1.0
        out[yi] -= 1.0
        return
    idx = _topk_indices(v, k)
    for j in idx:
        out[j] += 1.0 / k
        out[yi] -= 1.0 / k


@njit(cache=True, nogil=True)
def mc_conj_neg(code, a, yi, k):
    """phi^m_i^*(-a).  With p = e_yi - a: soft-max, sum_j p_j log p_j on the
    simplex; max-hinge and top-k hinge, -(1 - p_yi) on the simplex resp. on
    {0 <= p <= 1/k, sum p = 1}; +inf outside."""
    m = a.shape[0]
    total = 0.0
    cap = 1.0 if code != TOP_K_HINGE else 1.0 / k
    ent = 0.0
    for j in range(m):
        p = (1.0 if j == yi else 0.0) - a[j]
        if p < -_DOM_TOL:
            return np.inf
        if code != SOFTMAX and p > cap + _DOM_TOL:
            return np.inf
        total += p
        if code == SOFTMAX and p > 0.0:
            ent += p * math.log(p)
    if abs(total - 1.0) > _DOM_TOL * m:
        return np.inf
    if code == SOFTMAX:
        return ent
    return -a[yi]                      # -(1 - p_yi), p_yi = 1 - a_yi


@njit(cache=True, nogil=True)
def project_capped_simplex(v, cap, out):
    """Euclidean projection of v onto {0 <= p <= cap, sum p = 1} (cap >= 1/m):
    p = clip(v - tau, 0, cap) with tau found exactly among the breakpoints
    v_j and v_j - cap (f(tau) = sum clip(v - tau, 0, cap) is piecewise
    linear and decreasing)."""
    m = v.shape[0]
    bp = np.empty(2 * m)
    for j in range(m):
        bp[j] = v[j]
        bp[m + j] = v[j] - cap
    heapsort_prefix(bp, 2 * m)
    # f(bp[0]) = m cap >= 1 (or close), f(bp[-1]) = 0; find the segment
    lo = bp[0]
    flo = 0.0
    for j in range(m):
        flo += min(max(v[j] - lo, 0.0), cap)
    tau = lo
    if flo > 1.0:
        prev, fprev = lo, flo
        for r in range(1, 2 * m):
            t = bp[r]
            f = 0.0
            for j in range(m):
                f += min(max(v[j] - t, 0.0), cap)
            if f <= 1.0:
                if fprev == f:
                    tau = t
                else:
                    tau = prev + (fprev - 1.0) * (t - prev) / (fprev - f)
                break
            prev, fprev = t, f
    else:
        # only when m cap == 1 (rounding): every entry at the cap
        tau = lo - (1.0 - flo) / m
    for j in range(m):
        out[j] = min(max(v[j] - tau, 0.0), cap)


@njit(cache=True, nogil=True)
def mc_sdca_delta(code, z, a, yi, k, cq, s_lb, out):
    """The multiclass SDCA step Delta alpha of Alg. 4, step 4, written to
    ``out``.

    Maximises ``-<z, D> - cq ||D||^2 / 2 - phi^*(-(a + D))`` with
    ``cq = ||x_i||^2 / (lam n)`` (Eq. 30 up to the factor n; the paper's
    printed ``||x_i||^2 / (2 lam^2 n)`` is a typo of ``/(2 lam n)``).  For the
    max-hinge and top-k hinge this is a Euclidean projection onto the
    (capped) simplex, solved exactly; for the soft-max loss the step of
    Eq. 16 with vectors (g = 1, the loss is 1-smooth)."""
    m = z.shape[0]
    if code == SOFTMAX:
        g = np.empty(m)
        mc_loss_grad(code, z, yi, k, g)
        qn = 0.0
        gap_i = mc_loss_value(code, z, yi, k) + mc_conj_neg(code, a, yi, k)
        for j in range(m):
            out[j] = -g[j] - a[j]            # q = u - alpha, u = -grad
            qn += out[j] * out[j]
            gap_i += z[j] * a[j]
        if qn == 0.0:
            return
        s = 0.5 + gap_i / qn
        s = min(max(s, 0.0), 1.0 / s_lb) * s_lb
        for j in range(m):
            out[j] *= s
        return
    cap = 1.0 if code == MAX_HINGE else 1.0 / k
    v = np.empty(m)
    p = np.empty(m)
    if cq > 0.0:
        for j in range(m):
            pold = (1.0 if j == yi else 0.0) - a[j]
            v[j] = pold + (z[j] - z[yi] + (0.0 if j == yi else 1.0)) / cq
        project_capped_simplex(v, cap, p)
    else:
        # x_i = 0: the step only maximises the linear term <a_vec, p>
        for j in range(m):
            v[j] = 0.0 if j == yi else 1.0
        idx = _topk_indices(v, k if code == TOP_K_HINGE else 1)
        for j in range(m):
            p[j] = 0.0
        for j in idx:
            p[j] = cap
    for j in range(m):
        out[j] = (1.0 if j == yi else 0.0) - p[j] - a[j]


@njit(cache=True, nogil=True)
def mc_sdca_epoch(rows, code, k, lam, sqnorm, s_lb, it, C, perm, t0, average):
    """One epoch of multiclass SC-SDCA (Alg. 4) over ``perm``: step 4
    (:func:`mc_sdca_delta`), step 5 (Wbar += x_i Delta' / (lam n)) and the
    sign correction (step 6) of the rows of W touched by x_i.  Lazy running
    sum of W^(t-1) as in :func:`sdca_epoch`; example weights ``sw`` as
    there (the step of row i is s_i :func:`mc_sdca_delta` (z, A_i / s_i,
    s_i cq)).  ``rows``: :class:`CsrExamples`; ``it``: :class:`McSdcaIterate`
    (A, Wbar, W, Wsum, last).  Returns the number of examples whose dual
    column changed."""
    indptr, indices, data, y, sw = rows.indptr, rows.indices, rows.data, rows.y, rows.sw
    A, Wbar, W, Wsum, last = it.A, it.Wbar, it.W, it.Wsum, it.last
    n = perm.shape[0]
    m = W.shape[1]
    lam_n = lam * y.shape[0]
    z = np.empty(m)
    delta = np.empty(m)
    a = np.empty(m)
    changed = 0
    for jj in range(n):
        i = perm[jj]
        s = sw[i]
        if s == 0.0:
            continue
        row_scores(indptr, indices, data, i, W, z)
        for c in range(m):
            a[c] = A[i, c] / s
        mc_sdca_delta(code, z, a, y[i], k, sqnorm[i] / lam_n * s, s_lb, delta)
        for c in range(m):
            delta[c] *= s
        nz = False
        for c in range(m):
            if delta[c] != 0.0:
                nz = True
        if not nz:
            continue
        changed += 1
        for c in range(m):
            A[i, c] += delta[c]
        t = t0 + jj
        for p in range(indptr[i], indptr[i + 1]):
            h = indices[p]
            for c in range(m):
                if average:
                    Wsum[h, c] += W[h, c] * (t + 1 - last[h])
                Wbar[h, c] += data[p] * delta[c] / lam_n
                W[h, c] = sign_correct(Wbar[h, c], C[h, c])
            if average:
                last[h] = t + 1
    return changed


@njit(cache=True, nogil=True)
def mc_flush_average(W, Wsum, last, t):
    """Bring the lazy sum of :func:`mc_sdca_epoch` up to step t."""
    for h in range(W.shape[0]):
        for c in range(W.shape[1]):
            Wsum[h, c] += W[h, c] * (t - last[h])
        last[h] = t


@njit(cache=True, nogil=True)
def mc_pegasos_steps(rows, code, k, lam, radius, C, W, Wsum, perm, batch_size, t_first,
                     n_steps):
    """``n_steps`` iterations of multiclass SC-Pegasos (Alg. 3): Z = W' X_A
    (step 5), the gradient step (step 6, with the 1/k of Eq. 9), the sign
    correction (step 7) and the projection onto the Frobenius ball of radius
    sqrt(r_loss / lam) (step 8, Eq. 38).  ``Wsum`` accumulates W_t; row i's
    gradient is scaled by its weight s_i (``sw``); ``rows``:
    :class:`CsrExamples`."""
    indptr, indices, data, y, sw = rows.indptr, rows.indices, rows.data, rows.y, rows.sw
    d, m = W.shape
    G = np.zeros((d, m))
    z = np.empty(m)
    g = np.empty(m)
    for s in range(n_steps):
        t = t_first + s
        for h in range(d):
            for c in range(m):
                Wsum[h, c] += W[h, c]
                G[h, c] = 0.0
        base = s * batch_size
        for j in range(batch_size):
            i = perm[base + j]
            s = sw[i]
            if s == 0.0:
                continue
            row_scores(indptr, indices, data, i, W, z)
            mc_loss_grad(code, z, y[i], k, g)
            for p in range(indptr[i], indptr[i + 1]):
                h = indices[p]
                v = data[p] * s
                for c in range(m):
                    G[h, c] += v * g[c]
        shrink = 1.0 - 1.0 / t
        step = 1.0 / (batch_size * lam * t)
        sq = 0.0
        for h in range(d):
            for c in range(m):
                v = sign_correct(shrink * W[h, c] - step * G[h, c], C[h, c])
                W[h, c] = v
                sq += v * v
        nrm = math.sqrt(sq)
        if nrm > radius:
            f = radius / nrm
            for h in range(d):
                for c in range(m):
                    W[h, c] *= f


@njit(cache=True, nogil=True)
def mc_objectives(indptr, indices, data, y, sw, code, k, lam, W, A, W_dual):
    """Primal P^m(W) of Eq. 23 and the dual -lam/2 ||W_dual||_F^2 - 1/n
    sum_i s_i phi_i^*(-alpha_i / s_i) with W_dual = Pi_S(X' A / (lam n)),
    each loss weighted by s_i (``sw``, mean 1).  Returns (P, D)."""
    n = y.shape[0]
    m = W.shape[1]
    z = np.empty(m)
    a = np.empty(m)
    loss = 0.0
    conj = 0.0
    for i in range(n):
        s = sw[i]
        if s == 0.0:
            continue
        row_scores(indptr, indices, data, i, W, z)
        loss += s * mc_loss_value(code, z, y[i], k)
        for c in range(m):
            a[c] = A[i, c] / s
        conj += s * mc_conj_neg(code, a, y[i], k)
    P = 0.5 * lam * np.sum(W * W) + loss / n
    D = -0.5 * lam * np.sum(W_dual * W_dual) - conj / n
    return P, D


@njit(cache=True, nogil=True)
def mc_dual_from_primal(indptr, indices, data, y, sw, code, k, W, A):
    """alpha_i = -s_i grad phi^m_i(W' x_i), the dual point used to certify
    multiclass Pegasos iterates."""
    m = W.shape[1]
    z = np.empty(m)
    g = np.empty(m)
    for i in range(y.shape[0]):
        row_scores(indptr, indices, data, i, W, z)
        mc_loss_grad(code, z, y[i], k, g)
        for c in range(m):
            A[i, c] = -sw[i] * g[c]


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
