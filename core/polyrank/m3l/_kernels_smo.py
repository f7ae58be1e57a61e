"""numba kernels of the kernelised M3L SMO (Sec. 5.1, Alg. 1-2): kernel
rows and their LRU cache (Sec. 5.1.3), the 2-D sub-problem (Solve2DQP,
Alg. 2) and one pass of SMO with delayed gradient updates (Eq. 34-36,
:func:`smo_pass`).

Source: ``m3l-multilabel-zero-shot.txt``, Sec. 5.1 and Appendix A; the
notation is that of :mod:`polyrank.m3l._kernels`.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._kernels_base import _FAST, KIND_LINEAR, KIND_RBF, LabelRows, _abs_projected, _snap, solve_1d


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
    work = np.empty(N)
    lab_max, coupled = _smo_start(arr, n)
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


@numba.njit(cache=True, nogil=True, fastmath=_FAST, inline="always")
def _smo_start(arr, n):
    """The state of :func:`smo_pass` before its first round (``arr`` its
    :class:`SmoArrays`, n active examples): (lab_max, coupled), every
    label's largest |projected gradient| (kept exact by the pass: the label
    choice of a round is argmax lab_max, the first of ties, as a scan over
    all N L gradients would choose, without that scan), and the labels
    coupled to another one through R (they need the delayed update)."""
    Gt, At, Cv, R, act = arr.Gt, arr.At, arr.Cv, arr.R, arr.act
    L = Gt.shape[0]
    lab_max = np.zeros(L)
    coupled = np.zeros(L, dtype=np.bool_)
    for k in range(L):
        lab_max[k] = _label_max_at(Gt[k], At[k], Cv, act, n)
    for k in range(L):
        for m in range(L):
            if m != k and R[k, m] != 0.0:
                coupled[k] = True
    return lab_max, coupled
