"""numba kernels of the ranking metrics of :mod:`polyrank.metrics`
(``large-scale-linear-ranksvm.txt``, Sec. 4.4, Eq. 4.5).

Free ``@numba.njit(cache=True, nogil=True)`` functions over plain arrays; documents of
query ``q`` are ``perm[start[q]:start[q+1]]``.  They live outside
:mod:`polyrank.ranksvm` so that the metrics do not depend on the solver
package (which uses them).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._sort import argsort_stable, heapsort_prefix

__all__ = ["pairwise_counts", "ndcg_kernel"]


@numba.njit(cache=True, nogil=True)
def _sum_run_squares(v, n):
    """sum_c count_c^2 over the runs of equal values of the sorted v[:n]."""
    tot = 0
    run = 1
    for t in range(1, n + 1):
        if t < n and v[t] == v[t - 1]:
            run += 1
        else:
            tot += run * run
            run = 1
    return tot


@numba.njit(cache=True, nogil=True)
def _levels_and_pairs(ys, lev):
    """The dense levels 0 .. k-1 of the values ``ys`` of one query into
    ``lev`` (ties share a level), and (k, the preference pairs (m^2 - sum_c
    count_c^2) / 2 among its m documents)."""
    m = ys.size
    yo = argsort_stable(ys)
    cur = 0
    for t in range(m):
        if t > 0 and ys[yo[t]] != ys[yo[t - 1]]:
            cur += 1
        lev[yo[t]] = cur
    srt = np.empty(m, dtype=np.int64)
    for t in range(m):
        srt[t] = lev[yo[t]]
    return cur + 1, (m * m - _sum_run_squares(srt, m)) // 2


@numba.njit(cache=True, nogil=True)
def pairwise_counts(y, s, perm, start):
    """Christensen's O(l log l) count (Sec. 4.4) with a selection tree.

    For every query, the number of preference pairs (y_i > y_j), of pairs
    ordered correctly (s_i > s_j) and of pairs with tied scores.  ``y`` and
    ``s`` are float arrays; documents of query q are
    ``perm[start[q]:start[q+1]]``.  Returns three int64 arrays of length
    n_queries: (pairs, correct, tied)."""
    nq = start.size - 1
    pairs = np.zeros(nq, dtype=np.int64)
    correct = np.zeros(nq, dtype=np.int64)
    tied = np.zeros(nq, dtype=np.int64)
    maxlen = 1
    for q in range(nq):
        if start[q + 1] - start[q] > maxlen:
            maxlen = start[q + 1] - start[q]
    L = 1
    while L < maxlen:
        L *= 2
    tree = np.zeros(2 * L, dtype=np.int64)
    grp = np.zeros(maxlen, dtype=np.int64)
    for q in range(nq):
        b, e = start[q], start[q + 1]
        m = e - b
        if m < 2:
            continue
        seg = perm[b:e]
        lev = np.empty(m, dtype=np.int64)
        k, pairs[q] = _levels_and_pairs(y[seg], lev)
        if k < 2:
            continue
        Lq = 1
        while Lq < k:
            Lq *= 2
        for t in range(2 * Lq):
            tree[t] = 0
        so = argsort_stable(s[seg])
        ss = s[seg]
        t = 0
        c_ok = 0
        c_tie = 0
        while t < m:
            # the group of equal scores so[t:t2]
            t2 = t + 1
            while t2 < m and ss[so[t2]] == ss[so[t]]:
                t2 += 1
            # concordant: earlier (strictly smaller score) with lower level
            for a in range(t, t2):
                node = Lq + lev[so[a]]
                while node > 1:
                    if (node & 1) == 1:
                        c_ok += tree[node - 1]
                    node >>= 1
            # tied scores with different levels inside the group
            g = t2 - t
            if g > 1:
                for a in range(g):
                    grp[a] = lev[so[t + a]]
                heapsort_prefix(grp, g)        # the levels of the group, sorted
                c_tie += (g * g - _sum_run_squares(grp, g)) // 2
            for a in range(t, t2):
                node = Lq + lev[so[a]]
                while node >= 1:
                    tree[node] += 1
                    node >>= 1
            t = t2
        correct[q] = c_ok
        tied[q] = c_tie
    return pairs, correct, tied


@numba.njit(cache=True, nogil=True)
def _gain(yv, top):
    """The gain 2^y - 1 of a relevance ``yv >= 0`` in a query whose largest
    relevance is ``top``: as is while 2^top is far from overflow (expm1
    below 1, where 2^y - 1 cancels), else divided by 2^top (the same factor
    for the whole query, which NDCG cancels)."""
    if top > 512.0:
        return 2.0 ** (yv - top) - 2.0 ** -top
    if yv >= 1.0:
        return 2.0 ** yv - 1.0
    return math.expm1(yv * math.log(2.0))


@numba.njit(cache=True, nogil=True)
def ndcg_kernel(y, s, perm, start, m, yahoo, mean_over_positions, no_relevant):
    """NDCG of every query (Eq. 4.5): gain 2^y - 1, discount 1/log2(max(2, i))
    (LETOR) or 1/log2(i + 1) (``yahoo``), ranking by descending score.

    Tied scores share their gains: every position of a group of equal
    scores gets the group's mean gain (the expected DCG over the orders of
    the tie; scikit-learn's ``_tie_averaged_dcg``), so the result does not
    depend on the order of the rows.  The gains stay finite for any finite
    y >= 0 (see :func:`_gain`; y >= 0 is checked by the caller).  ``m <= 0``
    means l_q; with ``mean_over_positions`` the per-query mean of
    NDCG@1..l_q.  A query with ideal DCG 0 gets ``no_relevant`` (NaN to
    skip it)."""
    nq = start.size - 1
    out = np.empty(nq)
    for q in range(nq):
        b, e = start[q], start[q + 1]
        lq = e - b
        seg = perm[b:e]
        ys = y[seg]
        top = ys.max()
        if top <= 0.0:                          # ideal DCG 0: no relevant document
            out[q] = no_relevant
            continue
        neg = np.empty(lq)
        for t in range(lq):
            neg[t] = -s[seg[t]]
        ranked = argsort_stable(neg)
        gain = np.empty(lq)                     # gains in ranked order, ties averaged
        t = 0
        while t < lq:
            t2 = t + 1
            while t2 < lq and neg[ranked[t2]] == neg[ranked[t]]:
                t2 += 1
            acc = 0.0
            for a in range(t, t2):
                acc += _gain(ys[ranked[a]], top)
            acc /= t2 - t
            for a in range(t, t2):
                gain[a] = acc
            t = t2
        ideal = ys.copy()                       # relevances, descending
        heapsort_prefix(ideal, lq)
        ideal = ideal[::-1]
        cut = lq if (m <= 0 or m > lq) else m
        dcg = 0.0
        idcg = 0.0
        acc = 0.0
        for t in range(lq):
            pos = t + 1.0
            if yahoo:
                d = 1.0 / np.log2(pos + 1.0)
            else:
                d = 1.0 / np.log2(max(2.0, pos))
            dcg += gain[t] * d
            idcg += _gain(ideal[t], top) * d
            if mean_over_positions:
                acc += dcg / idcg
            elif t + 1 == cut:
                break
        if mean_over_positions:
            out[q] = acc / lq
        else:
            out[q] = dcg / idcg
    return out
