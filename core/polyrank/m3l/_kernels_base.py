"""The shared pieces of the M3L kernels: the argument tuples, the kernel
codes, the 1-D projected step and the row operations of the linear solvers.

Source: ``m3l-multilabel-zero-shot.txt`` (Hariharan, Vishwanathan, Varma),
Sec. 5.1 (Eq. 26-36), Sec. 6 (Eq. 37-45) and Appendix A (Alg. 1, Alg. 2,
Eq. 46-58).  The notation is that of :mod:`polyrank.m3l._kernels`, which
re-exports every kernel of the four algorithm modules
(:mod:`~polyrank.m3l._kernels_smo`, :mod:`~polyrank.m3l._kernels_cd`,
:mod:`~polyrank.m3l._kernels_dca`, :mod:`~polyrank.m3l._kernels_ovr`).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

#: floating-point contraction and reassociation (vectorised dot products);
#: no assumptions about NaN/inf, which the shrinking bounds use
_FAST = {"reassoc", "contract", "nsz", "arcp"}


#: kernel codes understood by :func:`kernel_row`
KIND_LINEAR = 0
KIND_RBF = 1
KIND_POLY = 2


# The arguments of the kernels below, grouped (numba types a NamedTuple field
# by field; the kernels read the fields once, at their top): a kernel takes at
# most twelve arguments.

class KernelSpec(NamedTuple):
    """The kernel of the SMO, k(x_i, x_j) + offset over the rows of X (see
    :func:`kernel_row`): one argument of :func:`smo_pass` and
    :func:`cache_get`."""

    X: np.ndarray              # float64 (N, D): the training points
    kind: int                  # KIND_LINEAR, KIND_RBF or KIND_POLY
    gamma: float
    coef0: float
    degree: int
    offset: float              # >= 0: the kernel of a constant feature (bias)


class KernelCache(NamedTuple):
    """The LRU cache of kernel rows of :func:`cache_get` (Sec. 5.1.3), all
    in place."""

    rows: np.ndarray           # float64 (n_slots, N): the cached rows
    slot_of: np.ndarray        # int64 (N,): the slot of each row, or -1
    owner: np.ndarray          # int64 (n_slots,): the row of each slot, or -1
    stamp: np.ndarray          # int64 (n_slots,): last-use times
    state: np.ndarray          # int64 (3,): clock, hits, misses
    part: np.ndarray           # bool (n_slots,): rows computed at the active examples only


class SmoArrays(NamedTuple):
    """The problem and the iterate of :func:`smo_pass`, label-major (one
    row per label)."""

    Kdiag: np.ndarray          # float64 (N,): k(x_i, x_i) + offset
    Yt: np.ndarray             # float64 (L, N): labels in {-1, +1}
    R: np.ndarray              # float64 (L, L): the prior
    Cv: np.ndarray             # float64 (N,): the bounds C_i
    At: np.ndarray             # float64 (L, N): alpha, in place
    Gt: np.ndarray             # float64 (L, N): the gradient (Eq. 29), in place
    u: np.ndarray              # float64 (N,): a round's delayed update (Eq. 36), scratch
    act: np.ndarray            # int64 (N,): the active examples act[:n_act[0]]
    n_act: np.ndarray          # int64 (1,)


class LabelRows(NamedTuple):
    """One label l of the SMO: rows l of ``Gt``, ``At``, ``Yt`` of
    :class:`SmoArrays` (views) with the bounds, one argument of the passes
    :func:`_gains`, :func:`_update2` and their gathered forms."""

    G: np.ndarray              # float64 (N,): gradients of label l, in place
    A: np.ndarray              # float64 (N,): alpha of label l
    Yl: np.ndarray             # float64 (N,): labels of label l
    Cv: np.ndarray             # float64 (N,): the bounds C_i


class GramProblem(NamedTuple):
    """The problem of :func:`cd_epoch`: the whole Gram matrix and the
    labels, example-major."""

    K: np.ndarray              # float64 or float32 (N, N): the Gram matrix
    Kdiag: np.ndarray          # float64 (N,): its diagonal
    Y: np.ndarray              # float64 (N, L): labels in {-1, +1}
    R: np.ndarray              # float64 (L, L): the prior
    Cv: np.ndarray             # float64 (N,): the bounds C_i


class CdIterate(NamedTuple):
    """The iterate and shrinking state of :func:`cd_epoch`, all in place."""

    A: np.ndarray              # float64 (N, L): alpha
    Ut: np.ndarray             # K's dtype (L, N): the expansion (Y alpha)' K
    active: np.ndarray         # int64 (N,): the active examples active[:n_active[0]]
    n_active: np.ndarray       # int64 (1,)
    lb: np.ndarray             # float64 (L,): shrinking thresholds
    ub: np.ndarray             # float64 (L,)


class LinearRows(NamedTuple):
    """The instances of the linear solvers (:func:`dca_run`,
    :func:`ovr_run`): a dense X, or an empty X and a CSR matrix
    (:func:`polyrank._csr.row_arrays`), with x_i'x_i."""

    X: np.ndarray              # float64 (N, D) or (0, 0)
    Xdata: np.ndarray          # float64 (nnz,)
    Xind: np.ndarray           # int64 (nnz,)
    Xptr: np.ndarray           # int64 (N + 1,)
    sqnorm: np.ndarray         # float64 (N,)


class DcaState(NamedTuple):
    """The iterate and the state between calls of :func:`dca_run`, all in
    place."""

    alpha: np.ndarray          # float64 (N, L)
    Zt: np.ndarray             # float64 (L, D): (2 X'(Y alpha) R)'
    active: np.ndarray         # int64 (L, N): active sets active[l, :n_active[l]]
    n_active: np.ndarray       # int64 (L,)
    lb: np.ndarray             # float64 (L,): shrinking thresholds
    ub: np.ndarray             # float64 (L,)
    finished: np.ndarray       # bool (n_groups,): groups solved
    flags: np.ndarray          # int64 (1,): flags[0] = 1 once batches are label-wise


class DcaWork(NamedTuple):
    """The work arrays of one call of :func:`dca_run` (made inside it),
    shared with :func:`_dca_epoch_order` and :func:`_dca_between_epochs`."""

    keep: np.ndarray           # bool (L, N): variables kept in the epoch
    seq: np.ndarray            # int64 (N L): the labels' interleaving
    pg_ext: np.ndarray         # float64 (L, 2): extreme projected gradients
    n_vis: np.ndarray          # int64 (L,): variables visited per label
    pos: np.ndarray            # int64 (L,): position in each active set
    label_pg: np.ndarray       # float64 (L,): largest |projected gradient|
    full: np.ndarray           # bool (n_groups,): groups with all variables active
    gdone: np.ndarray          # bool (n_groups,): groups that look solved
    nzk: np.ndarray            # int64 (L, L): the labels k with R_kl != 0 ...
    n_nz: np.ndarray           # int64 (L,): ... and how many


class OvrState(NamedTuple):
    """The iterate and the state between calls of :func:`ovr_run`, all in
    place."""

    alpha: np.ndarray          # float64 (N, L)
    Zt: np.ndarray             # float64 (L, D): (2 X'(Y alpha) R)'
    on: np.ndarray             # bool (N, L): active variables
    n_on: np.ndarray           # int64 (L,): active variables per label
    lb: np.ndarray             # float64 (L,): shrinking thresholds
    ub: np.ndarray             # float64 (L,)
    done: np.ndarray           # bool (L,): labels solved


@numba.njit(cache=True, nogil=True)
def projected(g, a, C):
    """Projected gradient of one variable of a box-constrained maximisation
    over [0, C] (Eq. 31 / Eq. 55); 0 when C = 0 (the box is a point)."""
    if a <= 0.0 and g < 0.0:
        return 0.0
    if a >= C and g > 0.0:
        return 0.0
    return g


@numba.njit(cache=True, nogil=True)
def solve_1d(a, b, m, M):
    """SolveOneDQP (Appendix A, Eq. 58): argmax_{m <= x <= M} -a/2 x^2 + b x
    = min(M, max(m, b / a)); for a <= 0 (a zero kernel diagonal) the
    linear objective is maximised at the bound b points to."""
    if a <= 0.0:
        if b > 0.0:
            return M
        if b < 0.0:
            return m
        return 0.0
    x = b / a
    if x < m:
        return m
    if x > M:
        return M
    return x


@numba.njit(cache=True, nogil=True)
def _snap(a, C):
    """a clipped to [0, C], landing exactly on a bound within 1e-12 C of it
    (the projected gradient tests the bounds exactly)."""
    a = min(C, max(0.0, a))
    if C - a < 1e-12 * C:
        return C
    if a < 1e-12 * C:
        return 0.0
    return a


@numba.njit(cache=True, nogil=True, inline="always")
def _abs_projected(g, a, C):
    """|projected gradient| (Eq. 31) without branches: 0 at a bound the
    gradient points out of (and for g = 0), |g| otherwise."""
    free = ((g > 0.0) & (a < C)) | ((g < 0.0) & (a > 0.0))
    return abs(g) if free else 0.0

#: return codes of :func:`dca_run`
DCA_SOLVED = 0      # every group's problem solved, confirmed on an epoch over all its variables
DCA_BUDGET = 1      # the visit budget is spent (at the end of an epoch)


# Row operations of :func:`dca_run` on z_k = Zt[k]: separate compiled
# functions for dense and CSR rows, chosen at the call site, so that LLVM
# vectorises the dense loops (a CSR scatter into Zt in the same function
# defeats it: 0.15 us instead of 0.02 us per dot product + axpy at D = 72).

@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _ddot(Zt, l, X, p):
    """z_l . x_p for a dense X."""
    s = 0.0
    for d in range(X.shape[1]):
        s += Zt[l, d] * X[p, d]
    return s


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _daxpy(Zt, k, c, X, p):
    """z_k += c x_p for a dense X."""
    for d in range(X.shape[1]):
        Zt[k, d] += c * X[p, d]


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _sdot(Zt, l, Xdata, Xind, Xptr, p):
    """z_l . x_p for a CSR X."""
    s = 0.0
    for j in range(Xptr[p], Xptr[p + 1]):
        s += Zt[l, Xind[j]] * Xdata[j]
    return s


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _saxpy(Zt, k, c, Xdata, Xind, Xptr, p):
    """z_k += c x_p for a CSR X."""
    for j in range(Xptr[p], Xptr[p + 1]):
        Zt[k, Xind[j]] += c * Xdata[j]


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def linear_state(X, Xdata, Xind, Xptr, Y, R, alpha, Zt, G):
    """Exact Zt = (2 X'(Y alpha) R)' (Eq. 23) and G = 2 - 2 Y * (X Z)
    (Eq. 29), single-threaded, O(N D L + D L^2) (nnz instead of N D for a
    CSR X)."""
    N, L = Y.shape
    D = Zt.shape[1]
    dense = X.shape[0] > 0
    At = np.zeros((L, D))
    for i in range(N):
        for k in range(L):
            c = Y[i, k] * alpha[i, k]
            if c != 0.0:
                if dense:
                    _daxpy(At, k, c, X, i)
                else:
                    _saxpy(At, k, c, Xdata, Xind, Xptr, i)
    for l in range(L):
        for d in range(D):
            Zt[l, d] = 0.0
        for k in range(L):
            Rlk = 2.0 * R[l, k]
            if Rlk != 0.0:
                for d in range(D):
                    Zt[l, d] += Rlk * At[k, d]
    for i in range(N):
        for l in range(L):
            zx = _ddot(Zt, l, X, i) if dense else _sdot(Zt, l, Xdata, Xind, Xptr, i)
            G[i, l] = 2.0 - 2.0 * Y[i, l] * zx


@numba.njit(cache=True, nogil=True, inline="always")
def _shuffle(a, n):
    """Shuffle a[:n] in place (Fisher-Yates, by numba's global generator,
    which the calling kernel seeded): the visiting order of an epoch."""
    for t in range(n - 1, 0, -1):
        s = np.random.randint(0, t + 1)
        tmp = a[t]
        a[t] = a[s]
        a[s] = tmp
