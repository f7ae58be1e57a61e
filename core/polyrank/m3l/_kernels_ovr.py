"""numba kernel of linear M3L with a diagonal R: the L independent SVMs
(Sec. 3.1) solved together by LIBLINEAR's dual coordinate descent with
shrinking (:func:`ovr_run`; Hsieh et al. 2008, Alg. 3).

Source: ``m3l-multilabel-zero-shot.txt``, Sec. 3.1 and Sec. 6; the notation
is that of :mod:`polyrank.m3l._kernels`.
"""

from __future__ import annotations

import numba
import numpy as np

from ._kernels_base import (
    _FAST,
    DCA_BUDGET,
    DCA_SOLVED,
    _daxpy,
    _ddot,
    _saxpy,
    _sdot,
    _shuffle,
    projected,
    solve_1d,
)


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
    on, n_on, done = st.on, st.n_on, st.done
    np.random.seed(seed)
    N, L = Y.shape
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
            n_act = _ovr_active(on, done, act, lab, n_lab)
            rebuild = False
        for l in range(L):
            pg_lo[l] = 0.0
            pg_hi[l] = 0.0
            full[l] = n_on[l] == N
        _shuffle(act, n_act)
        # ---- one epoch: every active example once, all its active labels ----
        m = 0
        for t in range(n_act):
            p = act[t]
            visits += _ovr_example(xr, Y, Rdiag, Cv, st, p, lab, n_lab, pg_lo, pg_hi, shrink)
            if n_lab[p] > 0:
                act[m] = p
                m += 1
        n_act = m
        epochs += 1
        all_done, rebuild = _ovr_after_epoch(st, pg_lo, pg_hi, full, tau)
        if all_done:
            return DCA_SOLVED, visits, epochs
        if visits >= max_visits:
            return DCA_BUDGET, visits, epochs


@numba.njit(cache=True, nogil=True, fastmath=_FAST, inline="always")
def _ovr_active(on, done, act, lab, n_lab):
    """The examples of :func:`ovr_run` with an active variable of an
    unfinished label, act[:n] (n returned), and each one's active labels,
    lab[i, :n_lab[i]] (compact lists: the pass reads no flags)."""
    N, L = on.shape
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
    return n_act


@numba.njit(cache=True, nogil=True, fastmath=_FAST, inline="always")
def _ovr_example(xr, Y, Rdiag, Cv, st, p, lab, n_lab, pg_lo, pg_hi, shrink):
    """The visit of example p in an epoch of :func:`ovr_run`: the exact
    coordinate step of each of its active labels (Eq. 37-40), shrinking
    (``st.on``) and the labels' extreme projected gradients; its labels
    still active are left in lab[p, :n_lab[p]].  Returns the visits."""
    X, Xdata, Xind, Xptr = xr.X, xr.Xdata, xr.Xind, xr.Xptr
    alpha, Zt, on, n_on, lb, ub, done = st.alpha, st.Zt, st.on, st.n_on, st.lb, st.ub, st.done
    dense = X.shape[0] > 0
    C = Cv[p]
    q = xr.sqnorm[p]
    k = 0
    visits = 0
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
    return visits


@numba.njit(cache=True, nogil=True, fastmath=_FAST, inline="always")
def _ovr_after_epoch(st, pg_lo, pg_hi, full, tau):
    """Per label after an epoch of :func:`ovr_run`: solved (every
    projected gradient it met below ``tau`` with all its variables active),
    unshrunk (below ``tau`` on a shrunk set) or new shrinking thresholds
    (its epoch's extremes).  Returns (every label done, the active lists
    need a rebuild)."""
    on, n_on, lb, ub, done = st.on, st.n_on, st.lb, st.ub, st.done
    N, L = on.shape
    all_done = True
    rebuild = False
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
    return all_done, rebuild
