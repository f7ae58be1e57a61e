"""numba kernels of the multiclass losses of sign-constrained learning
(Sec. 5, Eq. 20-22: soft-max, max-hinge, top-k hinge) and of multiclass
SC-SDCA (Alg. 4).

Paper file: ``sign-constrained-sdca-pegasos.txt``.  The conventions of
:mod:`polyrank.sign._kernels` hold here; W, Wbar, the sign matrix C are
(d, m) and the dual variables A (n, m).
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .._sort import heapsort_prefix
from ._loss_kernels import _DOM_TOL, MAX_HINGE, SOFTMAX, TOP_K_HINGE, sign_correct


class McSdcaIterate(NamedTuple):
    """The iterate of multiclass SC-SDCA, one argument of
    :func:`mc_sdca_epoch` (all updated in place)."""

    A: np.ndarray              # float64 (n, m): dual variables (Eq. 48)
    Wbar: np.ndarray           # float64 (d, m): X' A / (lam n)
    W: np.ndarray              # float64 (d, m): Pi_S(Wbar)
    Wsum: np.ndarray           # float64 (d, m): lazy running sum of W (averaging)
    last: np.ndarray           # int64 (d,): step of each row's last change


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
