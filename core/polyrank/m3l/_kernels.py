"""numba kernels of M3L: kernelised SMO (Alg. 1-2), kernelised
example-major coordinate ascent on a precomputed Gram matrix
(:func:`cd_epoch`) and linear dual coordinate ascent with shrinkage
(Sec. 6).

Source: ``m3l-multilabel-zero-shot.txt`` (Hariharan, Vishwanathan, Varma),
Sec. 5.1 (Eq. 26-36), Sec. 6 (Eq. 37-45) and Appendix A (Alg. 1, Alg. 2,
Eq. 46-58).

Notation (all arrays are plain float64/int64 numpy arrays):

* ``Y`` (N, L) labels in {-1, +1}; ``alpha`` (N, L) dual variables in
  [0, C_i]; ``Cv`` (N,) the per-example bounds C_i = C w_i (sample weights
  w_i; 0 pins an example's variables at 0); ``R`` (L, L) the symmetric
  positive-definite label prior.
* The linear solver reads X through ``(X, Xdata, Xind, Xptr)``: a dense X,
  or an empty X and a CSR matrix (:mod:`polyrank._csr`).
* With the Hamming loss, Delta^-_il - Delta^+_il = 2, so the gradient of
  the dual D2 (Eq. 25, Eq. 29) is ``G[i, l] = 2 - 2 y_il f_l(x_i)`` where
  ``f_l(x) = z_l' phi(x) = 2 sum_k R_lk sum_j K(x, x_j) y_jk alpha_jk``.
* The projected gradient (Eq. 31, 55) is G on (0, C), min(0, G) at C and
  max(0, G) at 0.

The kernels are free functions over arrays (no jitclass, no callbacks):
one call of :func:`smo_pass` (a sweep) or :func:`dca_run` (epochs up to a
duality-gap check) is one chunk of work of the Python drivers in
:mod:`polyrank.m3l.solver`.
"""

from __future__ import annotations

import math
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


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def kernel_row(X, p, kind, gamma, coef0, degree, offset, out):
    """out[i] = k(x_i, x_p) + offset for all rows i of X (linear, rbf
    exp(-gamma ||x_i - x_p||^2) or poly (gamma x_i.x_p + coef0)^degree);
    ``offset`` >= 0 is the kernel of a constant feature sqrt(offset)
    appended to phi(x) (the bias feature of M3L, Sec. 3, in feature space)."""
    N, D = X.shape
    for i in range(N):
        s = 0.0
        if kind == KIND_RBF:
            for d in range(D):
                t = X[i, d] - X[p, d]
                s += t * t
            out[i] = math.exp(-gamma * s) + offset
        else:
            for d in range(D):
                s += X[i, d] * X[p, d]
            if kind == KIND_LINEAR:
                out[i] = s + offset
            else:
                out[i] = (gamma * s + coef0) ** degree + offset


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def kernel_row_at(X, p, kind, gamma, coef0, degree, offset, act, n, out):
    """:func:`kernel_row` at the rows ``act[:n]`` only: out[i] = k(x_i, x_p)
    + offset for i in act[:n], the other entries of ``out`` untouched (the
    part of a kernel row the shrunk SMO reads, as LIBSVM's
    ``get_Q(i, active_size)``)."""
    D = X.shape[1]
    for t in range(n):
        i = act[t]
        s = 0.0
        if kind == KIND_RBF:
            for d in range(D):
                v = X[i, d] - X[p, d]
                s += v * v
            out[i] = math.exp(-gamma * s) + offset
        else:
            for d in range(D):
                s += X[i, d] * X[p, d]
            if kind == KIND_LINEAR:
                out[i] = s + offset
            else:
                out[i] = (gamma * s + coef0) ** degree + offset


@numba.njit(cache=True, nogil=True)
def cache_get(p, kern, cache, act, n):
    """Slot of kernel row ``p`` in the LRU cache ``cache.rows`` (n_slots,
    N), computing it (and evicting the least recently used row) on a miss.

    ``kern``: the kernel (:class:`KernelSpec`); ``cache``: a
    :class:`KernelCache`, whose ``slot_of`` (N,) maps a row to its slot or
    -1, ``owner`` (n_slots,) the reverse, ``stamp`` (n_slots,) holds the
    last-use times and ``state`` = [clock, hits, misses] (int64). Sec.
    5.1.3: a least-recently-used cache shared by all labels.

    A missing row is computed whole (:func:`kernel_row`, ``offset``
    included) when every example is active (n = N), else at the active
    examples ``act[:n]`` only (:func:`kernel_row_at`, the shrunk SMO, as
    LIBSVM's ``get_Q(i, active_size)``) and flagged partial in ``part``
    (n_slots,). A partial row serves every later, smaller active set; when
    the active set grows back to all examples (unshrinking) the driver
    evicts the partial rows (LIBSVM extends them instead).
    """
    X, kind, gamma, coef0, degree, offset = (kern.X, kern.kind, kern.gamma, kern.coef0,
                                             kern.degree, kern.offset)
    rows, part = cache.rows, cache.part
    v, missed = _claim_slot(p, cache.slot_of, cache.owner, cache.stamp, cache.state)
    if missed:
        if n == X.shape[0]:
            kernel_row(X, p, kind, gamma, coef0, degree, offset, rows[v])
            part[v] = False
        else:
            kernel_row_at(X, p, kind, gamma, coef0, degree, offset, act, n, rows[v])
            part[v] = True
    return v


@numba.njit(cache=True, nogil=True, inline="always")
def _claim_slot(p, slot_of, owner, stamp, state):
    """(slot of row ``p``, whether it must be computed) in the LRU cache of
    :func:`cache_get`: a hit refreshes the slot's stamp; a miss takes the next
    empty slot, else evicts the least recently used row (integer bookkeeping
    only; slots fill in order, so the empty one is the LRU scan's pick)."""
    state[0] += 1
    v = slot_of[p]
    if v >= 0:
        stamp[v] = state[0]
        state[1] += 1
        return v, False
    n_slots = stamp.shape[0]
    if state[2] < n_slots:
        v = state[2]                 # the cache is not full: the next empty slot
    else:
        v = 0
        oldest = stamp[0]
        for j in range(1, n_slots):
            if stamp[j] < oldest:
                oldest = stamp[j]
                v = j
    if owner[v] >= 0:
        slot_of[owner[v]] = -1
    owner[v] = p
    slot_of[p] = v
    stamp[v] = state[0]
    state[2] += 1
    return v, True


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
def _q2(Q11, Q12, Q22, g1, g2, x1, x2):
    return -0.5 * (Q11 * x1 * x1 + 2.0 * Q12 * x1 * x2 + Q22 * x2 * x2) + g1 * x1 + g2 * x2


@numba.njit(cache=True, nogil=True)
def solve_2d(Q11, Q12, Q22, g1, g2, m1, M1, m2, M2):
    """Solve2DQP (Appendix A, Alg. 2): argmax -1/2 x'Qx + g'x over the box
    m <= x <= M for a positive-definite 2x2 Q.

    The unconstrained maximiser Q^{-1} g is returned if it is feasible;
    otherwise the maximiser lies on the boundary, and every edge (one
    coordinate clamped to a bound, the other solved by :func:`solve_1d`)
    is evaluated and the best one returned (Alg. 2 evaluates a subset of
    these edges; evaluating all four is exact for every case).
    """
    det = Q11 * Q22 - Q12 * Q12
    x1 = (Q22 * g1 - Q12 * g2) / det
    x2 = (Q11 * g2 - Q12 * g1) / det
    if m1 <= x1 <= M1 and m2 <= x2 <= M2:
        return x1, x2
    best = -np.inf
    b1 = 0.0
    b2 = 0.0
    for e in range(4):
        if e < 2:
            y1 = m1 if e == 0 else M1
            y2 = solve_1d(Q22, g2 - Q12 * y1, m2, M2)
        else:
            y2 = m2 if e == 2 else M2
            y1 = solve_1d(Q11, g1 - Q12 * y2, m1, M1)
        v = _q2(Q11, Q12, Q22, g1, g2, y1, y2)
        if v > best:
            best = v
            b1 = y1
            b2 = y2
    return b1, b2


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


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def smo_pass(kern, arr, cache, tau, n_steps):
    """Kernelised M3L SMO (Alg. 1) for at least ``n_steps`` variable-pair
    updates or until every projected gradient is below ``tau``, over the
    active examples ``act[:n_act[0]]`` (all N unless the driver shrank the
    problem, LIBSVM's ``active_size``).

    ``kern``: the kernel (:class:`KernelSpec`); ``arr``: the problem and the
    iterate (:class:`SmoArrays`: Kdiag, Yt, R, Cv, At, Gt, u, act, n_act);
    ``cache``: the kernel rows (:class:`KernelCache`).

    One round: pick the label l holding the largest projected gradient
    (Alg. 1 line 7); do up to L updates along l (lines 8-27), each choosing
    p = argmax_i |pg_il| (Eq. 32) and q maximising the second-order gain
    h^max (Eq. 30 / Eq. 56) among the j with K_pj^2 < K_pp K_jj and a
    non-zero projected gradient, then solving the 2-variable QP (Eq. 26-28,
    Alg. 2) or, if there is no such q, the 1-variable QP; the gradients of
    label l are updated at once and the change is accumulated in ``u``
    (Eq. 36); at the end of the round the other labels' gradients receive
    the delayed update Gt[k, :] -= 4 R_kl Yt[k, :] u (Eq. 35, lines 28-32).

    The labels, dual variables and gradients are stored label-major,
    ``Yt``, ``At``, ``Gt`` of shape (L, N), so that the scans along one
    label are contiguous; each scan is a branch-free pass that vectorises
    (:func:`_gains`, :func:`_update2`) followed by :func:`_first_max`.
    The largest projected gradient of every label is kept exact (from the
    pass that updates the label's gradients, and for the labels R couples
    to it from the delayed update), so choosing a round's label costs O(L)
    instead of a scan of all N L gradients; labels R couples to no other
    (all of them when R is diagonal) accumulate no ``u``. The choices
    (labels, p, q) are those of the plain scans.

    Shrunk (n_act[0] < N): the scans, the gradient updates and the kernel
    rows (:func:`cache_get`; ``cache.part`` flags the rows computed at
    the active examples only) cover the active examples only, through the
    gathered passes :func:`_gains_at` and :func:`_update2_at`; the
    gradients of the other examples go stale until the driver rebuilds
    them (LIBSVM's ``reconstruct_gradient``).

    Returns
    -------
    steps : int
        Number of variable updates (pairs or singles) done.
    max_pg : float
        The largest projected gradient magnitude over the active examples
        after the last round (all their gradients current).
    rounds : int
        Number of rounds (label switches with a delayed update).
    gain : float
        The increase of D2 (Eq. 25) by these steps, exact up to rounding:
        g'd - d'Qd/2 of every step (D2 is quadratic).
    """
    Kdiag, Yt, R, Cv, At, Gt, u = arr.Kdiag, arr.Yt, arr.R, arr.Cv, arr.At, arr.Gt, arr.u
    act = arr.act
    rows = cache.rows
    L, N = Gt.shape
    n = arr.n_act[0]
    full = n == N
    steps = 0
    rounds = 0
    gain = 0.0
    # largest |projected gradient| of every label, kept exact below: the
    # label choice of a round is argmax lab_max (the first of ties, as a
    # scan over all N L gradients would choose) without that scan
    lab_max = np.zeros(L)
    work = np.empty(N)
    for k in range(L):
        lab_max[k] = _label_max_at(Gt[k], At[k], Cv, act, n)
    # labels coupled to another one through R (need the delayed update)
    coupled = np.zeros(L, dtype=np.bool_)
    for k in range(L):
        for m in range(L):
            if m != k and R[k, m] != 0.0:
                coupled[k] = True
    while True:
        l = np.int64(0)
        max_pg = lab_max[0]
        for k in range(1, L):
            if lab_max[k] > max_pg:
                max_pg = lab_max[k]
                l = k
        if max_pg < tau or steps >= n_steps:
            return steps, max_pg, rounds, gain
        rounds += 1
        keep_u = coupled[l]
        if keep_u:
            for t in range(n):
                u[act[t]] = 0.0
        Rll = R[l, l]
        c4 = 4.0 * Rll
        G = Gt[l]
        A = At[l]
        Yl = Yt[l]
        lab = LabelRows(G, A, Yl, Cv)
        # first variable: largest projected gradient along label l (Eq. 32);
        # after each step it is found while the gradients are updated
        best, p = _pg_scan(G, A, Cv, act, n, work)
        for _ in range(L):
            if p < 0 or best < tau:
                break
            rp = rows[cache_get(p, kern, cache, act, n)]
            # second variable: maximal unconstrained gain (Eq. 30 / 56) among
            # the j != p with a non-zero projected gradient giving a
            # positive-definite 2x2 block (Alg. 1 line 10); branch-free
            # tests (the loop vectorises), the same choice as testing first
            if full:
                _gains(lab, rp, Kdiag, Kdiag[p], G[p], Yl[p], Rll, p, work)
                hbest, q = _first_max(work)
            else:
                hbest, q = _gains_at(lab, rp, Kdiag, Kdiag[p], G[p], Yl[p], Rll, p, act, n,
                                     work)
            pair = hbest > -1.0
            rq = rp
            if pair:
                rq = rows[cache_get(q, kern, cache, act, n)]
            cp, cq, gn = _pair_step(A, Yl, G, Cv, p, q, pair, Kdiag[p], Kdiag[q], rp[q], Rll)
            gain += gn
            if full:
                _update2(lab, rp, rq, cp, cq, c4, u, keep_u, work)
                best, p = _first_max(work)
            else:
                best, p = _update2_at(lab, rp, rq, cp, cq, c4, u, keep_u, act, n, work)
            if best <= 0.0:
                p = -1
            steps += 1
        lab_max[l] = best
        if keep_u:
            _delayed_update(Gt, At, Yt, Cv, R, u, l, act, n, lab_max)


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _pair_step(A, Yl, G, Cv, p, q, pair, Kpp, Kqq, Kpq, Rll):
    """The exact step on (alpha_p, alpha_q) of one label (Solve2DQP, Alg. 2,
    over the box; Eq. 26-28), or on alpha_p alone unless ``pair`` (SolveOneDQP,
    Eq. 58), landing exactly on the bounds (the projected gradient tests
    them): ``A`` updated; returns (y_p delta_p, y_q delta_q, the increase
    of D2, g'd - d'Qd/2 with Q = 4 R_ll [y_p y_q K_pq] the 2x2 block)."""
    yp = Yl[p]
    gp = G[p]
    Q11 = 4.0 * Kpp * Rll
    if not pair:
        dp = solve_1d(Q11, gp, -A[p], Cv[p] - A[p])
        ap = _snap(A[p] + dp, Cv[p])
        dp = ap - A[p]
        A[p] = ap
        return yp * dp, 0.0, gp * dp - 0.5 * Q11 * dp * dp
    yq = Yl[q]
    gq = G[q]
    Q22 = 4.0 * Kqq * Rll
    Q12 = 4.0 * Kpq * Rll * yp * yq
    Cp = Cv[p]
    Cq = Cv[q]
    dp, dq = solve_2d(Q11, Q12, Q22, gp, gq, -A[p], Cp - A[p], -A[q], Cq - A[q])
    ap = _snap(A[p] + dp, Cp)
    aq = _snap(A[q] + dq, Cq)
    dp = ap - A[p]
    dq = aq - A[q]
    A[p] = ap
    A[q] = aq
    quad = Q11 * dp * dp + 2.0 * Q12 * dp * dq + Q22 * dq * dq
    return yp * dp, yq * dq, gp * dp + gq * dq - 0.5 * quad


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _delayed_update(Gt, At, Yt, Cv, R, u, l, act, n, lab_max):
    """The delayed gradient update of the labels R couples to label l
    (Eq. 34-36, Alg. 1 lines 28-32) at the active examples ``act[:n]``:
    Gt[k, i] -= 4 R_kl Yt[k, i] u[i], which also gives their new largest
    projected gradients (``lab_max[k]``)."""
    L, N = Gt.shape
    for k in range(L):
        if k == l:
            continue
        Rkl = R[k, l]
        if Rkl == 0.0:
            continue
        Gk = Gt[k]
        Ak = At[k]
        Yk = Yt[k]
        c = 4.0 * Rkl
        mk = 0.0
        if n == N:
            for i in range(N):
                Gk[i] -= c * Yk[i] * u[i]
                pg = _abs_projected(Gk[i], Ak[i], Cv[i])
                if pg > mk:
                    mk = pg
        else:
            for t in range(n):
                i = act[t]
                Gk[i] -= c * Yk[i] * u[i]
                pg = _abs_projected(Gk[i], Ak[i], Cv[i])
                if pg > mk:
                    mk = pg
        lab_max[k] = mk


@numba.njit(cache=True, nogil=True)
def _pg_scan(G, A, Cv, act, n, work):
    """(largest |projected gradient| along one label over the active
    examples ``act[:n]``, its first example or -1 if it is 0): the first
    variable of an SMO step (Eq. 32); ``work`` is scratch."""
    if n == G.shape[0]:
        for i in range(n):
            work[i] = _abs_projected(G[i], A[i], Cv[i])
        best, p = _first_max(work)
    else:
        for t in range(n):
            i = act[t]
            work[t] = _abs_projected(G[i], A[i], Cv[i])
        best, t = _first_max(work[:n])
        p = act[t]
    if best <= 0.0:
        p = -1
    return best, p


@numba.njit(cache=True, nogil=True, fastmath=_FAST, error_model="numpy")
def _gains_at(lab, rp, Kdiag, Kpp, gp, yp, Rll, p, act, n, out):
    """:func:`_gains` at the active examples ``act[:n]`` (out[t] for
    example act[t]); returns (the largest gain, its example)."""
    G, A, Yl, Cv = lab.G, lab.A, lab.Yl, lab.Cv
    gp2 = gp * gp
    gpy2 = 2.0 * gp * yp
    c8 = 8.0 * Rll
    for t in range(n):
        j = act[t]
        gj = G[j]
        aj = A[j]
        Kpj = rp[j]
        Kjj = Kdiag[j]
        det = Kpp * Kjj - Kpj * Kpj
        free = ((gj > 0.0) & (aj < Cv[j])) | ((gj < 0.0) & (aj > 0.0))
        ok = free & (det > 1e-12 * Kpp * Kjj) & (det > 0.0) & (j != p)
        h = (gp2 * Kjj + gj * gj * Kpp - gpy2 * gj * Yl[j] * Kpj) / (c8 * det)
        out[t] = h if ok else -1.0
    best, t = _first_max(out[:n])
    return best, act[t]


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _update2_at(lab, rp, rq, cp, cq, c4, u, keep_u, act, n, out):
    """:func:`_update2` at the active examples ``act[:n]`` (out[t] for
    example act[t]); returns (the largest |projected gradient|, its
    example)."""
    G, A, Yl, Cv = lab.G, lab.A, lab.Yl, lab.Cv
    for t in range(n):
        i = act[t]
        w = rp[i] * cp + rq[i] * cq
        g = G[i] - c4 * Yl[i] * w
        G[i] = g
        if keep_u:
            u[i] += w
        out[t] = _abs_projected(g, A[i], Cv[i])
    best, t = _first_max(out[:n])
    return best, act[t]


@numba.njit(cache=True, nogil=True, fastmath=_FAST, error_model="numpy")
def _gains(lab, rp, Kdiag, Kpp, gp, yp, Rll, p, out):
    """out[j] = the second-order gain h (Eq. 30 / Eq. 56) of the pair (p, j)
    along one label (``lab``, :class:`LabelRows`), or -1 where j = p, the
    projected gradient of j is 0 or the 2x2 block is not positive definite
    (K_pj^2 >= K_pp K_jj (1 - 1e-12)). One branch-free pass (it
    vectorises)."""
    G, A, Yl, Cv = lab.G, lab.A, lab.Yl, lab.Cv
    gp2 = gp * gp
    gpy2 = 2.0 * gp * yp
    c8 = 8.0 * Rll
    for j in range(G.shape[0]):
        gj = G[j]
        aj = A[j]
        Kpj = rp[j]
        Kjj = Kdiag[j]
        det = Kpp * Kjj - Kpj * Kpj
        free = ((gj > 0.0) & (aj < Cv[j])) | ((gj < 0.0) & (aj > 0.0))
        ok = free & (det > 1e-12 * Kpp * Kjj) & (det > 0.0) & (j != p)
        h = (gp2 * Kjj + gj * gj * Kpp - gpy2 * gj * Yl[j] * Kpj) / (c8 * det)
        out[j] = h if ok else -1.0


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _update2(lab, rp, rq, cp, cq, c4, u, keep_u, out):
    """One label's gradients after a step on (p, q) (Eq. 29), ``lab`` a
    :class:`LabelRows`: G -= c4 Yl (K_p cp + K_q cq); u += K_p cp + K_q cq
    if ``keep_u`` (the delayed update, Eq. 36); out = |projected G| (Eq.
    31). Branch-free."""
    G, A, Yl, Cv = lab.G, lab.A, lab.Yl, lab.Cv
    if keep_u:
        for i in range(G.shape[0]):
            w = rp[i] * cp + rq[i] * cq
            g = G[i] - c4 * Yl[i] * w
            G[i] = g
            u[i] += w
            out[i] = _abs_projected(g, A[i], Cv[i])
    else:
        for i in range(G.shape[0]):
            g = G[i] - c4 * Yl[i] * (rp[i] * cp + rq[i] * cq)
            G[i] = g
            out[i] = _abs_projected(g, A[i], Cv[i])


#: the flags under which a max reduction vectorises (its input is finite)
_FAST_MAX = {"reassoc", "contract", "nsz", "arcp", "nnan", "ninf"}


@numba.njit(cache=True, nogil=True, fastmath=_FAST_MAX)
def _vmax(x):
    """max of a finite 1-d array (a vectorised reduction)."""
    n = x.shape[0]
    acc = np.full(8, x[0])
    n8 = n - n % 8
    for i in range(0, n8, 8):
        for t in range(8):
            v = x[i + t]
            acc[t] = v if v > acc[t] else acc[t]
    m = acc[0]
    for t in range(1, 8):
        m = acc[t] if acc[t] > m else m
    for i in range(n8, n):
        m = x[i] if x[i] > m else m
    return m


@numba.njit(cache=True, nogil=True)
def _first_max(x):
    """(max x, the first index attaining it) of a finite 1-d array, as the
    scan ``if x[i] > best`` would give: a vectorised max, then a search."""
    m = _vmax(x)
    for i in range(x.shape[0]):
        if x[i] == m:
            return m, i
    return m, 0


@numba.njit(cache=True, nogil=True, inline="always")
def _abs_projected(g, a, C):
    """|projected gradient| (Eq. 31) without branches: 0 at a bound the
    gradient points out of (and for g = 0), |g| otherwise."""
    free = ((g > 0.0) & (a < C)) | ((g < 0.0) & (a > 0.0))
    return abs(g) if free else 0.0


@numba.njit(cache=True, nogil=True)
def _label_max(G, A, Cv):
    """max_i |projected G_i| along one label (rows of Gt, At)."""
    best = 0.0
    for i in range(G.shape[0]):
        pg = _abs_projected(G[i], A[i], Cv[i])
        if pg > best:
            best = pg
    return best



@numba.njit(cache=True, nogil=True)
def _label_max_at(G, A, Cv, act, n):
    """:func:`_label_max` over the active examples ``act[:n]`` (all N rows
    when n = N)."""
    if n == G.shape[0]:
        return _label_max(G, A, Cv)
    best = 0.0
    for t in range(n):
        i = act[t]
        pg = _abs_projected(G[i], A[i], Cv[i])
        if pg > best:
            best = pg
    return best

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
def _flush(Zt, R, nzk, n_nz, l, v):
    """The delayed update z_k += 2 R_kl v of a label-wise batch along l
    (Eq. 42), k != l."""
    for j in range(n_nz[l]):
        k = nzk[l, j]
        if k != l:
            _daxpy(Zt, k, 2.0 * R[k, l], v, np.int64(0))


@numba.njit(cache=True, nogil=True, fastmath=_FAST, inline="always")
def _dca_epoch_order(N, group, st, w, labelwise):
    """Start an epoch of :func:`dca_run` (``st`` a :class:`DcaState`, ``w``
    its :class:`DcaWork`): reset the per-label extremes and positions, mark
    in ``full`` the groups whose active sets hold all variables, shuffle
    every unfinished label's active set (n_vis[l] variables; 0 for a
    finished group) and, for uniform epochs, draw a uniformly random
    interleaving of the labels into ``seq``.  Returns the number of visits
    of the epoch."""
    active, n_active, finished = st.active, st.n_active, st.finished
    full, pg_ext, pos, n_vis, keep, seq = w.full, w.pg_ext, w.pos, w.n_vis, w.keep, w.seq
    L = n_vis.shape[0]
    n_groups = full.shape[0]
    for gi in range(n_groups):
        full[gi] = True
    total = 0
    for l in range(L):
        pg_ext[l, 0] = 0.0
        pg_ext[l, 1] = 0.0
        pos[l] = 0
        n = n_active[l]
        if n < N:
            full[group[l]] = False
        n_vis[l] = 0 if finished[group[l]] else n
        n = n_vis[l]
        total += n
        for t in range(n):
            keep[l, t] = True
        for t in range(n - 1, 0, -1):
            s = np.random.randint(0, t + 1)
            tmp = active[l, t]
            active[l, t] = active[l, s]
            active[l, s] = tmp
    if not labelwise:
        # a uniformly random interleaving of the labels' shuffled sets
        m = 0
        for l in range(L):
            for _ in range(n_vis[l]):
                seq[m] = l
                m += 1
        for t in range(total - 1, 0, -1):
            s = np.random.randint(0, t + 1)
            tmp = seq[t]
            seq[t] = seq[s]
            seq[s] = tmp
    return total


@numba.njit(cache=True, nogil=True, fastmath=_FAST, inline="always")
def _dca_between_epochs(N, R, group, st, switch_tol, tau, w):
    """The bookkeeping of :func:`dca_run` after an epoch (Sec. 6, Eq.
    44-45; ``st`` a :class:`DcaState`, ``w`` its :class:`DcaWork`): compact
    the active sets to the kept variables, couple the labels' extreme
    projected gradients through |R| into the shrinking thresholds lb, ub,
    switch to label-wise batches below ``switch_tol``, and finish (or reset
    to all variables) the groups whose projected gradients are all below
    ``tau``.  Returns True when every group is finished."""
    active, n_active, lb, ub = st.active, st.n_active, st.lb, st.ub
    finished, flags = st.finished, st.flags
    keep, pg_ext, n_vis, label_pg = w.keep, w.pg_ext, w.n_vis, w.label_pg
    full, gdone, nzk, n_nz = w.full, w.gdone, w.nzk, w.n_nz
    L = n_vis.shape[0]
    n_groups = full.shape[0]
    # compact the active sets (the kept variables, in their visiting order)
    for l in range(L):
        if n_vis[l] == 0:
            continue
        m = 0
        for t in range(n_vis[l]):
            if keep[l, t]:
                active[l, m] = active[l, t]
                m += 1
        n_active[l] = m
    # ---- the paper's bookkeeping between epochs (Eq. 44-45) ----
    active_pg = 0.0
    for l in range(L):
        label_pg[l] = max(pg_ext[l, 1], -pg_ext[l, 0])
        if n_vis[l] > 0 and label_pg[l] > active_pg:
            active_pg = label_pg[l]
    for l in range(L):
        if finished[group[l]]:
            continue
        lo = 0.0
        hi = 0.0
        for j in range(n_nz[l]):
            k = nzk[l, j]
            a = abs(R[k, l])
            if a * pg_ext[k, 0] < lo:
                lo = a * pg_ext[k, 0]
            if a * pg_ext[k, 1] > hi:
                hi = a * pg_ext[k, 1]
        lb[l] = lo if lo < 0.0 else -np.inf
        ub[l] = hi if hi > 0.0 else np.inf
    if switch_tol > 0.0 and active_pg < switch_tol:
        flags[0] = 1
    for gi in range(n_groups):
        gdone[gi] = True
    for l in range(L):
        if label_pg[l] >= tau:
            gdone[group[l]] = False
    all_finished = True
    for gi in range(n_groups):
        if finished[gi]:
            continue
        if gdone[gi]:
            if full[gi]:
                finished[gi] = True
                continue
            # the shrunk problem of the group is solved: back to all variables
            for l in range(L):
                if group[l] == gi:
                    for t in range(N):
                        active[l, t] = t
                    n_active[l] = N
                    lb[l] = -np.inf
                    ub[l] = np.inf
        all_finished = False
    return all_finished


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def dca_run(xr, Y, R, Cv, group, st, seed, shrink, switch_tol, tau, max_visits):
    """Epochs of linear M3L dual coordinate ascent with shrinkage (Sec. 6),
    without returning to Python, until the problem looks solved or
    ``max_visits`` variables were visited.

    Each visited variable alpha_pl gets the exact coordinate maximiser
    (Eq. 37-39): alpha <- clip(alpha + G_pl / (4 R_ll x_p'x_p), 0, C) with
    G_pl = 2 - 2 y_pl z_l'x_p, and ``Zt`` = Z' (L, D, rows z_l contiguous)
    is kept equal to (2 X'(Y alpha) R)' (Eq. 23, 40).

    * ``flags[0] == 0`` (uniform): every active variable of every label
      once per epoch, in a uniformly random order, each update applied to
      every column of Z at once (Eq. 40).
    * ``flags[0] == 1`` (label-wise): batches of L updates along one label
      chosen uniformly at random; z_l is updated at once, the other columns
      get the delayed update z_k += 2 R_kl v at the end of the batch
      (Eq. 41-43). The switch happens (and is kept) once every active
      projected gradient of the unfinished labels is below ``switch_tol``
      (> 0).

    Shrinkage (Sec. 6, after Hsieh et al. 2008): per-label active sets
    ``active[l, :n_active[l]]``; a variable at 0 with G < lb[l] or at C
    with G > ub[l] leaves its label's active set. After each epoch the
    extremal projected gradients of each label are coupled through |R|
    (Eq. 44-45): lb_l = min_k |R_kl| min PG_k, ub_l = max_k |R_kl| max PG_k,
    with no shrinking on a side whose extreme has the wrong sign (-inf /
    +inf, as Hsieh et al.).

    Groups of labels coupled through R (``group``, the connected components
    of R != 0; each label alone for R = I) are independent sub-problems.
    When every active projected gradient of a group is below ``tau``, its
    active sets are reset to all variables (lb, ub to -inf, +inf); if they
    already held all variables at the start of the epoch, the group is
    ``finished`` and no longer visited (our addition, as 1-vs-All LIBLINEAR
    stops each label on its own). Without shrinking every epoch is over all
    variables.

    Parameters
    ----------
    xr : LinearRows
        X, Xdata, Xind, Xptr: a dense X (N, D), or an empty X and CSR
        arrays; sqnorm (N,): x_p'x_p.
    Y : ndarray, shape (N, L)
    R : ndarray, shape (L, L)
    Cv : ndarray, shape (N,)
    group : ndarray of int64, shape (L,)
        Group (component of R != 0) of each label, 0 .. n_groups - 1.
    st : DcaState
        Updated in place: alpha (N, L); Zt (L, D), equal to
        (2 X'(Y alpha) R)' on entry; the active sets active, n_active
        (int64, (L, N), (L,)) and the shrinking thresholds lb, ub (L,)
        (state between calls); finished (bool, (n_groups,)), the groups
        solved and confirmed; flags (int64, (1,)), ``flags[0]`` = 1 once
        batches are label-wise (state between calls).
    seed : int
        Seed of the visiting order.
    shrink : bool
    switch_tol, tau : float
    max_visits : int
        Visit budget; checked at the end of each epoch.

    Returns
    -------
    code : int
        :data:`DCA_SOLVED` (every group finished: the caller must confirm on
        the exact gradient) or :data:`DCA_BUDGET`.
    visits : int
        Variables visited.
    epochs : int
        Epochs run.
    """
    X, Xdata, Xind, Xptr, sqnorm = xr.X, xr.Xdata, xr.Xind, xr.Xptr, xr.sqnorm
    alpha, Zt, active, lb, ub, flags = st.alpha, st.Zt, st.active, st.lb, st.ub, st.flags
    np.random.seed(seed)
    N, L = Y.shape
    D = Zt.shape[1]
    dense = X.shape[0] > 0
    n_groups = st.finished.shape[0]
    keep = np.ones((L, N), dtype=np.bool_)
    seq = np.empty(N * L, dtype=np.int64)
    pg_ext = np.zeros((L, 2))
    n_vis = np.zeros(L, dtype=np.int64)
    pos = np.zeros(L, dtype=np.int64)
    v = np.zeros((1, D))
    label_pg = np.zeros(L)
    full = np.zeros(n_groups, dtype=np.bool_)
    gdone = np.zeros(n_groups, dtype=np.bool_)
    # labels k with R_kl != 0, per label l
    nzk = np.zeros((L, L), dtype=np.int64)
    n_nz = np.zeros(L, dtype=np.int64)
    for l in range(L):
        for k in range(L):
            if R[k, l] != 0.0:
                nzk[l, n_nz[l]] = k
                n_nz[l] += 1
    w = DcaWork(keep, seq, pg_ext, n_vis, pos, label_pg, full, gdone, nzk, n_nz)
    visits = 0
    epochs = 0
    while True:
        # ---- one epoch over the active sets of the unfinished groups ----
        labelwise = flags[0] == 1
        total = _dca_epoch_order(N, group, st, w, labelwise)
        l = np.int64(0)            # not a literal: one specialisation of _flush
        b = L
        for m in range(total):
            if labelwise:
                if b == L or pos[l] >= n_vis[l]:
                    if m > 0:
                        _flush(Zt, R, nzk, n_nz, l, v)
                    # a new batch along a label chosen uniformly among those left
                    cnt = 0
                    for k in range(L):
                        if pos[k] < n_vis[k]:
                            cnt += 1
                    r = np.random.randint(0, cnt)
                    for k in range(L):
                        if pos[k] < n_vis[k]:
                            if r == 0:
                                l = k
                                break
                            r -= 1
                    for d in range(D):
                        v[0, d] = 0.0
                    b = 0
                b += 1
            else:
                l = seq[m]
            t = pos[l]
            pos[l] = t + 1
            # ---- visit alpha_pl (Eq. 37-40) ----
            p = active[l, t]
            zx = _ddot(Zt, l, X, p) if dense else _sdot(Zt, l, Xdata, Xind, Xptr, p)
            g = 2.0 - 2.0 * Y[p, l] * zx
            a = alpha[p, l]
            C = Cv[p]
            if shrink:
                if (a <= 0.0 and g < lb[l]) or (a >= C and g > ub[l]):
                    keep[l, t] = False
                    continue
            pg = projected(g, a, C)
            if pg < pg_ext[l, 0]:
                pg_ext[l, 0] = pg
            if pg > pg_ext[l, 1]:
                pg_ext[l, 1] = pg
            if pg == 0.0:
                continue
            a_new = solve_1d(4.0 * R[l, l] * sqnorm[p], g, -a, C - a) + a
            a_new = min(C, max(0.0, a_new))
            delta = a_new - a
            if delta == 0.0:
                continue
            alpha[p, l] = a_new
            c = Y[p, l] * delta
            if labelwise:
                # z_l now, the other columns at the end of the batch (Eq. 41-43)
                if dense:
                    _daxpy(Zt, l, 2.0 * R[l, l] * c, X, p)
                    _daxpy(v, np.int64(0), c, X, p)
                else:
                    _saxpy(Zt, l, 2.0 * R[l, l] * c, Xdata, Xind, Xptr, p)
                    _saxpy(v, np.int64(0), c, Xdata, Xind, Xptr, p)
            else:
                for j in range(n_nz[l]):
                    k = nzk[l, j]
                    if dense:
                        _daxpy(Zt, k, 2.0 * R[k, l] * c, X, p)
                    else:
                        _saxpy(Zt, k, 2.0 * R[k, l] * c, Xdata, Xind, Xptr, p)
        if labelwise and total > 0:
            _flush(Zt, R, nzk, n_nz, l, v)
        epochs += 1
        visits += total
        all_finished = _dca_between_epochs(N, R, group, st, switch_tol, tau, w)
        if all_finished:
            return DCA_SOLVED, visits, epochs
        if visits >= max_visits:
            return DCA_BUDGET, visits, epochs


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


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def ovr_run(xr, Y, Rdiag, Cv, st, seed, shrink, tau, max_visits):
    """Epochs of linear M3L with a diagonal R as L independent SVMs solved
    together by LIBLINEAR's dual coordinate descent with shrinking (Hsieh
    et al. 2008, Alg. 3; ``solve_l2r_l1l2_svc`` of LIBLINEAR's
    ``linear.cpp``), one shared pass over the examples per epoch, until
    every label is solved or ``max_visits`` variables were visited.

    With R diagonal, D2 (Eq. 25) splits into one box-constrained QP per
    label (Sec. 3.1): label l is an L1-loss SVM without bias on
    sqrt(R_ll) X with penalty 2C (its LIBLINEAR variables are
    2 alpha_il, its gradient y z_l'x - 1 = -G_il / 2).  An epoch visits
    the active examples in a uniformly random order and, at each, every
    label whose variable alpha_il is active: the exact coordinate step
    alpha <- clip(alpha + G / (4 R_ll x'x), 0, C_i) with
    G = 2 - 2 y z_l'x_i (Eq. 37-39) and z_l += 2 R_ll y (delta) x_i
    (Eq. 40); x_i is read once for all its labels (the shared data pass).

    Shrinking per label, as LIBLINEAR: a variable at 0 with G < lb[l] or at
    C_i with G > ub[l] leaves label l's active set (``on[i, l]``), lb and
    ub being the extreme projected gradients of the label's previous epoch
    (-inf / +inf when of the wrong sign).  An example without active
    labels leaves the pass.  When every projected gradient label l met in
    an epoch is below ``tau`` in absolute value (M3L's stopping rule,
    Appendix B), the label is ``done`` if its active set held all N
    variables at the start of that epoch, and otherwise starts again from
    all of them (LIBLINEAR's unshrinking).  A done label is not visited.

    Parameters
    ----------
    xr : LinearRows
        X, Xdata, Xind, Xptr: a dense X (N, D), or an empty X and CSR
        arrays (:mod:`polyrank._csr`); sqnorm (N,): x_i'x_i.
    Y : ndarray, shape (N, L)
        Labels in {-1, +1}.
    Rdiag : ndarray, shape (L,)
        The diagonal of R (> 0).
    Cv : ndarray, shape (N,)
        Per-example bounds C_i >= 0.
    st : OvrState
        Updated in place: alpha (N, L); Zt (L, D), equal to
        (2 X'(Y alpha) R)' on entry; on (bool, (N, L)), the active
        variables (state between calls), and n_on (int64, (L,)) their
        number per label; the shrinking thresholds lb, ub (L,); done (bool,
        (L,)), the solved labels.
    seed : int
        Seed of the visiting order.
    shrink : bool
        Shrink (False: every epoch visits all variables of the unfinished
        labels).
    tau : float
        Tolerance on |projected gradient| (> 0).
    max_visits : int
        Visit budget, checked at the end of each epoch.

    Returns
    -------
    code : int
        :data:`DCA_SOLVED` (every label done: the caller must confirm on the
        exact gradient) or :data:`DCA_BUDGET`.
    visits : int
        Variables visited.
    epochs : int
        Epochs run.
    """
    X, Xdata, Xind, Xptr, sqnorm = xr.X, xr.Xdata, xr.Xind, xr.Xptr, xr.sqnorm
    alpha, Zt, on, n_on, lb, ub, done = st.alpha, st.Zt, st.on, st.n_on, st.lb, st.ub, st.done
    np.random.seed(seed)
    N, L = Y.shape
    dense = X.shape[0] > 0
    act = np.empty(N, dtype=np.int64)
    # the active labels of each example (compact lists: the pass reads no flags)
    lab = np.empty((N, L), dtype=np.int64)
    n_lab = np.zeros(N, dtype=np.int64)
    full = np.empty(L, dtype=np.bool_)
    pg_lo = np.empty(L)
    pg_hi = np.empty(L)
    rebuild = True
    n_act = 0
    visits = 0
    epochs = 0
    while True:
        if rebuild:
            # the examples with an active variable of an unfinished label
            n_act = 0
            for i in range(N):
                k = 0
                for l in range(L):
                    if on[i, l] and not done[l]:
                        lab[i, k] = l
                        k += 1
                n_lab[i] = k
                if k > 0:
                    act[n_act] = i
                    n_act += 1
            rebuild = False
        for l in range(L):
            pg_lo[l] = 0.0
            pg_hi[l] = 0.0
            full[l] = n_on[l] == N
        for t in range(n_act - 1, 0, -1):
            s = np.random.randint(0, t + 1)
            tmp = act[t]
            act[t] = act[s]
            act[s] = tmp
        # ---- one epoch: every active example once, all its active labels ----
        m = 0
        for t in range(n_act):
            p = act[t]
            C = Cv[p]
            q = sqnorm[p]
            k = 0
            for j in range(n_lab[p]):
                l = lab[p, j]
                if done[l]:
                    continue
                visits += 1
                zx = _ddot(Zt, l, X, p) if dense else _sdot(Zt, l, Xdata, Xind, Xptr, p)
                g = 2.0 - 2.0 * Y[p, l] * zx
                a = alpha[p, l]
                if shrink and ((a <= 0.0 and g < lb[l]) or (a >= C and g > ub[l])):
                    on[p, l] = False
                    n_on[l] -= 1
                    continue
                lab[p, k] = l
                k += 1
                pg = projected(g, a, C)
                if pg < pg_lo[l]:
                    pg_lo[l] = pg
                elif pg > pg_hi[l]:
                    pg_hi[l] = pg
                if pg == 0.0:
                    continue
                r = Rdiag[l]
                a_new = min(C, max(0.0, solve_1d(4.0 * r * q, g, -a, C - a) + a))
                if a_new != a:
                    alpha[p, l] = a_new
                    c = 2.0 * r * Y[p, l] * (a_new - a)
                    if dense:
                        _daxpy(Zt, l, c, X, p)
                    else:
                        _saxpy(Zt, l, c, Xdata, Xind, Xptr, p)
            n_lab[p] = k
            if k > 0:
                act[m] = p
                m += 1
        n_act = m
        epochs += 1
        # ---- per label: solved, unshrink, or new shrinking thresholds ----
        all_done = True
        for l in range(L):
            if done[l]:
                continue
            if max(pg_hi[l], -pg_lo[l]) < tau:
                if full[l]:
                    done[l] = True
                    continue
                for i in range(N):
                    on[i, l] = True
                n_on[l] = N
                lb[l] = -np.inf
                ub[l] = np.inf
                rebuild = True
            else:
                lb[l] = pg_lo[l] if pg_lo[l] < 0.0 else -np.inf
                ub[l] = pg_hi[l] if pg_hi[l] > 0.0 else np.inf
            all_done = False
        if all_done:
            return DCA_SOLVED, visits, epochs
        if visits >= max_visits:
            return DCA_BUDGET, visits, epochs




@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _push_row(Ut, K, i, c, moved, n_moved):
    """Ut[l, :] += c[l] K[i, :] for the labels l = moved[:n_moved]: one
    Gram row serves every label that moved (Sec. 5.1.3); labels by pairs,
    so that the row is read n_moved / 2 times."""
    N = Ut.shape[1]
    m = 0
    while m + 1 < n_moved:
        l1 = moved[m]
        l2 = moved[m + 1]
        c1 = c[l1]
        c2 = c[l2]
        for j in range(N):
            k = K[i, j]
            Ut[l1, j] += c1 * k
            Ut[l2, j] += c2 * k
        m += 2
    if m < n_moved:
        l1 = moved[m]
        c1 = c[l1]
        for j in range(N):
            Ut[l1, j] += c1 * K[i, j]


@numba.njit(cache=True, nogil=True, _nrt=False)
def _decisions(Ut, i, R, rdiag, h):
    """h = R u_i, the decisions / 2 of example i from column i of Ut =
    (Y alpha)' K (L, N); O(L) for a diagonal R (``rdiag``), else O(L^2).
    Shared by :func:`cd_epoch` (at a visit) and :func:`cd_state`."""
    L = h.shape[0]
    if rdiag:
        for l in range(L):
            h[l] = R[l, l] * Ut[l, i]
        return
    for l in range(L):
        v = 0.0
        for k in range(L):
            v += R[l, k] * Ut[k, i]
        h[l] = v


@numba.njit(cache=True, nogil=True)
def cd_epoch(prob, it, rdiag, seed, shrink, omega, skip, skip_example):
    """One epoch of example-major dual coordinate ascent on D2 (Eq. 25)
    over a precomputed Gram matrix ``K`` (N, N), the active examples
    ``active[:n_active[0]]`` visited in a uniformly random order.

    ``prob``: the problem (:class:`GramProblem`: K, Kdiag, Y, R, Cv);
    ``it``: the iterate and shrinking state, in place (:class:`CdIterate`:
    A, Ut, active, n_active, lb, ub).

    ``A`` (N, L) is alpha and ``Y`` (N, L) the labels in {-1, +1}, example
    by example (one visit reads one row of each). Keeps ``Ut`` = (Y alpha)'
    K (L, N), in the precision of ``K`` (float64 or float32, as LIBSVM's
    ``Qfloat``): the kernel expansion of every label without R (row i of K
    serves as its column i), so that a step on alpha_il changes one row of
    ``Ut`` whatever R is; the decisions of example i are f_i = 2 R u_i and
    its gradient (Eq. 29) G_il = 2 - 4 y_il (R u_i)_l, formed at the visit
    in O(L^2) (O(L) for a diagonal R, ``rdiag``).

    At example i every label is visited in turn: the coordinate step
    (Eq. 37-39 with the kernel: Q_ll = 4 R_ll K_ii), over-relaxed by
    ``omega`` in (0, 2) (projected SOR; 1 is the exact coordinate
    maximiser), alpha_il <- clip(alpha_il + omega G_il / (4 R_ll K_ii), 0,
    C_i), each step applied at once to the example's own gradient
    (h_i += K_ii R[:, l] c) so that the next label sees it (with a diagonal
    R a step changes only its own label's gradient). The other examples
    get the steps of all labels of i at the end, one Gram row read for
    every label that moved: u_l += (y_il delta_il) K[i, :] (Sec. 5.1.3: one
    kernel row serves every label).

    Shrinking (after Hsieh et al. 2008, as Sec. 6 / :func:`dca_run`): a
    variable at 0 with G < lb[l] or at C_i with G > ub[l] is skipped; an
    example all of whose variables are skipped leaves the active set (its
    gradients stay exact: every step reaches every row of ``Ut``). The
    thresholds of the next epoch are the extremal projected gradients of
    this one (-inf / +inf on a side whose extreme has the wrong sign),
    coupled across labels through |R| (Eq. 44-45).

    Returns
    -------
    max_pg : float
        The largest |projected gradient| met at a visit of this epoch
        (over the active, unskipped variables, before their steps).
    steps : int
        Variable updates (non-zero).
    pushes : int
        Examples whose steps were pushed to the others (Gram rows read).
    """
    K, Kdiag, Y, R, Cv = prob.K, prob.Kdiag, prob.Y, prob.R, prob.Cv
    A, Ut, active, n_active, lb, ub = it.A, it.Ut, it.active, it.n_active, it.lb, it.ub
    np.random.seed(seed)
    N, L = A.shape
    n = n_active[0]
    for t in range(n - 1, 0, -1):
        s = np.random.randint(0, t + 1)
        tmp = active[t]
        active[t] = active[s]
        active[s] = tmp
    pgmin = np.zeros(L)
    pgmax = np.zeros(L)
    h = np.empty(L)
    gv = np.empty(L)
    out = np.zeros(L, dtype=np.bool_)
    c = np.zeros(L, dtype=Ut.dtype)
    moved = np.empty(L, dtype=np.int64)
    keep = np.ones(n, dtype=np.bool_)
    steps = 0
    pushes = 0
    for t in range(n):
        i = active[t]
        Kii = Kdiag[i]
        C = Cv[i]
        # the example's decisions / 2: h = R u_i
        _decisions(Ut, i, R, rdiag, h)
        n_moved = np.int64(0)      # not a literal: one specialisation of _push_row
        skipped = 0
        # the example moves only if one of its variables has a projected
        # gradient above skip_example (then one Gram row serves its labels)
        worst = 0.0
        for l in range(L):
            # without branches (the bounds a variable sits at are data, not a
            # pattern): a shrunk variable counts with projected gradient 0,
            # which moves neither the extremes (they start at 0) nor worst
            g = 2.0 - 4.0 * Y[i, l] * h[l]
            gv[l] = g
            a = A[i, l]
            # (projected() inline: a call here costs 1.4x the visit)
            at0 = a <= 0.0
            atC = a >= C
            o = shrink & ((at0 & (g < lb[l])) | (atC & (g > ub[l])))
            out[l] = o
            skipped += o
            pg = 0.0 if o | (at0 & (g < 0.0)) | (atC & (g > 0.0)) else g
            pgmin[l] = min(pgmin[l], pg)
            pgmax[l] = max(pgmax[l], pg)
            worst = max(worst, abs(pg))
        if skipped == L:
            keep[t] = False
        if worst <= skip_example:
            continue
        for l in range(L):
            y = Y[i, l]
            a = A[i, l]
            if rdiag:
                # the steps of the labels before l left h[l] unchanged
                if out[l]:
                    continue
                g = gv[l]
            else:
                g = 2.0 - 4.0 * y * h[l]
                if shrink and ((a <= 0.0 and g < lb[l]) or (a >= C and g > ub[l])):
                    continue
            pg = projected(g, a, C)
            if abs(pg) <= skip:
                continue
            a_new = _snap(a + omega * solve_1d(4.0 * R[l, l] * Kii, g, -a, C - a), C)
            d = a_new - a
            if d == 0.0:
                continue
            A[i, l] = a_new
            cl = y * d
            c[l] = cl
            moved[n_moved] = l
            n_moved += 1
            steps += 1
            if not rdiag:
                for k in range(L):
                    h[k] += Kii * R[k, l] * cl
        if n_moved == 0:
            continue
        pushes += 1
        _push_row(Ut, K, i, c, moved, n_moved)
        for m in range(n_moved):
            c[moved[m]] = 0.0
    # compact the active set (the kept examples, in visiting order)
    if shrink:
        m = 0
        for t in range(n):
            if keep[t]:
                active[m] = active[t]
                m += 1
        n_active[0] = m
    max_pg = 0.0
    for l in range(L):
        v = max(pgmax[l], -pgmin[l])
        if v > max_pg:
            max_pg = v
    # thresholds of the next epoch, coupled through |R| (Eq. 44-45)
    for l in range(L):
        lo = 0.0
        hi = 0.0
        for k in range(L):
            a = abs(R[k, l])
            if a == 0.0:
                continue
            if a * pgmin[k] < lo:
                lo = a * pgmin[k]
            if a * pgmax[k] > hi:
                hi = a * pgmax[k]
        lb[l] = lo if lo < 0.0 else -np.inf
        ub[l] = hi if hi > 0.0 else np.inf
    return max_pg, steps, pushes


@numba.njit(cache=True, nogil=True)
def cd_state(Ut, Y, R, rdiag, A, Cv, G):
    """G (N, L) = 2 - 4 Y * (U R) from Ut = (Y alpha)' K (Eq. 29), and
    (primal P2, dual D2, largest |projected gradient| over all N L
    variables) from (alpha, G), ``A`` and ``Y`` (N, L) example by example:
    the identities of :func:`polyrank.m3l.m3l_objectives` and Eq. 31, in
    one pass (the sums kept per label, so that the labels' terms of one
    example are independent and the loop over them vectorises)."""
    N, L = A.shape
    h = np.empty(L)
    primal = np.zeros(L)
    dual = np.zeros(L)
    worst = np.zeros(L)
    for i in range(N):
        C = Cv[i]
        _decisions(Ut, i, R, rdiag, h)
        for l in range(L):
            g = 2.0 - 4.0 * Y[i, l] * h[l]
            G[i, l] = g
            a = A[i, l]
            primal[l] += a * (1.0 - 0.5 * g) + C * max(g, 0.0)
            dual[l] += a * (1.0 + 0.5 * g)
            worst[l] = max(worst[l], _abs_projected(g, a, C))
    return primal.sum(), dual.sum(), worst.max()
