"""numba kernels of SC-Pegasos (Alg. 1; Alg. 3 for the multiclass losses)
and of the dual point that certifies its iterates.

Paper file: ``sign-constrained-sdca-pegasos.txt``.  The conventions of
:mod:`polyrank.sign._kernels` hold here.
"""

import math

import numpy as np
from numba import njit

from ._loss_kernels import loss_deriv, row_dot, sign_correct
from ._multiclass_kernels import mc_loss_grad, row_scores


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
def dual_from_primal(indptr, indices, data, y, sw, code, smoothing, w, alpha):
    """alpha_i = -s_i phi_i'(<w, x_i>): the dual point that SDCA would reach
    at w (Fenchel-Young equality); used to certify Pegasos iterates."""
    for i in range(y.shape[0]):
        if sw[i] == 0.0:
            alpha[i] = 0.0
            continue
        z = row_dot(indptr, indices, data, i, w)
        alpha[i] = -sw[i] * loss_deriv(code, z, y[i], smoothing)


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
