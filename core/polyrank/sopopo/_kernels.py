"""numba kernels of SOPOPO (Shalev-Shwartz & Singer, JMLR 2006).

Paper file: ``sopopo-label-ranking.txt``.  Plain arrays in, numbers out; no
Python objects.  Conventions: label sets A and B of one piece are int64 index
arrays; ``mu`` and ``nu`` are the reduced-problem vectors of Eq. 19 in the
order of A and B (unsorted); sorting happens inside.

The kernels live in modules by seam, all re-exported here (the import path
``polyrank.sopopo._kernels.<name>`` of every kernel stays, and
:func:`polyrank._jit.kernel_dispatchers` finds them all in this module's
namespace): :mod:`._kernel_types` (the NamedTuple arguments),
:mod:`._projection_kernels` (one soft projection: knots, g(z), the reduced
problem, the single-edge step), :mod:`._pass_kernels` (the passes without
shrinking and the objectives), :mod:`._shrink_kernels` (the shrinking passes
over general pieces) and, here, the single-edge shrinking pass of the default
``decomposition="all_pairs"``.
"""

import numpy as np
from numba import njit

from .._csr import label_axpy, label_dot, row_axpy, row_dot, rows_axpy, rows_dot
from .._sort import heapsort_prefix
from ._kernel_types import ActiveLabels, Instances, PieceArrays, Segments, SweepBuffers
from ._pass_kernels import (
    _apply_kernel_update,
    _apply_linear_update,
    _piece_buffers,
    _piece_update,
    _piece_update_general,
    greedy_kernel,
    objectives,
    pass_kernel,
    pass_linear,
)
from ._projection_kernels import (
    alpha_from,
    check_piece,
    finish_projection,
    g_sorted,
    knots_sorted,
    pair_step,
    project_rows,
    soft_project_kernel,
    solve_reduced_full,
    solve_reduced_kernel,
    solve_sorted,
    solve_sorted_n,
    sort_inplace,
    sort_prefix,
)
from ._shrink_kernels import (
    _active_labels,
    _active_side,
    _example_sweep,
    _kernel_axpys,
    _kernel_scores,
    _zero_norm_piece,
    pass_kernel_shrink,
    pass_linear_shrink,
)

#: every kernel and argument type of SOPOPO, wherever it is defined
__all__ = [
    "label_axpy", "label_dot", "row_axpy", "row_dot", "rows_axpy", "rows_dot",
    "heapsort_prefix",
    "PieceArrays", "ActiveLabels", "Instances", "Segments", "SweepBuffers",
    "knots_sorted", "g_sorted", "sort_inplace", "sort_prefix", "solve_reduced_kernel",
    "solve_sorted", "solve_sorted_n", "check_piece", "project_rows", "finish_projection",
    "soft_project_kernel", "solve_reduced_full", "alpha_from", "pair_step",
    "_piece_update", "_piece_update_general", "_piece_buffers", "pass_linear",
    "_apply_linear_update", "_apply_kernel_update", "pass_kernel", "greedy_kernel",
    "objectives",
    "_example_sweep", "_zero_norm_piece", "_active_labels", "_active_side",
    "pass_linear_shrink", "_kernel_scores", "_kernel_axpys", "pass_kernel_shrink",
    "shuffle_blocks", "shuffle_segments", "pass_pairs_shrink",
]


# ------------------------------------------------------ single-edge pieces
#
# ``decomposition="all_pairs"`` (and the pair pieces of the threshold label)
# gives only single-edge pieces {(a, b)}: |A| = |B| = 1, so alpha = beta is one
# number per piece and its soft projection is the clipped 1-d step of
# :func:`pair_step`.  The shrinking pass below visits the pieces in segments,
# each a few thousand pieces of one example: the scores f_r = w_r . x_i are
# computed once per segment visit (only for the labels of its active pieces)
# and kept up to date as the pieces move, and W (or F and the coefficients) is
# updated once per changed label at the end of the visit, so that a piece
# costs a few loads and a dozen flops instead of two dot products and two
# axpys.  The active pieces of segment g are
# ``pos[seg_ptr[g]:seg_ptr[g] + n_act[g]]``.


@njit(cache=True, nogil=True)
def shuffle_blocks(pos, ptr, cnt, block, seed):
    """Permute every example's pieces ``pos[ptr[i]:ptr[i] + cnt[i]]`` in
    place by blocks: the runs of ``block`` consecutive entries (the last one
    shorter) are put in a random order (splitmix64 seeded by ``seed``), each
    run kept whole.  The segments cut from the result then mix labels from
    the whole example while every cache line of the pieces' arrays belongs
    to one segment.  Work O(sum cnt); memory O(max cnt)."""
    big = 0
    for i in range(cnt.shape[0]):
        if cnt[i] > big:
            big = cnt[i]
    tmp = np.empty(big, dtype=pos.dtype)
    perm = np.empty((big + block - 1) // block, dtype=np.int64)
    state = np.uint64(seed)
    for i in range(cnt.shape[0]):
        lo = ptr[i]
        c = cnt[i]
        nb = (c + block - 1) // block
        for t in range(nb):
            perm[t] = t
        for t in range(nb - 1, 0, -1):
            state += np.uint64(0x9E3779B97F4A7C15)
            z = state
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            j = np.int64(z % np.uint64(t + 1))
            tmp_b = perm[t]
            perm[t] = perm[j]
            perm[j] = tmp_b
        for t in range(c):
            tmp[t] = pos[lo + t]
        w = lo
        for t in range(nb):
            start = perm[t] * block
            stop = min(start + block, c)
            for u in range(start, stop):
                pos[w] = tmp[u]
                w += 1


@njit(cache=True, nogil=True)
def shuffle_segments(pos, seg_ptr, n_act, seed):
    """Shuffle the active part ``pos[seg_ptr[g]:seg_ptr[g] + n_act[g]]`` of
    every segment g in place (Fisher-Yates with the splitmix64 generator
    seeded by ``seed``, so a seed gives the same order on every machine)."""
    state = np.uint64(seed)
    for i in range(n_act.shape[0]):
        lo = seg_ptr[i]
        for t in range(n_act[i] - 1, 0, -1):
            state += np.uint64(0x9E3779B97F4A7C15)
            z = state
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            j = np.int64(z % np.uint64(t + 1))
            tmp = pos[lo + t]
            pos[lo + t] = pos[lo + j]
            pos[lo + j] = tmp


@njit(cache=True, nogil=True)
def pass_pairs_shrink(linear, rows, W, K, F, coef, Y, segs, pieces, skip, shrink):
    """One pass of the shrinking variant over single-edge pieces, segment by
    segment (``sopopo-label-ranking.txt``, Sec. 4, Fig. 5 with Eq. 31 in the
    closed form of :func:`pair_step`).

    ``linear``: the explicit form, scores w_r . x_i from W (k, n) and the
    instances ``rows`` (:class:`Instances`) as in :func:`pass_linear`,
    ||x_i||^2 = sqnorm[i]; K, F, coef are not used (pass empty arrays).
    Otherwise the kernel form of :func:`pass_kernel_shrink`: scores F[i],
    ||x_i||^2 = K[i, i], a change d of label r's coefficient adds d to
    coef[i, r] and d K[:, i] to F[:, r] (rows, W not used).

    The pieces are grouped in segments (``segs``, :class:`Segments`), each
    of one example: segment g holds pieces of example seg_ex[g], the active
    ones ``pos[seg_ptr[g]:seg_ptr[g] + n_act[g]]``.  The segments are
    visited in ``segs.order``, the active pieces of a segment in their
    order.  Piece p of ``pieces`` (:class:`PieceArrays`, every piece one
    edge) is the edge (A_idx[p], B_idx[p]) with bound C[p]; alpha[p] =
    beta[p] is its dual variable.  Each piece gets exactly the step of
    :func:`_example_sweep` for |A| = |B| = 1 (same violation, same shrinking
    rules, same soft projection), so the iterates are those of
    :func:`pass_linear_shrink` / :func:`pass_kernel_shrink` run over the same
    order, up to the rounding of the scores (kept up to date here instead of
    recomputed from W).  A piece that leaves the active set is swapped
    behind the active part of its segment.  An example with x_i = 0 puts
    every active piece of its segments at its bound at once
    (:func:`_zero_norm_piece`).

    Returns (total dual increase, largest single increase, pieces changed,
    largest violation, active pieces after the pass).  Work: O(active pieces
    + touched labels * nnz(x_i)) per pass; memory O(k).
    """
    X, Xdata, Xind, Xptr, sqnorm = rows.X, rows.Xdata, rows.Xind, rows.Xptr, rows.sqnorm
    seg_order, seg_ex, seg_ptr, pos, n_act = (segs.order, segs.seg_ex, segs.seg_ptr, segs.pos,
                                              segs.n_act)
    piece_C, pa, pb, alpha, beta = (pieces.C, pieces.A_idx, pieces.B_idx, pieces.alpha,
                                    pieces.beta)
    k = Y.shape[1]
    f = np.empty(k)
    dc = np.zeros(k)
    seen = np.full(k, -1, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    total = 0.0
    best = 0.0
    changed = 0
    vmax = 0.0
    n_left = 0
    for o in range(seg_order.shape[0]):
        sg = seg_order[o]
        i = seg_ex[sg]
        lo = seg_ptr[sg]
        na = n_act[sg]
        if na == 0:
            continue
        y = Y[i]
        sqn = sqnorm[i] if linear else K[i, i]
        if not sqn > 0.0:
            # x_i = 0: the optimum of every piece is its bound (its dual term
            # is linear); W and F do not change
            for t in range(lo, lo + na):
                pc = pos[t]
                a = pa[pc]
                b = pb[pc]
                d = piece_C[pc] - alpha[pc]
                if d != 0.0:
                    changed += 1
                    total += d * y[a] - d * y[b]
                    alpha[pc] = piece_C[pc]
                    beta[pc] = piece_C[pc]
                    if not linear:
                        coef[i, a] += d
                        coef[i, b] -= d
            n_act[sg] = 0
            continue
        nt = 0
        t = 0
        while t < na:
            pc = pos[lo + t]
            a = pa[pc]
            b = pb[pc]
            if seen[a] != o:
                seen[a] = o
                f[a] = label_dot(W, a, X, Xdata, Xind, Xptr, i) if linear else F[i, a]
                dc[a] = 0.0
                touched[nt] = a
                nt += 1
            if seen[b] != o:
                seen[b] = o
                f[b] = label_dot(W, b, X, Xdata, Xind, Xptr, i) if linear else F[i, b]
                dc[b] = 0.0
                touched[nt] = b
                nt += 1
            Cp = piece_C[pc]
            s = alpha[pc]
            u = y[a] - f[a]
            v = f[b] - y[b]
            below = s < Cp * (1.0 - 1e-12)
            viol = 0.0
            if below and u + v > viol:
                viol = u + v
            if s > 0.0 and -(u + v) > viol:
                viol = -(u + v)
            if viol > vmax:
                vmax = viol
            # the rules of _example_sweep for one label per side: a piece at 0
            # whose labels cannot gain mass (u < -v) loses both, and so does a
            # piece at its bound with a positive violation
            gone = Cp <= 0.0
            if shrink:
                if s == 0.0:
                    if below and u < -v:
                        gone = True
                elif not below and u + v > 0.0:
                    gone = True
            if gone:
                na -= 1
                pos[lo + t] = pos[lo + na]
                pos[lo + na] = pc
                continue
            t += 1
            if viol <= skip:
                continue
            ao = s * sqn
            mu = y[a] - (f[a] - ao)
            nu = (f[b] + beta[pc] * sqn) - y[b]
            an, inc = pair_step(mu, nu, ao, Cp * sqn)
            inc = 0.5 * inc / sqn
            an = an / sqn
            d = an - s
            if d != 0.0:
                changed += 1
                alpha[pc] = an
                beta[pc] = an
                dc[a] += d
                dc[b] -= d
                f[a] += d * sqn
                f[b] -= d * sqn
            total += inc
            if inc > best:
                best = inc
        n_act[sg] = na
        n_left += na
        for j in range(nt):
            r = touched[j]
            d = dc[r]
            if d != 0.0:
                if linear:
                    label_axpy(W, r, d, X, Xdata, Xind, Xptr, i)
                else:
                    coef[i, r] += d
                    for t2 in range(F.shape[0]):
                        F[t2, r] += d * K[t2, i]
    return total, best, changed, vmax, n_left
