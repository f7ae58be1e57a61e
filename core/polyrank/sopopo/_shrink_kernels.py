"""numba kernels of SOPOPO's shrinking passes over pieces of any shape.

Paper file: ``sopopo-label-ranking.txt``, Fig. 5 with shrinking (see the
comment below and :func:`polyrank.sopopo.sopopo_batch`'s Notes).
"""

import numpy as np
from numba import njit

from .._csr import rows_axpy, rows_dot
from ._kernel_types import SweepBuffers
from ._projection_kernels import solve_sorted_n, sort_prefix

# ---------------------------------------------------------------- shrinking
#
# The shrinking variant of Fig. 5 (``sopopo_batch(..., shrinking=True)``), in
# the manner of LIBLINEAR's Solver_MCSVM_CS (Keerthi et al., KDD 2008): the
# pieces are visited example by example (one dot product per label of an
# example per visit, one axpy per changed label), and labels, pieces and
# examples whose dual variables sit at 0 and would stay there are removed from
# the active set.  Every step is still the exact soft projection Eq. 31 of one
# piece restricted to its active labels (the shrunk ones are held at 0), so the
# dual increases monotonically.  The driver checks the exact duality gap on
# the full set before it stops.


@njit(cache=True, nogil=True, _nrt=False)
def _example_sweep(buf, Y, i, sqn, lo, n_act, piece_pos, pieces, act, skip, shrink):
    """One sweep over the active pieces ``piece_pos[lo:lo + n_act]`` of one
    example with predictions ``buf.f`` (k,) (all contributions included,
    updated here as the dual variables change), target row Y[i] and ||x||^2
    = sqn; ``pieces`` (:class:`PieceArrays`) and ``act``
    (:class:`ActiveLabels`) the pieces and their active labels.

    For each piece, with u_a = y_a - f_a, v_b = f_b - y_b over its
    active labels, s = sum alpha = sum beta, U = max u, V = max v:

    * violation of the piece's optimality conditions (the reduced problem
      Eq. 19 / Eq. 23): max(U - min_{alpha_a > 0} u_a, V - min_{beta_b > 0}
      v_b, U + V if s < C_p, -(U + V) if s > 0), 0 at the optimum;
    * shrinking: a label with zero dual variable is dropped when it could
      gain mass neither from another label of its side (u_a below every
      u of a positive alpha) nor by raising s (u_a + V < 0 when s < C_p)
      -- the rule ``be_shrunk`` of LIBLINEAR's Solver_MCSVM_CS; a piece with
      no active label left on one side is dropped, and so is a piece at its
      bound (s = C_p) with one active label per side, both holding the whole
      mass, and U + V > 0 (its projection would not move);
    * unless the violation is <= ``skip``, the soft projection Eq. 31 on the
      active labels; the changes of the label coefficients are accumulated
      in ``buf.dc`` (k,) and applied to f (f_r += d ||x||^2).

    ``buf`` (:class:`SweepBuffers`): f, dc and the work buffers mu, nu, ms, ns
    of the largest piece size.  Returns (total dual increase, largest, pieces
    changed, largest violation, number of active pieces left)."""
    f, dc, mu, nu, ms, ns = buf.f, buf.dc, buf.mu, buf.nu, buf.ms, buf.ns
    piece_C, A_ptr, A_idx, B_ptr = pieces.C, pieces.A_ptr, pieces.A_idx, pieces.B_ptr
    B_idx, alpha, beta = pieces.B_idx, pieces.alpha, pieces.beta
    A_pos, B_pos, A_act, B_act = act.A_pos, act.B_pos, act.A_act, act.B_act
    total = 0.0
    best = 0.0
    changed = 0
    vmax = 0.0
    t = 0
    while t < n_act:
        pc = piece_pos[lo + t]
        a0 = A_ptr[pc]
        b0 = B_ptr[pc]
        na = A_act[pc]
        nb = B_act[pc]
        Cp = piece_C[pc]
        s = 0.0
        U = -np.inf
        V = -np.inf
        minu = np.inf
        minv = np.inf
        for j in range(na):
            q = A_pos[a0 + j]
            u = Y[i, A_idx[q]] - f[A_idx[q]]
            if u > U:
                U = u
            if alpha[q] > 0.0:
                s += alpha[q]
                if u < minu:
                    minu = u
        for j in range(nb):
            q = B_pos[b0 + j]
            v = f[B_idx[q]] - Y[i, B_idx[q]]
            if v > V:
                V = v
            if beta[q] > 0.0 and v < minv:
                minv = v
        below = s < Cp * (1.0 - 1e-12)
        viol = 0.0
        if minu < np.inf and U - minu > viol:
            viol = U - minu
        if minv < np.inf and V - minv > viol:
            viol = V - minv
        if below and U + V > viol:
            viol = U + V
        if s > 0.0 and -(U + V) > viol:
            viol = -(U + V)
        if viol > vmax:
            vmax = viol
        # shrink labels held at 0 that cannot gain mass
        ta = minu
        tb = minv
        if not shrink:
            ta = -np.inf
            tb = -np.inf
        elif below:
            if -V < ta:
                ta = -V
            if -U < tb:
                tb = -U
        j = 0
        while j < na:
            q = A_pos[a0 + j]
            if alpha[q] == 0.0 and Y[i, A_idx[q]] - f[A_idx[q]] < ta:
                na -= 1
                A_pos[a0 + j] = A_pos[a0 + na]
                A_pos[a0 + na] = q
            else:
                j += 1
        j = 0
        while j < nb:
            q = B_pos[b0 + j]
            if beta[q] == 0.0 and f[B_idx[q]] - Y[i, B_idx[q]] < tb:
                nb -= 1
                B_pos[b0 + j] = B_pos[b0 + nb]
                B_pos[b0 + nb] = q
            else:
                j += 1
        A_act[pc] = na
        B_act[pc] = nb
        # at the bound with all mass on one label per side and a positive
        # margin violation: the soft projection keeps it there (LIBLINEAR
        # shrinks y at alpha_y = C the same way)
        fixed = (shrink and not below and na == 1 and nb == 1 and U + V > 0.0
                 and minu < np.inf and minv < np.inf)
        if na == 0 or nb == 0 or Cp <= 0.0 or fixed:
            n_act -= 1
            piece_pos[lo + t] = piece_pos[lo + n_act]
            piece_pos[lo + n_act] = pc
            continue
        t += 1
        if viol <= skip:
            continue
        # Eq. 19 scaled by ||x||^2 on the active labels (see _piece_update)
        for j in range(na):
            q = A_pos[a0 + j]
            a = A_idx[q]
            mu[j] = Y[i, a] - (f[a] - alpha[q] * sqn)
            ms[j] = mu[j]
        for j in range(nb):
            q = B_pos[b0 + j]
            b = B_idx[q]
            nu[j] = (f[b] + beta[q] * sqn) - Y[i, b]
            ns[j] = nu[j]
        sort_prefix(ms, na)
        sort_prefix(ns, nb)
        z, mean_a, mean_b, zlo, zhi, R, S = solve_sorted_n(ms, na, ns, nb, Cp * sqn)
        za = z / R
        zb = z / S
        inc = 0.0
        moved = 0
        for j in range(na):
            q = A_pos[a0 + j]
            w = (mu[j] - mean_a) + za
            an = w if w > 0.0 else 0.0
            ao = alpha[q] * sqn
            inc += 2.0 * mu[j] * (an - ao) - (an * an - ao * ao)
            an = an / sqn
            d = an - alpha[q]
            if d != 0.0:
                moved = 1
                a = A_idx[q]
                alpha[q] = an
                dc[a] += d
                f[a] += d * sqn
        for j in range(nb):
            q = B_pos[b0 + j]
            w = (nu[j] - mean_b) + zb
            bn = w if w > 0.0 else 0.0
            bo = beta[q] * sqn
            inc += 2.0 * nu[j] * (bn - bo) - (bn * bn - bo * bo)
            bn = bn / sqn
            d = bn - beta[q]
            if d != 0.0:
                moved = 1
                b = B_idx[q]
                beta[q] = bn
                dc[b] -= d
                f[b] -= d * sqn
        inc = 0.5 * inc / sqn
        changed += moved
        total += inc
        if inc > best:
            best = inc
    return total, best, changed, vmax, n_act


@njit(cache=True, nogil=True)
def _zero_norm_piece(y, pc, piece_C, A_ptr, A_idx, B_ptr, B_idx, alpha, beta, dc):
    """The soft projection of a piece whose instance is x = 0: its dual term
    s (y_a - y_b) has no quadratic part, so the optimum puts the whole
    bound C_p on the most preferred a in A and the least preferred b in B
    (without it the slack of such a piece stays in the primal and the gap
    never closes).  Writes alpha, beta and their changes into dc; returns the
    dual increase and 1 if anything changed."""
    a0 = A_ptr[pc]
    b0 = B_ptr[pc]
    ta = a0
    for t in range(a0, A_ptr[pc + 1]):
        if y[A_idx[t]] > y[A_idx[ta]]:
            ta = t
    tb = b0
    for t in range(b0, B_ptr[pc + 1]):
        if y[B_idx[t]] < y[B_idx[tb]]:
            tb = t
    Cp = piece_C[pc]
    inc = 0.0
    moved = 0
    for t in range(a0, A_ptr[pc + 1]):
        new = Cp if t == ta else 0.0
        d = new - alpha[t]
        if d != 0.0:
            moved = 1
            inc += d * y[A_idx[t]]
            dc[A_idx[t]] += d
            alpha[t] = new
    for t in range(b0, B_ptr[pc + 1]):
        new = Cp if t == tb else 0.0
        d = new - beta[t]
        if d != 0.0:
            moved = 1
            inc -= d * y[B_idx[t]]
            dc[B_idx[t]] -= d
            beta[t] = new
    return inc, moved


@njit(cache=True, nogil=True, _nrt=False)
def _active_labels(pc, A_ptr, A_idx, B_ptr, B_idx, A_pos, B_pos, A_act, B_act, lab, dc):
    """The active labels of piece pc (its side A first) into lab, with their
    dc set to 0; returns their number."""
    nl = _active_side(A_ptr[pc], A_act[pc], A_idx, A_pos, lab, np.int64(0), dc)
    return _active_side(B_ptr[pc], B_act[pc], B_idx, B_pos, lab, nl, dc)


@njit(cache=True, nogil=True, _nrt=False)
def _active_side(start, count, idx, pos, lab, nl, dc):
    """Append the ``count`` active labels ``idx[pos[start:start + count]]``
    of one side of a piece to lab[nl:], zeroing their dc; returns the new
    length."""
    for j in range(count):
        a = idx[pos[start + j]]
        lab[nl] = a
        dc[a] = 0.0
        nl += 1
    return nl


@njit(cache=True, nogil=True)
def pass_linear_shrink(rows, Y, W, active, n_active, pieces, act, kmax, skip, shrink):
    """One pass of the shrinking variant with an explicit W (k, n) over the
    active pieces ``active[:n_active]`` (in that order; instances as in
    :func:`pass_linear`).

    Per piece: f_r = w_r . x_i for its active labels only, the step of
    :func:`_example_sweep`, then w_r += d_r x_i for every label whose dual
    variable changed by d_r.  A piece with x_i = 0 gets its optimal dual
    variables at once (:func:`_zero_norm_piece`); it, and a piece left without
    active labels on one side, leave the active set (swapped behind
    ``active[:n_active]``).  Returns (total dual increase, largest single
    increase, pieces changed, largest violation, n_active after the
    pass).  ``rows``: :class:`Instances`; ``pieces``: :class:`PieceArrays`;
    ``act``: :class:`ActiveLabels`; kmax: the largest |A_p|, |B_p|."""
    X, Xdata, Xind, Xptr, sqnorm = rows.X, rows.Xdata, rows.Xind, rows.Xptr, rows.sqnorm
    piece_ex, piece_C, A_ptr, A_idx = pieces.example, pieces.C, pieces.A_ptr, pieces.A_idx
    B_ptr, B_idx, alpha, beta = pieces.B_ptr, pieces.B_idx, pieces.alpha, pieces.beta
    A_pos, B_pos, A_act, B_act = act.A_pos, act.B_pos, act.A_act, act.B_act
    k = W.shape[0]
    lab = np.empty(2 * kmax, dtype=np.int64)
    buf = SweepBuffers(np.zeros(k), np.zeros(k), np.empty(kmax), np.empty(kmax),
                       np.empty(kmax), np.empty(kmax))
    f, dc = buf.f, buf.dc
    total = 0.0
    best = 0.0
    changed = 0
    vmax = 0.0
    o = np.int64(0)   # not a literal: one specialisation of the callees
    while o < n_active:
        pc = active[o]
        i = piece_ex[pc]
        sqn = sqnorm[i]
        n_act = 1
        if sqn > 0.0:
            nl = _active_labels(pc, A_ptr, A_idx, B_ptr, B_idx, A_pos, B_pos, A_act, B_act,
                                lab, dc)
            rows_dot(W, lab, nl, X, Xdata, Xind, Xptr, i, f)
            tot, bst, ch, viol, n_act = _example_sweep(buf, Y, i, sqn, o, 1, active, pieces,
                                                       act, skip, shrink)
            total += tot
            changed += ch
            if bst > best:
                best = bst
            if viol > vmax:
                vmax = viol
            if ch:
                # the labels still active after the sweep hold every change
                # (a label leaves only with its dual variable at 0 before
                # the step); the ones dropped have dc = 0
                rows_axpy(W, lab, nl, dc, X, Xdata, Xind, Xptr, i)
        else:
            # x_i = 0: W does not change
            inc, ch = _zero_norm_piece(Y[i], pc, piece_C, A_ptr, A_idx, B_ptr, B_idx,
                                       alpha, beta, dc)
            total += inc
            changed += ch
            n_act = 0
        if n_act == 0:
            n_active -= 1
            active[o] = active[n_active]
            active[n_active] = pc
        else:
            o += 1
    return total, best, changed, vmax, n_active


@njit(cache=True, nogil=True, _nrt=False)
def _kernel_scores(F, i, lab, nl, f):
    """f_r = F[i, r] for the ``nl`` labels r of ``lab`` (the kernel form's
    :func:`~polyrank._csr.rows_dot`)."""
    for j in range(nl):
        r = lab[j]
        f[r] = F[i, r]


@njit(cache=True, nogil=True, _nrt=False)
def _kernel_axpys(K, F, coef, i, lab, nl, dc):
    """For the ``nl`` labels r of ``lab`` whose coefficient changed by
    d = dc[r] != 0: coef[i, r] += d and F[:, r] += d K[:, i] (the kernel
    form's :func:`~polyrank._csr.rows_axpy`)."""
    m = F.shape[0]
    for j in range(nl):
        r = lab[j]
        d = dc[r]
        if d != 0.0:
            coef[i, r] += d
            for t in range(m):
                F[t, r] += d * K[t, i]


@njit(cache=True, nogil=True)
def pass_kernel_shrink(K, Y, F, coef, active, n_active, pieces, act, kmax, skip, shrink):
    """:func:`pass_linear_shrink` in the kernel form (see :func:`pass_kernel`):
    f = F[i] (:func:`_kernel_scores`), and a change d of a label's
    coefficient updates coef[i, r] += d and F[:, r] += d K[:, i]
    (:func:`_kernel_axpys`)."""
    piece_ex, piece_C, A_ptr, A_idx = pieces.example, pieces.C, pieces.A_ptr, pieces.A_idx
    B_ptr, B_idx, alpha, beta = pieces.B_ptr, pieces.B_idx, pieces.alpha, pieces.beta
    A_pos, B_pos, A_act, B_act = act.A_pos, act.B_pos, act.A_act, act.B_act
    k = F.shape[1]
    lab = np.empty(2 * kmax, dtype=np.int64)
    buf = SweepBuffers(np.zeros(k), np.zeros(k), np.empty(kmax), np.empty(kmax),
                       np.empty(kmax), np.empty(kmax))
    f, dc = buf.f, buf.dc
    total = 0.0
    best = 0.0
    changed = 0
    vmax = 0.0
    o = np.int64(0)   # not a literal: one specialisation of the callees
    while o < n_active:
        pc = active[o]
        i = piece_ex[pc]
        sqn = K[i, i]
        n_act = 1
        if sqn > 0.0:
            nl = _active_labels(pc, A_ptr, A_idx, B_ptr, B_idx, A_pos, B_pos, A_act, B_act,
                                lab, dc)
            _kernel_scores(F, i, lab, nl, f)
            tot, bst, ch, viol, n_act = _example_sweep(buf, Y, i, sqn, o, 1, active, pieces,
                                                       act, skip, shrink)
            total += tot
            changed += ch
            if bst > best:
                best = bst
            if viol > vmax:
                vmax = viol
            if ch:
                # as in pass_linear_shrink: the labels dropped have dc = 0
                _kernel_axpys(K, F, coef, i, lab, nl, dc)
        else:
            # phi(x_i) = 0: K[:, i] = 0, so F does not change
            for r in range(k):
                dc[r] = 0.0
            inc, ch = _zero_norm_piece(Y[i], pc, piece_C, A_ptr, A_idx, B_ptr, B_idx,
                                       alpha, beta, dc)
            total += inc
            changed += ch
            for r in range(k):
                coef[i, r] += dc[r]
            n_act = 0
        if n_act == 0:
            n_active -= 1
            active[o] = active[n_active]
            active[n_active] = pc
        else:
            o += 1
    return total, best, changed, vmax, n_active
