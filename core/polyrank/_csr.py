"""Rows of a CSR matrix for the numba kernels of the linear solvers.

The linear passes of SOPOPO (:func:`polyrank.sopopo._kernels.pass_linear`)
and M3L (:func:`polyrank.m3l._kernels.dca_run`) read the instances one row
at a time.  They take four arguments ``(X, Xdata, Xind, Xptr)``: a dense X
(m, n) with empty CSR arrays, or an empty X (0, 0) with the ``data``,
``indices`` and ``indptr`` of a CSR matrix (:func:`row_arrays` builds
them), so that one compiled specialization serves both and a sparse pass
touches only the non-zeros.  The functions here are the kernels' row
operations: on a vector w (:func:`row_dot`, :func:`row_axpy`, inlined) or on
rows of a label matrix W in place (:func:`label_dot`, :func:`label_axpy`,
:func:`rows_dot`, :func:`rows_axpy`: no array views, no reference counts,
SIMD sums).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

__all__ = ["row_arrays", "csr_row_dot", "csr_row_axpy", "row_dot", "row_axpy",
           "label_dot", "label_axpy", "rows_dot", "rows_axpy"]

_NO_ROWS = np.empty((0, 0))
_NO_DATA = np.empty(0)
_NO_INDEX = np.empty(0, dtype=np.int64)


def row_arrays(X):
    """A matrix as the four arrays polyrank's numba kernels take.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or scipy sparse matrix
        A dense X is passed as it is; a sparse one is converted to CSR.  It
        must have sorted or unsorted indices without duplicates (what scipy's
        constructors give; ``polyrank.validation`` checks user input).

    Returns
    -------
    tuple ``(X, Xdata, Xind, Xptr)``
        Dense: ``X`` and three empty arrays.  Sparse: an empty ``(0, 0)``
        float64 ``X``, then the CSR arrays (float64 data, int64 indices,
        int64 indptr).
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return (_NO_ROWS, np.asarray(X.data, dtype=np.float64),
                X.indices.astype(np.int64, copy=False), X.indptr.astype(np.int64, copy=False))
    return X, _NO_DATA, _NO_INDEX, _NO_INDEX


@njit(cache=True, nogil=True, inline="always")
def csr_row_dot(w, Xdata, Xind, Xptr, i):
    """w . x_i for row i of the CSR matrix (Xdata, Xind, Xptr)."""
    s = 0.0
    for t in range(Xptr[i], Xptr[i + 1]):
        s += w[Xind[t]] * Xdata[t]
    return s


@njit(cache=True, nogil=True, inline="always")
def csr_row_axpy(w, c, Xdata, Xind, Xptr, i):
    """w += c x_i for row i of the CSR matrix (Xdata, Xind, Xptr)."""
    for t in range(Xptr[i], Xptr[i + 1]):
        w[Xind[t]] += c * Xdata[t]


#: The row helpers are inlined into the kernels at numba's IR level: called
#: as functions, each call builds array views (reference counted) and a frame,
#: which on rows of 64 costs 3-5x the products themselves (measured on
#: SOPOPO's digits passes).  Inlining keeps the arithmetic and its order.
@njit(cache=True, nogil=True, inline="always")
def row_dot(w, X, Xdata, Xind, Xptr, i):
    """w . x_i for row i of the dense X, or of the CSR matrix (Xdata, Xind,
    Xptr) when X has no rows."""
    if X.shape[0] == 0:
        return csr_row_dot(w, Xdata, Xind, Xptr, i)
    # a plain loop: for short rows the call of BLAS ddot through np.dot
    # costs more than the products (measured in SOPOPO's batch passes)
    acc = 0.0
    for j in range(w.shape[0]):
        acc += w[j] * X[i, j]
    return acc


@njit(cache=True, nogil=True, inline="always")
def row_axpy(w, c, X, Xdata, Xind, Xptr, i):
    """w += c x_i, x_i a row as in :func:`row_dot`."""
    if X.shape[0] == 0:
        csr_row_axpy(w, c, Xdata, Xind, Xptr, i)
    else:
        x = X[i]
        for j in range(x.shape[0]):
            w[j] += c * x[j]


#: LLVM may reorder the sums of the dot products (and fuse multiply-adds) so
#: that they run in SIMD lanes; without it every addition waits for the
#: previous one.  Only these two loops get it: the sums then differ from the
#: left-to-right sums in their last bits; NaN and inf stay IEEE.
_SIMD = {"reassoc", "contract"}


@njit(cache=True, nogil=True, fastmath=_SIMD, _nrt=False)
def label_dot(W, a, X, Xdata, Xind, Xptr, i):
    """W[a] . x_i (W of shape (k, d)), x_i a row as in :func:`row_dot`, summed
    in SIMD lanes, without an array view of W[a] (``_nrt=False``: no
    reference counts, whose atomic operations cost more than a short dot
    product when called per label in a pass)."""
    s = 0.0
    if X.shape[0] == 0:
        for p in range(Xptr[i], Xptr[i + 1]):
            s += W[a, Xind[p]] * Xdata[p]
        return s
    for j in range(W.shape[1]):
        s += W[a, j] * X[i, j]
    return s


@njit(cache=True, nogil=True, fastmath=_SIMD, _nrt=False)
def label_axpy(W, a, c, X, Xdata, Xind, Xptr, i):
    """W[a] += c x_i, as :func:`label_dot` (fused multiply-adds, no view)."""
    if X.shape[0] == 0:
        for p in range(Xptr[i], Xptr[i + 1]):
            W[a, Xind[p]] += c * Xdata[p]
        return
    for j in range(W.shape[1]):
        W[a, j] += c * X[i, j]


@njit(cache=True, nogil=True, _nrt=False)
def rows_dot(W, idx, n, X, Xdata, Xind, Xptr, i, f):
    """f[a] = W[a] . x_i for the labels a = idx[:n] (:func:`label_dot`;
    measured 7x faster than a left-to-right sum over 10 rows of 64)."""
    for t in range(n):
        a = idx[t]
        f[a] = label_dot(W, a, X, Xdata, Xind, Xptr, i)


@njit(cache=True, nogil=True, _nrt=False)
def rows_axpy(W, idx, n, dc, X, Xdata, Xind, Xptr, i):
    """W[a] += dc[a] x_i for the labels a = idx[:n] with dc[a] != 0
    (:func:`label_axpy`)."""
    for t in range(n):
        a = idx[t]
        if dc[a] != 0.0:
            label_axpy(W, a, dc[a], X, Xdata, Xind, Xptr, i)
