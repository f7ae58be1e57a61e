"""numba kernels of the row and column generation algorithms and of PRank.

Source: ``row-column-generation-ordinal.txt`` (Izunaga, Sato, Tatsumi and
Yamamoto, J. Oper. Res. Soc. Japan 58(4), 2015), Sec. 4, 5, 7, 8 and 10;
PRank: K. Crammer and Y. Singer, "Pranking with ranking", NIPS 14, 2002
(reference [2] of the paper).

:func:`dual_cd` solves the dual sub-problems of row and column generation
((H-bar(W)), (H~(W)), (S-bar(W)), (S~(W))) by warm-started SMO, with
:func:`rbf_columns` for the Gaussian kernel columns of the working set.

Every kernel is a free function over plain arrays (no jitclass, no Python
callbacks).  SVOR's kernels and the thresholds' dynamic programme live in
:mod:`polyrank.ordinal._svor_kernels` and are re-exported here.  Labels are
0..l (int64), thresholds are passed extended as ``thr = (p_0, p_1, ..., p_l,
p_{l+1}) = (-inf, p_1, ..., p_l, +inf)`` so that the constraints of an object
with label k read ``thr[k] + 1 <= f_i <= thr[k + 1] - 1`` (the paper's
convention p_0 = -inf, p_{l+1} = +inf, Sec. 3.1).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from .._sort import argsort_stable
from ._svor_kernels import (  # noqa: F401  (re-exported: polyrank warmup reads them here)
    LOSS_ABSOLUTE,
    LOSS_SQUARED,
    LOSS_ZERO_ONE,
    SvorArrays,
    dp_thresholds,
    svor_dual_terms,
    svor_loss,
    svor_pass_csr,
    svor_pass_dense,
    svor_pass_gram,
    svor_sq_fun_grad,
    svor_sq_hv,
)

#: kernel codes of :func:`kappa` (the names of :mod:`polyrank.kernels`)
LINEAR, RBF, POLY = 0, 1, 2


class PrankIterate(NamedTuple):
    """The model of PRank and its running sums, one argument of
    :func:`prank_epoch` and :func:`prank_epoch_csr` (all updated in place;
    numba types a NamedTuple of arrays field by field)."""

    alpha: np.ndarray          # float64 (n,): kernel expansion coefficients
    thr: np.ndarray            # float64 (l,): thresholds b_1..b_l
    support: np.ndarray        # int64 (n,): objects with alpha != 0 first
    alpha_acc: np.ndarray      # float64 (n,): step-weighted sum of alpha's updates
    thr_acc: np.ndarray        # float64 (l,): step-weighted sum of thr's updates


@numba.njit(cache=True, nogil=True)
def initial_working_set(scores, labels, n_labels, out):
    """The paper's initial working set W^0 (Sec. 10).

    For each label k the objects of N(k) with the lowest, the median and the
    highest score (the median of n(k) sorted scores is the one at position
    (n(k) - 1) // 2); duplicates (n(k) < 3) are listed once.

    Parameters
    ----------
    scores : float64 (n,)
        The initial scorer's values (the paper: x_1 + x_2).
    labels : int64 (n,)
        Labels in 0..n_labels-1; every label has at least one object.
    n_labels : int
        l + 1.
    out : int64 (>= 3 n_labels,)
        Receives the indices, label by label.

    Returns
    -------
    int
        The number of indices written to ``out``.
    """
    n = scores.shape[0]
    order = argsort_stable(scores)
    counts = np.zeros(n_labels, dtype=np.int64)
    for i in range(n):
        counts[labels[i]] += 1
    start = np.zeros(n_labels + 1, dtype=np.int64)
    for k in range(n_labels):
        start[k + 1] = start[k] + counts[k]
    sorted_by_label = np.empty(n, dtype=np.int64)
    fill = start[:n_labels].copy()
    for t in range(n):                       # stable: ascending score per label
        i = order[t]
        k = labels[i]
        sorted_by_label[fill[k]] = i
        fill[k] += 1
    m = 0
    for k in range(n_labels):
        c = counts[k]
        picks = (start[k], start[k] + (c - 1) // 2, start[k] + c - 1)
        last = -1
        for pos in picks:
            i = sorted_by_label[pos]
            if i != last:
                dup = False
                for t in range(m):
                    if out[t] == i:
                        dup = True
                if not dup:
                    out[m] = i
                    m += 1
            last = i
    return m


@numba.njit(cache=True, nogil=True)
def violations(f, labels, thr, in_w, v_lo, v_up):
    """Violations of the hard margin constraints outside the working set.

    For every object i not in W (``in_w[i] == False``)::

        v_lo[i] = 1 - f_i + p_{l_i}          (if l_i >= 1, else -inf)
        v_up[i] = 1 + f_i - p_{l_i + 1}      (if l_i <= l - 1, else -inf)

    the two quantities maximised in Sec. 10 ("we add the objects i and j
    ... such that i = argmax {1 - k_W^i' lambda_W + p_{l_i} > 0}, j = argmax
    {1 + k_W^i' lambda_W - p_{l_i+1} > 0}"); objects in W get -inf.
    A positive value is a violated constraint of Step 3 of the algorithms.

    Parameters
    ----------
    f : float64 (n,)
        Scores (x^i)' w, (k^i_W)' lambda_W or (k~^i_W)' lambda_W.
    labels : int64 (n,)
    thr : float64 (l + 2,)
        Extended thresholds (-inf, p_1, ..., p_l, +inf).
    in_w : bool (n,)
    v_lo, v_up : float64 (n,)
        Outputs.

    Returns
    -------
    (float, int)
        The largest violation over both sides (-inf if none applies) and the
        number of objects outside W with a positive violation.
    """
    n = f.shape[0]
    big = -np.inf
    count = 0
    for i in range(n):
        v_lo[i] = -np.inf
        v_up[i] = -np.inf
        if in_w[i]:
            continue
        k = labels[i]
        lo = thr[k]
        up = thr[k + 1]
        viol = False
        if lo > -np.inf:
            v_lo[i] = 1.0 - f[i] + lo
            if v_lo[i] > big:
                big = v_lo[i]
            if v_lo[i] > 0.0:
                viol = True
        if up < np.inf:
            v_up[i] = 1.0 + f[i] - up
            if v_up[i] > big:
                big = v_up[i]
            if v_up[i] > 0.0:
                viol = True
        if viol:
            count += 1
    return big, count


@numba.njit(cache=True, nogil=True)
def _top(v, q, tol, taken, out, m):
    """Append to ``out[m:]`` up to ``q`` indices with the largest ``v > tol``
    not yet ``taken`` (repeated arg-max: q is small). Returns the new m."""
    n = v.shape[0]
    for _ in range(q):
        best = -1
        best_v = tol
        for i in range(n):
            if not taken[i] and v[i] > best_v:
                best_v = v[i]
                best = i
        if best < 0:
            break
        taken[best] = True
        out[m] = best
        m += 1
    return m


@numba.njit(cache=True, nogil=True)
def select_violated(v_lo, v_up, add_per_iter, tol, out):
    """Choose Delta^nu of Step 5: at most ``add_per_iter`` objects.

    For ``add_per_iter >= 2`` the ceil(a/2) objects with the most violated
    lower constraints (1 - f_i + p_{l_i} > tol) and the floor(a/2) with the
    most violated upper constraints (1 + f_i - p_{l_i+1} > tol), distinct
    objects; for a = 2 these are the paper's i and j of Sec. 10.  For
    ``add_per_iter == 1`` the single object with the largest violation.

    Parameters
    ----------
    v_lo, v_up : float64 (n,)
        As computed by :func:`violations`.
    add_per_iter : int
        a >= 1.
    tol : float
        Violations <= tol count as satisfied.
    out : int64 (>= add_per_iter,)
        Receives the chosen indices.

    Returns
    -------
    int
        The number of chosen objects (0 iff no violation exceeds tol).
    """
    n = v_lo.shape[0]
    taken = np.zeros(n, dtype=np.bool_)
    if add_per_iter == 1:
        best = -1
        best_v = tol
        for i in range(n):
            v = max(v_lo[i], v_up[i])
            if v > best_v:
                best_v = v
                best = i
        if best < 0:
            return 0
        out[0] = best
        return 1
    m = _top(v_lo, (add_per_iter + 1) // 2, tol, taken, out, np.int64(0))
    m = _top(v_up, add_per_iter // 2, tol, taken, out, m)
    return m


@numba.njit(cache=True, nogil=True)
def select_columns(nu, in_w, q, tol, out, m):
    """Column pricing of the monotone variant (H~+) (Appendix A with the
    generation of Sec. 5): append to ``out[m:]`` up to ``q`` objects j not
    in W whose reduced cost ``nu_j < -tol`` (most negative first).
    Returns the new count."""
    n = nu.shape[0]
    for _ in range(q):
        best = -1
        best_v = -tol
        for j in range(n):
            if in_w[j]:
                continue
            dup = False
            for t in range(m):
                if out[t] == j:
                    dup = True
            if not dup and nu[j] < best_v:
                best_v = nu[j]
                best = j
        if best < 0:
            break
        out[m] = best
        m += 1
    return m


@numba.njit(cache=True, nogil=True)
def soft_slacks_weighted(f, labels, thr, c):
    """sum_i c_i (max(0, 1 - f_i + p_{l_i}) + max(0, 1 + f_i - p_{l_i+1})):
    the slack part of (S), (S-bar), (S~) with a penalty c_i per object (c
    times the sample weights) at fixed scores and thresholds, Sec. 6.1."""
    s = 0.0
    for i in range(f.shape[0]):
        k = labels[i]
        if thr[k] > -np.inf:
            s += c[i] * max(0.0, 1.0 - f[i] + thr[k])
        if thr[k + 1] < np.inf:
            s += c[i] * max(0.0, 1.0 + f[i] - thr[k + 1])
    return s


@numba.njit(cache=True, nogil=True)
def kappa(x, y, kind, gamma, degree, coef0):
    """One kernel value kappa(x, y), as :mod:`polyrank.kernels` defines it:
    x.y (LINEAR), exp(-gamma ||x - y||^2) (RBF), (gamma x.y + coef0)^degree
    (POLY).  The paper's Gaussian kernel exp(-||x - y||^2 / (2 sigma^2)) is
    gamma = 1 / (2 sigma^2); its polynomial kernel (1 + x.y)^d is gamma = 1,
    coef0 = 1, degree = d (Sec. 9)."""
    if kind == RBF:
        s = 0.0
        for t in range(x.shape[0]):
            d = x[t] - y[t]
            s += d * d
        return math.exp(-gamma * s)
    s = 0.0
    for t in range(x.shape[0]):
        s += x[t] * y[t]
    if kind == POLY:
        return (gamma * s + coef0) ** degree
    return s


@numba.njit(cache=True, nogil=True)
def _prank_step(f, label, thr, thr_acc, weight):
    """PRank's rule and update for one object of score f (Fig. 1 of Crammer &
    Singer): the prediction, the smallest r with f < b_{r+1}; on a mistake,
    for r = 1..l with y_r = +1 if label >= r else -1, tau_r = y_r where
    (f - b_r) y_r <= 0, b_r -= tau_r (in place) and thr_acc[r] -= weight *
    tau_r (the weighted sum of the updates that gives the averaged
    thresholds; weight 0 when not averaging).  Returns (prediction,
    sum_r tau_r); the sum is 0 when the prediction is right."""
    l = thr.shape[0]
    pred = l
    for r in range(l):
        if f < thr[r]:
            pred = r
            break
    if pred == label:
        return pred, 0.0
    tau_sum = 0.0
    for r in range(l):
        y = 1.0 if label >= r + 1 else -1.0
        if (f - thr[r]) * y <= 0.0:
            tau_sum += y
            thr[r] -= y
            thr_acc[r] -= weight * y
    return pred, tau_sum


@numba.njit(cache=True, nogil=True)
def prank_epoch(X, labels, order, it, n_support, step, average, kind, gamma, degree, coef0):
    """One pass of kernel PRank (Crammer & Singer, NIPS 2001, Fig. 1) over
    the objects in ``order``.

    The score is f(x) = sum_{j in support} alpha_j kappa(x^j, x); the
    prediction for labels 0..l is the smallest r with f(x) < b_{r+1}
    (b_{l+1} = +inf), i.e. rank r + 1 in the paper's 1-based ranks.  On a
    mistake, for r = 1..l with y_r = +1 if l_i >= r else -1: tau_r = y_r if
    (f - b_r) y_r <= 0 else 0; alpha_i += sum_r tau_r and b_r -= tau_r.

    Parameters
    ----------
    X : float64 (n, m)
    labels : int64 (n,)
    order : int64 (T,)
        Objects in the order they arrive.
    it : PrankIterate
        Updated in place: ``alpha`` (float64, (n,)), the kernel expansion
        coefficients; ``thr`` (float64, (l,)), the thresholds b_1..b_l;
        ``support`` (int64, (n,)), the objects with alpha != 0 so far, in
        ``support[:n_support]``; ``alpha_acc``, ``thr_acc`` (float64, (n,),
        (l,)), the sums of the updates weighted by their step, s * delta_s
        (when ``average``): the averaged model after T steps is
        ((T + 1) v - v_acc) / T for v = alpha, thr (Daume's trick for the
        averaged perceptron, as in Harrington, ICML 2003).
    n_support : int
    step : int
        Objects visited before this pass (over all passes).
    average : bool
        Accumulate alpha_acc and thr_acc.
    kind, gamma, degree, coef0
        See :func:`kappa`.

    Returns
    -------
    (int, int, float, bool, int)
        Mistakes in the pass, the new n_support, the sum of |l^_i - l_i|
        over the pass (the on-line rank loss), whether every score was
        finite (the pass stops at the first that is not: NaN or infinity
        from overflowing features) and the new step count.
    """
    alpha, thr, support, alpha_acc, thr_acc = (it.alpha, it.thr, it.support, it.alpha_acc,
                                               it.thr_acc)
    mistakes = 0
    loss = 0.0
    in_support = np.zeros(X.shape[0], dtype=np.bool_)
    for t in range(n_support):
        in_support[support[t]] = True
    for t in range(order.shape[0]):
        i = order[t]
        f = 0.0
        for s in range(n_support):
            j = support[s]
            f += alpha[j] * kappa(X[j], X[i], kind, gamma, degree, coef0)
        if not math.isfinite(f):
            return mistakes, n_support, loss, False, step
        step += 1
        weight = float(step) if average else 0.0
        pred, tau_sum = _prank_step(f, labels[i], thr, thr_acc, weight)
        if pred == labels[i]:
            continue
        mistakes += 1
        loss += abs(pred - labels[i])
        if tau_sum != 0.0:
            alpha[i] += tau_sum
            alpha_acc[i] += weight * tau_sum
            if not in_support[i]:
                in_support[i] = True
                support[n_support] = i
                n_support += 1
    return mistakes, n_support, loss, True, step


@numba.njit(cache=True, nogil=True)
def prank_epoch_csr(indptr, indices, data, labels, order, it, n_support, step, average, w):
    """One pass of linear PRank on CSR rows: :func:`prank_epoch` with
    kappa(x, y) = x.y, keeping w = sum_j alpha_j x^j (updated in place, (m,))
    so that a score costs one sparse row, not the support; ``it``: the
    :class:`PrankIterate`; returns what :func:`prank_epoch` returns."""
    alpha, thr, support, alpha_acc, thr_acc = (it.alpha, it.thr, it.support, it.alpha_acc,
                                               it.thr_acc)
    mistakes = 0
    loss = 0.0
    n = indptr.shape[0] - 1
    in_support = np.zeros(n, dtype=np.bool_)
    for t in range(n_support):
        in_support[support[t]] = True
    for t in range(order.shape[0]):
        i = order[t]
        f = 0.0
        for q in range(indptr[i], indptr[i + 1]):
            f += data[q] * w[indices[q]]
        if not math.isfinite(f):
            return mistakes, n_support, loss, False, step
        step += 1
        weight = float(step) if average else 0.0
        pred, tau_sum = _prank_step(f, labels[i], thr, thr_acc, weight)
        if pred == labels[i]:
            continue
        mistakes += 1
        loss += abs(pred - labels[i])
        if tau_sum != 0.0:
            alpha[i] += tau_sum
            alpha_acc[i] += weight * tau_sum
            for q in range(indptr[i], indptr[i + 1]):
                w[indices[q]] += tau_sum * data[q]
            if not in_support[i]:
                in_support[i] = True
                support[n_support] = i
                n_support += 1
    return mistakes, n_support, loss, True, step


@numba.njit(cache=True, nogil=True)
def prank_scores(X_support, alpha_support, Z, kind, gamma, degree, coef0):
    """Scores f(z) = sum_j alpha_j kappa(x^j, z) of PRank for every row of Z
    (kernel values computed on the fly, never stored)."""
    out = np.zeros(Z.shape[0])
    for i in range(Z.shape[0]):
        s = 0.0
        for j in range(X_support.shape[0]):
            s += alpha_support[j] * kappa(X_support[j], Z[i], kind, gamma,
                                          degree, coef0)
        out[i] = s
    return out


@numba.njit(cache=True, nogil=True, inline="always")
def _cd_group_extremes(lab, n_labels, cap, a, b, fW, gmax, gmin, imax):
    """One scan of :func:`dual_cd`'s variables (v < w: a_v, else b_{v-w}):
    per group k, gmax[k] = max over I_up of y - f (argmax imax[k], -1 if
    I_up is empty) and gmin[k] = min over I_low; returns the largest
    group's KKT gap gmax - gmin."""
    w = lab.shape[0]
    l = n_labels - 1
    for k in range(n_labels + 1):
        gmax[k] = -math.inf
        gmin[k] = math.inf
        imax[k] = -1
    for v in range(2 * w):
        if v < w:
            t = v
            k = lab[t]
            if k < 1:
                continue
            val = 1.0 - fW[t]
            if a[t] < cap[t]:
                if val > gmax[k]:
                    gmax[k] = val
                    imax[k] = v
            if a[t] > 0.0:
                if val < gmin[k]:
                    gmin[k] = val
        else:
            t = v - w
            k = lab[t] + 1
            if k > l:
                continue
            val = -1.0 - fW[t]
            if b[t] > 0.0:
                if val > gmax[k]:
                    gmax[k] = val
                    imax[k] = v
            if b[t] < cap[t]:
                if val < gmin[k]:
                    gmin[k] = val
    gap = 0.0
    for k in range(1, n_labels):
        if imax[k] >= 0 and gmin[k] < math.inf and gmax[k] - gmin[k] > gap:
            gap = gmax[k] - gmin[k]
    return gap


@numba.njit(cache=True, nogil=True, inline="always")
def _cd_second_order_choice(KW, lab, n_labels, cap, a, b, fW, gmax, imax, tau):
    """The j of :func:`dual_cd`'s pair (i = imax of j's group) by the second
    order rule of Fan, Chen and Lin (2005, WSS 2) over all groups: the
    largest decrease d^2 / curvature.  Returns (j, or -1 if no pair
    decreases the objective; its curvature (at least ``tau``); d)."""
    w = lab.shape[0]
    l = n_labels - 1
    best = -1
    best_score = math.inf
    best_a = 1.0
    best_d = 0.0
    for v in range(2 * w):
        if v < w:
            t = v
            k = lab[t]
            if k < 1 or not a[t] > 0.0:
                continue
            val = 1.0 - fW[t]
        else:
            t = v - w
            k = lab[t] + 1
            if k > l or not b[t] < cap[t]:
                continue
            val = -1.0 - fW[t]
        if imax[k] < 0:
            continue
        d = gmax[k] - val
        if d <= 0.0:
            continue
        vi = imax[k]
        ti = vi if vi < w else vi - w
        curv = 0.5 * (KW[ti, ti] + KW[t, t] - 2.0 * KW[ti, t])
        if curv <= tau:
            curv = tau
        score = -d * d / curv
        if score < best_score:
            best_score = score
            best = v
            best_a = curv
            best_d = d
    return best, best_a, best_d


# dual_cd's pieces, inlined into it (inline="always"): the split cost no
# speed and no bit (2026-12-08, the same 1,500-object rbf sub-problem, c = 1000,
# 59,218 pair steps, interleaved runs at load 17: 1,396 / 1,334 / 1,446 ms
# before, 1,374 / 1,347 / 1,400 ms after, identical (a, b, p))
@numba.njit(cache=True, nogil=True, inline="always")
def _cd_setup(KW, cap, w):
    """(max_t K_tt, whether every cap_t is finite) of :func:`dual_cd`'s problem."""
    kmax = 0.0
    for t in range(w):
        if KW[t, t] > kmax:
            kmax = KW[t, t]
    finite = True
    for t in range(w):
        if not cap[t] < math.inf:
            finite = False
    return kmax, finite


@numba.njit(cache=True, nogil=True, inline="always")
def _cd_scores(KW, a, b, lam, fW, recompute):
    """lambda = (a - b) / 2 into ``lam`` and, if ``recompute``, f = K_W lambda
    into ``fW`` from scratch; returns sum_t |lambda_t| (:func:`dual_cd`)."""
    w = lam.shape[0]
    suml = 0.0
    for t in range(w):
        lam[t] = 0.5 * (a[t] - b[t])
        suml += abs(lam[t])
    if recompute:
        for r in range(w):
            s = 0.0
            for t in range(w):
                s += KW[r, t] * lam[t]
            fW[r] = s
    return suml


@numba.njit(cache=True, nogil=True, inline="always")
def _cd_pair_step(KW, lab, cap, a, b, fW, vi, vj, curv, desc, tau):
    """One SMO step of :func:`dual_cd` on the pair (vi, vj) (variables 0..w-1
    are a, w..2w-1 are b) of one group: u_i += y_i t, u_j -= y_j t with t =
    desc / curv clipped to both bounds, and f updated by t/2 (K_W[:, i] -
    K_W[:, j]).  False (nothing changed) when the direction has no curvature
    and meets no bound: the sub-problem is unbounded."""
    w = lab.shape[0]
    tj = vj if vj < w else vj - w
    ti = vi if vi < w else vi - w
    step = desc / curv
    # bounds: i moves u_i += y_i t, j moves u_j -= y_j t
    lim_i = cap[ti] - a[ti] if vi < w else b[ti]
    lim_j = a[tj] if vj < w else cap[tj] - b[tj]
    hit_i = lim_i <= step
    if hit_i:
        step = lim_i
    hit_j = lim_j <= step
    if hit_j:
        step = lim_j
        hit_i = lim_i <= step
    if curv <= tau and not hit_i and not hit_j:
        return False
    if vi < w:
        a[ti] = cap[ti] if hit_i else a[ti] + step
    else:
        b[ti] = 0.0 if hit_i else b[ti] - step
    if vj < w:
        a[tj] = 0.0 if hit_j else a[tj] - step
    else:
        b[tj] = cap[tj] if hit_j else b[tj] + step
    h = 0.5 * step
    for r in range(w):
        fW[r] += h * (KW[r, ti] - KW[r, tj])
    return True


@numba.njit(cache=True, nogil=True)
def dual_cd(KW, lab, n_labels, cap, a, b, fW, f_given, eps, max_steps, p_out,
            gap_tol=-1.0):
    """Warm-started SMO on the fixed-margin dual of a sub-problem (H-bar(W)),
    (H~(W)), (S-bar(W)) or (S~(W)).

    The dual (Shashua & Levin, the paper's ref. [6]; the sub-problems of
    Sec. 5, 7 and 8) in minimisation form::

        min  1/4 (a - b)' K_W (a - b) - 1'(a + b)
        s.t. sum_{t: l_t = k} a_t = sum_{t: l_t = k-1} b_t       (k = 1..l)
             0 <= a_t, b_t <= cap_t        (cap_t = inf: hard margin)

    with a_t (b_t) the multiplier of the lower (upper) constraint of object t
    of W; a_t exists for l_t >= 1, b_t for l_t <= l - 1 (the others stay 0).
    Every variable belongs to one equality ("group" k: a_t with l_t = k, b_t
    with l_t = k - 1), so this is an SVM dual with l bias constraints:
    writing y = +1 for a, -1 for b, the gradient is y f_t - 1 with f = K_W
    lambda, lambda = (a - b) / 2, and a pair (i, j) of one group moved by
    u_i += y_i t, u_j -= y_j t keeps its equality and changes lambda by
    +t/2 at i's object and -t/2 at j's.  Pairs are chosen by the second
    order rule of Fan, Chen and Lin (JMLR 6, 2005) over all groups; the
    solve stops when every group's KKT gap max_{I_up} (y - f) - min_{I_low}
    (y - f) <= eps.  The thresholds are then recovered from the KKT
    conditions: p_k = f_t - 1 for a free a_t, f_t + 1 for a free b_t (their
    mean), else the middle of the interval the bounded ones allow.

    The working set only grows between sub-problems, so the previous (a, b)
    padded with zeros is feasible for the next one: the warm start.

    Parameters
    ----------
    KW : float64 (at least w, at least w), C-contiguous
        Kernel matrix of the working set (symmetric) in its leading w x w
        block; the rest is not read (the caller's buffer, whatever W's size:
        one array layout, one compiled specialisation).
    lab : int64 (w,)
        Labels of the objects of W.
    n_labels : int
        l + 1.
    cap : float64 (w,)
        Upper bounds c_t of a_t and b_t (``inf`` for the hard margin).
    a, b : float64 (w,)
        Feasible start, overwritten by the solution.
    fW : float64 (w,)
        f = K_W lambda at the start when ``f_given`` (the caller's scores of
        the previous sub-problem), else computed; overwritten by f at the
        solution (updated with every pair, not recomputed).
    f_given : bool
        Whether ``fW`` holds K_W lambda of the start (a, b).
    eps : float
        Tolerance on the KKT gap (units of f), raised to 1e-14 max_t K_tt
        sum_t |lambda_t| when f's rounding errors can be larger.
    max_steps : int
        Maximum number of pair updates.
    p_out : float64 (l,)
        Overwritten by the thresholds p_1..p_l.
    gap_tol : float
        If > 0 (and every cap finite), after the KKT gap is closed the
        duality gap itself is checked: while primal - dual > gap_tol
        max(1, |dual|) (large c: multipliers up to c), eps is divided by
        100 (at most 8 times, not below the rounding floor) and SMO goes on.

    Returns
    -------
    (int, int, float, float)
        status (0 converged, 1 max_steps reached, 2 unbounded direction: the
        hard margin sub-problem is infeasible), pair updates done, the final
        largest KKT gap, and the dual objective 1'(a + b) - lambda' K_W
        lambda (a lower bound on the sub-problem's optimum).
    """
    w = lab.shape[0]
    tau = 1e-12
    lam = np.empty(w)
    gmax = np.empty(n_labels + 1)
    gmin = np.empty(n_labels + 1)
    imax = np.empty(n_labels + 1, dtype=np.int64)
    steps = 0
    status = 1
    gap = math.inf
    kmax, finite = _cd_setup(KW, cap, w)
    rnd = 0
    tighten = 0
    dual = math.nan
    while True:
        # f = K_W lambda from scratch (no drift from the updates), unless given
        suml = _cd_scores(KW, a, b, lam, fW, rnd > 0 or not f_given)
        # f carries rounding of order 1e-16 sum_t |K_rt lambda_t| <= 1e-16
        # max_t K_tt sum_t |lambda_t| (K positive semidefinite), huge on barely
        # separable hard margin problems: no gap below 1e-14 of that bound
        eps_r = max(eps, 1e-14 * kmax * suml)
        while True:
            gap = _cd_group_extremes(lab, n_labels, cap, a, b, fW, gmax, gmin, imax)
            if gap <= eps_r or steps >= max_steps:
                break
            # second order choice of j (Fan, Chen, Lin 2005, WSS 2) over all groups
            best, best_a, best_d = _cd_second_order_choice(KW, lab, n_labels, cap, a, b,
                                                           fW, gmax, imax, tau)
            if best < 0:
                break
            if not _cd_pair_step(KW, lab, cap, a, b, fW, imax[lab[best] if best < w
                                                              else lab[best - w] + 1],
                                 best, best_a, best_d, tau):
                return 2, steps, gap, math.nan     # no curvature, no bound: unbounded
            steps += 1
        rnd += 1
        if gap <= eps_r:
            status = 0
            dual = _dual_cd_finish(lab, n_labels, cap, a, b, fW, p_out)
            if gap_tol > 0.0 and finite and tighten < 8 and eps > 1e-14 * kmax * suml:
                # the KKT gap bounds the duality gap only up to the size of
                # the multipliers (large c): check the gap itself
                primal = _sub_primal(lab, cap, a, b, fW, p_out)
                if primal - dual > gap_tol * max(1.0, abs(dual)):
                    eps *= 0.01
                    tighten += 1
                    status = 1
                    continue
            break
        if steps >= max_steps or rnd >= 3 + tighten:
            break
    if status != 0:
        dual = _dual_cd_finish(lab, n_labels, cap, a, b, fW, p_out)
    return status, steps, gap, dual


@numba.njit(cache=True, nogil=True)
def _sub_primal(lab, cap, a, b, fW, p):
    """The soft margin sub-problem's objective lambda' K_W lambda + sum_t
    cap_t (xi_-t + xi_+t) at lambda = (a - b) / 2 (f = K_W lambda given) and
    the thresholds p (Sec. 6.1, restricted to W)."""
    l = p.shape[0]
    tot = 0.0
    for t in range(lab.shape[0]):
        tot += 0.5 * (a[t] - b[t]) * fW[t]
        k = lab[t]
        if k >= 1:
            tot += cap[t] * max(0.0, 1.0 - fW[t] + p[k - 1])
        if k <= l - 1:
            tot += cap[t] * max(0.0, 1.0 + fW[t] - p[k])
    return tot


@numba.njit(cache=True, nogil=True)
def _dual_cd_finish(lab, n_labels, cap, a, b, fW, p_out):
    """The dual objective 1'(a + b) - lambda' K_W lambda (f = K_W lambda
    given) and the thresholds p_1..p_l from the KKT conditions (written to
    ``p_out``) of :func:`dual_cd`."""
    w = lab.shape[0]
    # the dual objective (f maintained by the updates)
    dual = 0.0
    for r in range(w):
        dual += a[r] + b[r] - 0.5 * (a[r] - b[r]) * fW[r]
    # thresholds from the KKT conditions
    for k in range(1, n_labels):
        tot = 0.0
        cnt = 0
        hi = math.inf        # p_k <= hi
        lo = -math.inf       # p_k >= lo
        for t in range(w):
            if not cap[t] > 0.0:       # zero penalty (sample weight 0): no condition
                continue
            if lab[t] == k:            # a_t: p_k = f_t - 1 when free
                val = fW[t] - 1.0
                if a[t] > 0.0 and a[t] < cap[t]:
                    tot += val
                    cnt += 1
                elif a[t] <= 0.0:
                    hi = min(hi, val)
                else:
                    lo = max(lo, val)
            if lab[t] == k - 1:        # b_t: p_k = f_t + 1 when free
                val = fW[t] + 1.0
                if b[t] > 0.0 and b[t] < cap[t]:
                    tot += val
                    cnt += 1
                elif b[t] <= 0.0:
                    lo = max(lo, val)
                else:
                    hi = min(hi, val)
        if cnt > 0:
            p_out[k - 1] = tot / cnt
        elif hi < math.inf and lo > -math.inf:
            p_out[k - 1] = 0.5 * (hi + lo)
        elif hi < math.inf:
            p_out[k - 1] = hi
        elif lo > -math.inf:
            p_out[k - 1] = lo
        else:                          # no weighted object bounds p_k
            p_out[k - 1] = 0.0
    return dual


@numba.njit(cache=True, nogil=True)
def rbf_columns(X, Y, gamma, out):
    """out[i, j] = exp(-gamma ||X[i] - Y[j]||^2), summed coordinate by
    coordinate (no ||x||^2 + ||y||^2 - 2 x.y cancellation): the kernel
    columns of the working set (Sec. 5, kernel values only for the columns
    lambda_W).

    Parameters
    ----------
    X : float64 (n, m)
    Y : float64 (r, m)
    gamma : float
    out : float64 (n, r)
        Overwritten.
    """
    n, m = X.shape
    r = Y.shape[0]
    for i in range(n):
        for j in range(r):
            s = 0.0
            for t in range(m):
                d = X[i, t] - Y[j, t]
                s += d * d
            out[i, j] = math.exp(-gamma * s)


# ------------------------------------------------------------------ SVOR
# Support vector ordinal regression with implicit constraints (SVORIM, Chu &
# Keerthi 2007, Sec. 3), the all-threshold loss: object i and threshold j
# (0-based, between labels j and j + 1) form the pair p = i * l + j with the
# sign s_ij = +1 if l_i > j else -1 and the margin s_ij (f_i - b_j).  The
# thresholds are bias features of value -1 (regularised, as LIBLINEAR's -B 1),
# so that the dual has box constraints only and is solved by dual coordinate
# descent (Hsieh et al., ICML 2008, Alg. 1 with shrinking).
