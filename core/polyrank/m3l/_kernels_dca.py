"""numba kernels of linear M3L by dual coordinate ascent with shrinkage,
any R (Sec. 6, Eq. 37-45): :func:`dca_run`, epochs up to a duality-gap
check, uniform or label-wise batches with the delayed update of Z.

Source: ``m3l-multilabel-zero-shot.txt``, Sec. 6; the notation is that of
:mod:`polyrank.m3l._kernels`.
"""

from __future__ import annotations

import numba
import numpy as np

from ._kernels_base import (
    _FAST,
    DCA_BUDGET,
    DCA_SOLVED,
    DcaWork,
    _daxpy,
    _ddot,
    _saxpy,
    _sdot,
    projected,
    solve_1d,
)


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
