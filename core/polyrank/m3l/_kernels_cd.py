"""numba kernels of kernelised M3L by example-major coordinate ascent on
the whole Gram matrix (:func:`cd_epoch`, :func:`cd_state`): one kernel row
serves every label (Sec. 5.1.3), exact 1-D steps (Eq. 37-39) over-relaxed.

Source: ``m3l-multilabel-zero-shot.txt``, Sec. 5.1 and Sec. 6; the notation
is that of :mod:`polyrank.m3l._kernels`.
"""

from __future__ import annotations

import numba
import numpy as np

from ._kernels_base import _FAST, _abs_projected, _shuffle, _snap, projected, solve_1d


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
    _shuffle(active, n)
    pgmin, pgmax = np.zeros(L), np.zeros(L)       # the labels' extreme projected gradients
    h, gv = np.empty(L), np.empty(L)
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
        # the example moves only if one of its variables has a projected
        # gradient above skip_example (then one Gram row serves its labels)
        skipped, worst = _cd_scan(Y[i], A[i], C, h, gv, out, lb, ub, shrink, pgmin, pgmax)
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
    return _cd_after_epoch(it, keep, n, shrink, pgmin, pgmax, R), steps, pushes


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


@numba.njit(cache=True, nogil=True, inline="always")
def _cd_scan(y, a_i, C, h, gv, out, lb, ub, shrink, pgmin, pgmax):
    """The gradients of one example's labels in :func:`cd_epoch` (y, a_i:
    its rows of Y and alpha; h = R u_i), into ``gv``, the shrunk ones
    flagged in ``out``, the labels' extreme projected gradients updated.
    Returns (labels shrunk, largest |projected gradient|)."""
    skipped = 0
    worst = 0.0
    for l in range(h.shape[0]):
        # without branches (the bounds a variable sits at are data, not a
        # pattern): a shrunk variable counts with projected gradient 0,
        # which moves neither the extremes (they start at 0) nor worst
        g = 2.0 - 4.0 * y[l] * h[l]
        gv[l] = g
        a = a_i[l]
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
    return skipped, worst


@numba.njit(cache=True, nogil=True, inline="always")
def _cd_after_epoch(it, keep, n, shrink, pgmin, pgmax, R):
    """The end of an epoch of :func:`cd_epoch` (``it`` its
    :class:`CdIterate`): the active set compacted to the kept examples (in
    visiting order), the next epoch's thresholds coupled through |R| (Eq.
    44-45).  Returns the largest |projected gradient| of the epoch."""
    active, n_active, lb, ub = it.active, it.n_active, it.lb, it.ub
    L = lb.shape[0]
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
    return max_pg
