"""numba kernels of support vector ordinal regression (SVORIM, the default
model of :class:`~polyrank.OrdinalMarginRanker`; :mod:`polyrank.ordinal.svor`)
and of the thresholds chosen for a loss (:func:`dp_thresholds`).

Source: W. Chu and S. S. Keerthi, "Support vector ordinal regression",
Neural Computation 19(3):792-815, 2007, Sec. 3; dual coordinate descent with
shrinking: C.-J. Hsieh et al., "A dual coordinate descent method for
large-scale linear SVM", ICML 2008, Alg. 1 and Sec. 3.2.  Split from
:mod:`polyrank.ordinal._kernels` (which re-exports every name, so that
``polyrank warmup`` and the compile notice find them there).

Every kernel is a free function over plain arrays (no jitclass, no Python
callbacks); labels are 0..l (int64).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np


class SvorArrays(NamedTuple):
    """The per-object data and the iterate of SVOR's dual coordinate descent,
    one argument of the pass kernels (:func:`svor_pass_dense`,
    :func:`svor_pass_csr`, :func:`svor_pass_gram`) instead of ten
    (numba types a NamedTuple of arrays field by field; the kernel reads the
    fields at no cost).  The shapes and meanings are those of
    :func:`svor_pass_dense`'s arguments of the same names."""

    sqnorm: np.ndarray         # float64 (n,): kappa(x_i, x_i)
    labels: np.ndarray         # int64 (n,): 0..l
    upper: np.ndarray          # float64 (n,): U_i
    diag: np.ndarray           # float64 (n,): D_ii
    alpha: np.ndarray          # float64 (n * l,), in place
    b: np.ndarray              # float64 (l,), in place
    active: np.ndarray         # bool (n * l,), in place
    rows: np.ndarray           # int64 (n,), in place
    state: np.ndarray          # uint64 (1,): random state, in place
    pg: np.ndarray             # float64 (4,): LIBLINEAR's PG bounds, in place


@numba.njit(cache=True, nogil=True, inline="always")
def _svor_sign(label, j):
    """s_ij: +1 if the object's label is above threshold j, else -1."""
    return 1.0 if label > j else -1.0


@numba.njit(cache=True, nogil=True, inline="always")
def _svor_row(i, fi, qi, label, l, alpha, b, upper, diag, active, pg):
    """The coordinate steps of the l pairs of object i (score ``fi``, kernel
    value ``qi`` = kappa(x_i, x_i)) that are still active, in threshold order.

    Each step is LIBLINEAR's (Hsieh et al. 2008, Alg. 1): the gradient
    G = s (f_i - b_j) - 1 + D_ii alpha, the projected gradient at the bounds
    [0, U_i], shrinking of a pair at a bound whose gradient points out by
    more than last pass's extremes ``pg[0]``, ``pg[1]`` (LIBLINEAR's PGmax_old,
    PGmin_old), and alpha <- clip(alpha - G / Q) with Q = qi + 1 + D_ii
    (the 1: the threshold's bias feature).  Within the row, f_i and b_j follow
    each step exactly; the caller applies the row's total change of
    u_i = sum_j s_ij alpha_ij to w (or to every score).

    Returns (the change of u_i, the largest |alpha change|); ``pg[2]``,
    ``pg[3]`` collect this pass's largest and smallest projected gradient.
    """
    du = 0.0
    moved = 0.0
    up = upper[i]
    dii = diag[i]
    for j in range(l):
        p = i * l + j
        if not active[p]:
            continue
        s = _svor_sign(label, j)
        a = alpha[p]
        g = s * (fi - b[j]) - 1.0 + dii * a
        pgr = 0.0
        if a == 0.0:
            if g > pg[0]:
                active[p] = False
                continue
            if g < 0.0:
                pgr = g
        elif a >= up:
            if g < pg[1]:
                active[p] = False
                continue
            if g > 0.0:
                pgr = g
        else:
            pgr = g
        pg[2] = max(pg[2], pgr)
        pg[3] = min(pg[3], pgr)
        if pgr != 0.0:
            a_new = min(max(a - g / (qi + 1.0 + dii), 0.0), up)
            step = (a_new - a) * s
            alpha[p] = a_new
            fi += step * qi
            b[j] -= step
            du += step
            moved = max(moved, abs(a_new - a))
    return du, moved


@numba.njit(cache=True, nogil=True, inline="always")
def _svor_shuffle(rows, m, state):
    """Shuffle rows[:m] in place (Fisher-Yates) with the xorshift64 state
    ``state[0]`` (deterministic from its seed, as LIBLINEAR's rand())."""
    x = state[0]
    for t in range(m - 1, 0, -1):
        x ^= (x << np.uint64(13)) & np.uint64(0xFFFFFFFFFFFFFFFF)
        x ^= x >> np.uint64(7)
        x ^= (x << np.uint64(17)) & np.uint64(0xFFFFFFFFFFFFFFFF)
        k = np.int64(x % np.uint64(t + 1))
        tmp = rows[t]
        rows[t] = rows[k]
        rows[k] = tmp
    state[0] = x


@numba.njit(cache=True, nogil=True, inline="always")
def _svor_begin_pass(rows, m, state, pg):
    """A fresh random order of rows[:m] and this pass's PG extremes reset."""
    _svor_shuffle(rows, m, state)
    pg[2] = -np.inf
    pg[3] = np.inf


@numba.njit(cache=True, nogil=True, inline="always")
def _svor_keep_rows(rows, m, l, active):
    """Drop from rows[:m] the objects without an active pair; returns the new m."""
    kept = 0
    for t in range(m):
        i = rows[t]
        for j in range(l):
            if active[i * l + j]:
                rows[kept] = i
                kept += 1
                break
    return kept


@numba.njit(cache=True, nogil=True)
def svor_pass_dense(X, w, arrays, l, m):
    """One pass of dual coordinate descent for linear SVOR over dense X.

    Visits the objects ``rows[:m]`` (those with an active pair) in a fresh
    random order; per object one product f_i = w . x_i, the steps of
    :func:`_svor_row`, and one update w += (change of u_i) x_i: O(m + l)
    per object.

    Parameters
    ----------
    X : float64 (n, d)
    w : float64 (d,)
        w = sum_i u_i x_i (in place).
    arrays : SvorArrays
        The fields (one NamedTuple instead of ten arguments):

        sqnorm : float64 (n,)
            ||x_i||^2.
        labels : int64 (n,)
            0..l.
        upper, diag : float64 (n,)
            U_i and D_ii of object i (hinge: c_i / 2 and 0; squared hinge:
            inf and 1 / c_i, c_i = c times its sample weight).
        alpha : float64 (n * l,)
            Dual variables of the pairs (in place).
        b : float64 (l,)
            Thresholds b = -sum_i s_ij alpha_ij (in place).
        active : bool (n * l,)
            Pairs not shrunk (in place).
        rows : int64 (n,)
            rows[:m] the objects with an active pair (shuffled and compacted
            in place).
        state : uint64 (1,)
            Random state (in place).
        pg : float64 (4,)
            (PGmax_old, PGmin_old, PGmax_new, PGmin_new) as in LIBLINEAR; the
            new pair is reset here and filled by the pass.
    l : int
        Number of thresholds.
    m : int

    Returns
    -------
    (int, float)
        The new m and the largest |alpha change| of the pass.
    """
    a = arrays
    _svor_begin_pass(a.rows, m, a.state, a.pg)
    d = X.shape[1]
    moved = 0.0
    for t in range(m):
        i = a.rows[t]
        fi = 0.0
        for h in range(d):
            fi += X[i, h] * w[h]
        du, mv = _svor_row(i, fi, a.sqnorm[i], a.labels[i], l, a.alpha, a.b, a.upper, a.diag,
                           a.active, a.pg)
        moved = max(moved, mv)
        if du != 0.0:
            for h in range(d):
                w[h] += du * X[i, h]
    return _svor_keep_rows(a.rows, m, l, a.active), moved


@numba.njit(cache=True, nogil=True)
def svor_pass_csr(indptr, indices, data, w, arrays, l, m):
    """:func:`svor_pass_dense` on CSR rows (O(nnz_i + l) per object); the
    per-object data and the iterate in one :class:`SvorArrays`."""
    a = arrays
    _svor_begin_pass(a.rows, m, a.state, a.pg)
    moved = 0.0
    for t in range(m):
        i = a.rows[t]
        fi = 0.0
        for q in range(indptr[i], indptr[i + 1]):
            fi += data[q] * w[indices[q]]
        du, mv = _svor_row(i, fi, a.sqnorm[i], a.labels[i], l, a.alpha, a.b, a.upper, a.diag,
                           a.active, a.pg)
        moved = max(moved, mv)
        if du != 0.0:
            for q in range(indptr[i], indptr[i + 1]):
                w[indices[q]] += du * data[q]
    return _svor_keep_rows(a.rows, m, l, a.active), moved


@numba.njit(cache=True, nogil=True)
def svor_pass_gram(K, u, f, arrays, l, m):
    """:func:`svor_pass_dense` with a kernel: the Gram matrix K (n, n) and
    the scores f = K u (in place, (n,)) instead of w; u_i = sum_j s_ij
    alpha_ij (in place).  An object's step costs O(n) (f += du K[i]);
    ``arrays.sqnorm`` is not read (K[i, i] is)."""
    a = arrays
    _svor_begin_pass(a.rows, m, a.state, a.pg)
    n = K.shape[0]
    moved = 0.0
    for t in range(m):
        i = a.rows[t]
        du, mv = _svor_row(i, f[i], K[i, i], a.labels[i], l, a.alpha, a.b, a.upper, a.diag,
                           a.active, a.pg)
        moved = max(moved, mv)
        if du != 0.0:
            u[i] += du
            for r in range(n):
                f[r] += du * K[i, r]
    return _svor_keep_rows(a.rows, m, l, a.active), moved


@numba.njit(cache=True, nogil=True)
def svor_loss(f, labels, b, c, squared):
    """sum_i c_i sum_j loss(1 - s_ij (f_i - b_j)), loss(t) = max(0, t) or
    max(0, t)^2 (``squared``): the data term of the SVOR objective at the
    scores f (n,) and thresholds b (l,), c (n,) the per-object penalties."""
    l = b.shape[0]
    total = 0.0
    for i in range(f.shape[0]):
        if c[i] == 0.0:
            continue
        s_i = 0.0
        for j in range(l):
            t = 1.0 - _svor_sign(labels[i], j) * (f[i] - b[j])
            if t > 0.0:
                s_i += t * t if squared else t
        total += c[i] * s_i
    return total


@numba.njit(cache=True, nogil=True)
def svor_dual_terms(alpha, diag, l):
    """(sum alpha, sum_i D_ii sum_j alpha_ij^2): the terms of the SVOR dual
    besides ||w||^2 + ||b||^2."""
    s1 = 0.0
    s2 = 0.0
    for p in range(alpha.shape[0]):
        a = alpha[p]
        if a != 0.0:
            s1 += a
            s2 += diag[p // l] * a * a
    return s1, s2


# ------------------------------------------------------- thresholds by DP
#: losses of :func:`dp_thresholds`
LOSS_ABSOLUTE, LOSS_SQUARED, LOSS_ZERO_ONE = 0, 1, 2


@numba.njit(cache=True, nogil=True, inline="always")
def _grade_loss(a, b, kind):
    if kind == LOSS_ABSOLUTE:
        return abs(a - b)
    if kind == LOSS_SQUARED:
        return (a - b) * (a - b)
    return 0.0 if a == b else 1.0


@numba.njit(cache=True, nogil=True, inline="always")
def _lex_less(a1, a2, b1, b2):
    """(a1, a2) < (b1, b2) lexicographically, the first entries equal when
    they differ by rounding only (relative 1e-10)."""
    tol = 1e-10 * max(1.0, abs(b1))
    return a1 < b1 - tol or (a1 <= b1 + tol and a2 < b2)


@numba.njit(cache=True, nogil=True)
def dp_thresholds(fs, ys, ws, levels, kind, ref, margin, out):
    """Thresholds b_1 <= ... <= b_l minimising the weighted training loss of
    the predictions max {k | f > b_k}, exactly, by dynamic programming over
    the sorted scores.

    A monotone threshold choice is a nondecreasing assignment of grades to
    the sorted scores in which equal scores share a grade; the recursion over
    the blocks of equal scores t = 1..T is

        V_t(k) = cost_t(k) + min_{k' <= k} V_{t-1}(k'),   V_0 = 0,

    cost_t(k) = sum_{i in block t} w_i loss(levels[k], levels[y_i]); the
    running minimum makes it O(n (l + 1)).  Among assignments of equal loss
    (common: the loss takes few values) the one closest to the reference
    grades ``ref`` wins (second key sum_i w_i |k_i - ref_i|), so that scores
    moved by rounding do not flip the choice.

    Parameters
    ----------
    fs : float64 (n,)
        Scores, sorted ascending.
    ys : int64 (n,)
        Their labels 0..l.
    ws : float64 (n,)
        Their weights (>= 0).
    levels : float64 (l + 1,)
        The value of each grade in the loss (the labels' numbers, or 0..l).
    kind : int
        LOSS_ABSOLUTE, LOSS_SQUARED or LOSS_ZERO_ONE.
    ref : int64 (n,)
        Reference grades of the sorted scores (e.g. the predictions at the
        objective's thresholds), nondecreasing or not.
    margin : float
        A threshold below (above) every score is put ``margin`` below the
        lowest (above the highest) score.
    out : float64 (l,)
        Receives b_1..b_l: midpoints between the last score of a grade below
        k and the first of grade k or above.

    Returns
    -------
    float
        The minimal weighted loss.
    """
    n = fs.shape[0]
    k_all = levels.shape[0]
    choice = np.empty((n, k_all), dtype=np.int32)
    ends = np.empty(n, dtype=np.int64)
    prev = np.zeros(k_all)
    prev2 = np.zeros(k_all)
    cur = np.empty(k_all)
    cur2 = np.empty(k_all)
    n_blocks = 0
    start = 0
    while start < n:
        end = start
        while end + 1 < n and fs[end + 1] == fs[start]:
            end += 1
        best = np.inf
        best2 = np.inf
        arg = 0
        for k in range(k_all):
            if _lex_less(prev[k], prev2[k], best, best2):
                best = prev[k]
                best2 = prev2[k]
                arg = k
            choice[n_blocks, k] = arg
            cost = 0.0
            cost2 = 0.0
            for i in range(start, end + 1):
                cost += ws[i] * _grade_loss(levels[k], levels[ys[i]], kind)
                cost2 += ws[i] * abs(k - ref[i])
            cur[k] = best + cost
            cur2[k] = best2 + cost2
        for k in range(k_all):      # a loop, not prev[:] = cur: no shape-error path to compile
            prev[k] = cur[k]
            prev2[k] = cur2[k]
        ends[n_blocks] = end
        n_blocks += 1
        start = end + 1
    k = 0
    for kk in range(1, k_all):
        if _lex_less(prev[kk], prev2[kk], prev[k], prev2[k]):
            k = kk
    total = prev[k]
    assign = np.empty(n_blocks, dtype=np.int64)
    for t in range(n_blocks - 1, -1, -1):
        assign[t] = k
        k = choice[t, k]
    for g in range(1, k_all):
        t_first = -1
        for t in range(n_blocks):
            if assign[t] >= g:
                t_first = t
                break
        if t_first == -1:
            out[g - 1] = fs[n - 1] + margin
        elif t_first == 0:
            out[g - 1] = fs[0] - margin
        else:
            out[g - 1] = 0.5 * (fs[ends[t_first - 1]] + fs[ends[t_first - 1] + 1])
    return total


@numba.njit(cache=True, nogil=True)
def svor_sq_fun_grad(f, b, labels, c, g_f, g_b, mask):
    """The data term of the linear SVOR objective with the squared hinge,
    sum_i c_i sum_j max(0, r_ij)^2 with r_ij = 1 - s_ij (f_i - b_j), and
    its gradient in f (``g_f``, (n,)) and in b (``g_b``, (l,)), both
    overwritten; ``mask`` (n, l) receives r_ij > 0 (the generalised
    Hessian's pairs).  Returns (the data term, sum_ij c_i max(0, r_ij)):
    the latter is sum alpha at the dual point alpha_ij = c_i max(0, r_ij),
    whose u_i = sum_j s_ij alpha_ij and b(alpha)_j = -sum_i s_ij alpha_ij
    are -g_f / 2 and -g_b / 2.  O(n l)."""
    n = f.shape[0]
    l = b.shape[0]
    total = 0.0
    s1 = 0.0
    for j in range(l):
        g_b[j] = 0.0
    for i in range(n):
        gi = 0.0
        ci = c[i]
        for j in range(l):
            s = _svor_sign(labels[i], j)
            r = 1.0 - s * (f[i] - b[j])
            if r > 0.0 and ci > 0.0:
                mask[i, j] = True
                total += ci * r * r
                s1 += ci * r
                gi -= 2.0 * ci * r * s
                g_b[j] += 2.0 * ci * r * s
            else:
                mask[i, j] = False
        g_f[i] = gi
    return total, s1


@numba.njit(cache=True, nogil=True)
def svor_sq_hv(q, vb, c, mask, t, hb):
    """The data term's generalised Hessian times (v_w, v_b), given q = X v_w:
    t_i = 2 c_i sum_{j: mask} (q_i - vb_j) (then X' t is the w part) and
    hb_j = 2 sum_{i: mask} c_i (vb_j - q_i) (the b part); t (n,) and hb (l,)
    are overwritten.  O(n l)."""
    n = q.shape[0]
    l = vb.shape[0]
    for j in range(l):
        hb[j] = 0.0
    for i in range(n):
        ti = 0.0
        ci2 = 2.0 * c[i]
        for j in range(l):
            if mask[i, j]:
                d = ci2 * (q[i] - vb[j])
                ti += d
                hb[j] -= d
        t[i] = ti
    return 0.0
