"""numba kernels of linear RankSVM (``large-scale-linear-ranksvm.txt``).

Free ``@numba.njit(cache=True, nogil=True)`` functions over plain arrays.  Queries are
grouped once (``perm``, ``start``): the documents of query ``q`` are
``perm[start[q]:start[q+1]]``; ``level[i]`` is the dense rank (0 .. k_q-1)
of ``y[i]`` among the distinct relevance values of its query, ``kq[q]`` the
number of such values.

For a vector ``z = X w`` (sorted once per ``w`` into ``order``) and a vector
``u = X v``, every counting kernel fills, for each document ``i``
(Sec. 2.2, definitions before Eq. 2.11)::

    SV_i^+ = {j : q_j = q_i, y_j > y_i, 1 - z_j + z_i > 0}
    SV_i^- = {j : q_j = q_i, y_j < y_i, 1 - z_i + z_j > 0}
    lplus[i] = |SV_i^+|,   gplus[i]  = sum_{j in SV_i^+} u_j   (gamma_i^+)
    lminus[i] = |SV_i^-|,  gminus[i] = sum_{j in SV_i^-} u_j   (gamma_i^-)

by one of four methods that give the same integers (and the same sums up
to rounding): the selection tree of Sec. 2.4 (keys in leaves, array
backed, O(l log k)), an order-statistic tree keyed by y of Sec. 2.3 (keys
in every node, Eq. 2.20, O(l log k)), the direct counting method of Sec.
2.2 (O(l k)) and PRSVM+ of Sec. 3.1 (one two-level problem per relevance
level, O(l k)).  The margin test is always the same floating-point
expression ``1 - z_pref + z_other > 0``, so the integer counts agree
exactly between methods.

Document weights ``sw`` (float64, shape (l,); all ones without weights):
a pair (i, j) weighs ``sw[i] * sw[j]`` (what duplicating documents does
to the pairs), the counts are weighted (``lplus[i] = sum_{j in SV_i^+}
sw[j]``, ``gplus[i] = sum_{j in SV_i^+} sw[j] u_j``, float64 arrays) and
the terms of Eq. 2.11-2.13 take a factor ``sw[i]``.  Weights are always an
array, so numba compiles each kernel once: with unit weights every product
``1.0 * x`` is exact and the counts are whole numbers held exactly in
float64, so the results equal those of integer counting bit for bit.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from .._sort import argsort_stable

# method codes used by the drivers
SELECTION_TREE = 0
Y_TREE = 1
DIRECT = 2
PRSVM_PLUS = 3
ADJACENT = 4          # partial pairs (Sec. 5): only adjacent relevance levels


@numba.njit(cache=True, nogil=True)
def sort_within_queries(z, perm, start):
    """Document indices sorted by query, then by ascending ``z`` inside each
    query (step 2 of Alg. 2; one O(l_q log l_q) sort per query)."""
    order = np.empty(perm.size, dtype=np.int64)
    for q in range(start.size - 1):
        s, e = start[q], start[q + 1]
        seg = perm[s:e]
        idx = argsort_stable(z[seg])
        for t in range(e - s):
            order[s + t] = seg[idx[t]]
    return order


@numba.njit(cache=True, nogil=True)
def query_levels(y, perm, start):
    """Dense relevance levels per query (done once, Sec. 2.5: the keys
    0 .. k_q-1 of the tree's leaves).

    Returns ``(level, kq, n_pairs, n_adjacent)``: ``level[i]`` the rank of
    ``y[i]`` among its query's distinct values, ``kq[q]`` their number, the
    number of preference pairs p (Eq. 1.1) and of adjacent-level pairs
    (Sec. 5)."""
    nq = start.size - 1
    level = np.empty(perm.size, dtype=np.int64)
    kq = np.empty(nq, dtype=np.int64)
    n_pairs = 0
    n_adj = 0
    for q in range(nq):
        s, e = start[q], start[q + 1]
        seg = perm[s:e]
        ys = y[seg]
        o = argsort_stable(ys)
        m = e - s
        cur = 0
        run = 0
        prev_run = 0
        same = 0
        for t in range(m):
            if t > 0 and ys[o[t]] != ys[o[t - 1]]:
                cur += 1
                same += run * run
                n_adj += run * prev_run
                prev_run = run
                run = 0
            run += 1
            level[seg[o[t]]] = cur
        same += run * run
        n_adj += run * prev_run
        kq[q] = cur + 1
        n_pairs += (m * m - same) // 2
    return level, kq, n_pairs, n_adj


class QueryArrays(NamedTuple):
    """The arrays of :class:`~polyrank.ranksvm.objective.QueryGroups` as one
    argument of the blocked kernels (numba types a NamedTuple field by
    field; reading a field costs nothing)."""

    perm: np.ndarray           # int64 (l,): documents ordered by query
    start: np.ndarray          # int64 (n_queries + 1,): query q is perm[start[q]:start[q+1]]
    level: np.ndarray          # int64 (l,): dense rank of y[i] within its query
    kq: np.ndarray             # int64 (n_queries,): k_q, the levels of each query


class PairCounts(NamedTuple):
    """l^+, l^-, gamma^+, gamma^- per document (filled by the counting, Alg. 2)
    and the document weights ``sw``, as one argument of the counting kernels
    (:func:`_selection_tree_query`, :func:`_ytree_query`,
    :func:`_direct_query`, :func:`_prsvm_plus_query`) and of the blocked
    kernels."""

    lplus: np.ndarray          # float64 (l,)
    lminus: np.ndarray         # float64 (l,)
    gplus: np.ndarray          # float64 (l,)
    gminus: np.ndarray         # float64 (l,)
    sw: np.ndarray             # float64 (l,): document weights (ones: unweighted)


@numba.njit(cache=True, nogil=True)
def _tree_insert(L, key, wj, wuj, size, xv):
    """Add weight ``wj`` and ``wuj`` to the leaf of level ``key`` of the
    selection tree and to all its ancestors (Sec. 2.4)."""
    node = L + key
    while node >= 1:
        size[node] += wj
        xv[node] += wuj
        node >>= 1


@numba.njit(cache=True, nogil=True)
def _selection_tree_query(z, u, order, s, e, level, L, size, xv, counts):
    """Alg. 2 with the selection tree of Sec. 2.4 for one query: leaves
    L .. L+k-1 hold (size, xv) of each relevance level; node m has parent
    m // 2; Larger / Smaller climb from a leaf adding right / left
    siblings.  Fills the query's entries of ``counts`` (:class:`PairCounts`,
    whose ``sw`` weighs the documents)."""
    lplus, lminus, gplus, gminus, sw = (counts.lplus, counts.lminus, counts.gplus,
                                        counts.gminus, counts.sw)
    for t in range(2 * L):
        size[t] = 0
        xv[t] = 0.0
    j = s
    for ii in range(s, e):                      # step 4: ascending z
        i = order[ii]
        zi = z[i]
        while j < e and 1.0 - z[order[j]] + zi > 0.0:
            jj = order[j]
            _tree_insert(L, level[jj], sw[jj], sw[jj] * u[jj], size, xv)
            j += 1
        node = L + level[i]
        c = 0.0
        g = 0.0
        while node > 1:                         # Larger(leaf of y_i)
            if (node & 1) == 0:
                c += size[node + 1]
                g += xv[node + 1]
            node >>= 1
        lplus[i] = c
        gplus[i] = g
    for t in range(2 * L):
        size[t] = 0
        xv[t] = 0.0
    j = e - 1
    for ii in range(e - 1, s - 1, -1):          # step 6: descending z
        i = order[ii]
        zi = z[i]
        while j >= s and 1.0 - zi + z[order[j]] > 0.0:
            jj = order[j]
            _tree_insert(L, level[jj], sw[jj], sw[jj] * u[jj], size, xv)
            j -= 1
        node = L + level[i]
        c = size[0]
        g = 0.0
        while node > 1:                         # Smaller(leaf of y_i)
            if (node & 1) == 1:
                c += size[node - 1]
                g += xv[node - 1]
            node >>= 1
        lminus[i] = c
        gminus[i] = g


@numba.njit(cache=True, nogil=True)
def _ytree_insert(k, key, wj, wuj, size, xv):
    """Insert (key, weight wj, wj * u_j) into the order-statistic tree keyed
    by y over the levels 0..k-1: node ``mid`` of the key range [lo, hi) has
    children ``(lo+mid)//2`` and ``(mid+1+hi)//2``; ``size``/``xv`` are
    subtree sums (Eq. 2.19, 2.22)."""
    lo = 0
    hi = k
    while lo < hi:
        mid = (lo + hi) >> 1
        size[mid] += wj
        xv[mid] += wuj
        if key == mid:
            return
        if key < mid:
            hi = mid
        else:
            lo = mid + 1


@numba.njit(cache=True, nogil=True)
def _ytree_larger(k, key, size, xv):
    """Larger(root, y_i) of Eq. 2.20, extended to xv (Eq. 2.21-2.22)."""
    lo = 0
    hi = k
    c = 0.0
    g = 0.0
    while lo < hi:
        mid = (lo + hi) >> 1
        if mid == key:                          # size(y's right child)
            if mid + 1 < hi:
                r = (mid + 1 + hi) >> 1
                c += size[r]
                g += xv[r]
            break
        if mid > key:                           # size(y) - size(left child)
            c += size[mid]
            g += xv[mid]
            if lo < mid:
                left = (lo + mid) >> 1
                c -= size[left]
                g -= xv[left]
            hi = mid
        else:
            lo = mid + 1
    return c, g


@numba.njit(cache=True, nogil=True)
def _ytree_smaller(k, key, size, xv):
    """Smaller(root, y_i): the mirror image of Eq. 2.20."""
    lo = 0
    hi = k
    c = 0.0
    g = 0.0
    while lo < hi:
        mid = (lo + hi) >> 1
        if mid == key:                          # size(y's left child)
            if lo < mid:
                left = (lo + mid) >> 1
                c += size[left]
                g += xv[left]
            break
        if mid < key:                           # size(y) - size(right child)
            c += size[mid]
            g += xv[mid]
            if mid + 1 < hi:
                r = (mid + 1 + hi) >> 1
                c -= size[r]
                g -= xv[r]
            lo = mid + 1
        else:
            hi = mid
    return c, g


@numba.njit(cache=True, nogil=True)
def _ytree_query(z, u, order, s, e, level, k, size, xv, counts):
    """Alg. 2 with the order-statistic tree keyed by y of Sec. 2.3
    (``counts``: :class:`PairCounts`, as :func:`_selection_tree_query`)."""
    lplus, lminus, gplus, gminus, sw = (counts.lplus, counts.lminus, counts.gplus,
                                        counts.gminus, counts.sw)
    for t in range(k + 1):
        size[t] = 0
        xv[t] = 0.0
    j = s
    for ii in range(s, e):
        i = order[ii]
        zi = z[i]
        while j < e and 1.0 - z[order[j]] + zi > 0.0:
            jj = order[j]
            _ytree_insert(k, level[jj], sw[jj], sw[jj] * u[jj], size, xv)
            j += 1
        c, g = _ytree_larger(k, level[i], size, xv)
        lplus[i] = c
        gplus[i] = g
    for t in range(k + 1):
        size[t] = 0
        xv[t] = 0.0
    j = e - 1
    for ii in range(e - 1, s - 1, -1):
        i = order[ii]
        zi = z[i]
        while j >= s and 1.0 - zi + z[order[j]] > 0.0:
            jj = order[j]
            _ytree_insert(k, level[jj], sw[jj], sw[jj] * u[jj], size, xv)
            j -= 1
        c, g = _ytree_smaller(k, level[i], size, xv)
        lminus[i] = c
        gminus[i] = g


@numba.njit(cache=True, nogil=True)
def _direct_query(z, u, order, s, e, level, k, cnt, sm, counts, adjacent):
    """The direct counting method (end of Sec. 2.2): per-level counts and
    sums of the inserted documents, O(k) per Larger/Smaller.  With
    ``adjacent`` only the next level up / down is counted (partial pairs,
    Sec. 5), O(1) per query.  ``counts``: :class:`PairCounts`, as
    :func:`_selection_tree_query`."""
    lplus, lminus, gplus, gminus, sw = (counts.lplus, counts.lminus, counts.gplus,
                                        counts.gminus, counts.sw)
    for t in range(k + 1):
        cnt[t] = 0
        sm[t] = 0.0
    j = s
    for ii in range(s, e):
        i = order[ii]
        zi = z[i]
        while j < e and 1.0 - z[order[j]] + zi > 0.0:
            jj = order[j]
            cnt[level[jj]] += sw[jj]
            sm[level[jj]] += sw[jj] * u[jj]
            j += 1
        c = 0.0
        g = 0.0
        if adjacent:
            if level[i] + 1 < k:
                c = cnt[level[i] + 1]
                g = sm[level[i] + 1]
        else:
            for r in range(level[i] + 1, k):
                c += cnt[r]
                g += sm[r]
        lplus[i] = c
        gplus[i] = g
    for t in range(k + 1):
        cnt[t] = 0
        sm[t] = 0.0
    j = e - 1
    for ii in range(e - 1, s - 1, -1):
        i = order[ii]
        zi = z[i]
        while j >= s and 1.0 - zi + z[order[j]] > 0.0:
            jj = order[j]
            cnt[level[jj]] += sw[jj]
            sm[level[jj]] += sw[jj] * u[jj]
            j -= 1
        c = cnt[k]
        g = 0.0
        if adjacent:
            if level[i] >= 1:
                c = cnt[level[i] - 1]
                g = sm[level[i] - 1]
        else:
            for r in range(level[i]):
                c += cnt[r]
                g += sm[r]
        lminus[i] = c
        gminus[i] = g


@numba.njit(cache=True, nogil=True)
def _prsvm_plus_query(z, u, order, s, e, level, k, counts):
    """PRSVM+ (Sec. 3.1): the loss split into k-1 two-level problems
    (level r against the levels > r), each done by the two-level sorted
    sweep of Chapelle & Keerthi; O(l_q) per level (Eq. 3.1-3.2).
    ``counts``: :class:`PairCounts`, as :func:`_selection_tree_query`."""
    lplus, lminus, gplus, gminus, sw = (counts.lplus, counts.lminus, counts.gplus,
                                        counts.gminus, counts.sw)
    for ii in range(s, e):
        i = order[ii]
        lminus[i] = 0
        gminus[i] = 0.0
    for r in range(k - 1):
        # low documents (level r): l^+ from the higher levels
        jp = s
        c = 0.0
        g = 0.0
        for ii in range(s, e):
            i = order[ii]
            if level[i] != r:
                continue
            zi = z[i]
            while jp < e and 1.0 - z[order[jp]] + zi > 0.0:
                jj = order[jp]
                if level[jj] > r:
                    c += sw[jj]
                    g += sw[jj] * u[jj]
                jp += 1
            lplus[i] = c
            gplus[i] = g
        # high documents (level > r): their l^- gains the level-r part
        jp = e - 1
        c = 0.0
        g = 0.0
        for ii in range(e - 1, s - 1, -1):
            i = order[ii]
            if level[i] <= r:
                continue
            zi = z[i]
            while jp >= s and 1.0 - zi + z[order[jp]] > 0.0:
                jj = order[jp]
                if level[jj] == r:
                    c += sw[jj]
                    g += sw[jj] * u[jj]
                jp -= 1
            lminus[i] += c
            gminus[i] += g
    # the top level has no higher level
    for ii in range(s, e):
        i = order[ii]
        if level[i] == k - 1:
            lplus[i] = 0
            gplus[i] = 0.0


@numba.njit(cache=True, nogil=True)
def _tree_size(kq):
    """The power of two L >= max_q k_q: the scratch arrays of the counting
    methods have 2L + 1 entries (the selection tree's nodes)."""
    kmax = np.int64(1)
    for q in range(kq.size):
        if kq[q] > kmax:
            kmax = kq[q]
    L = np.int64(1)
    while L < kmax:
        L *= 2
    return L


@numba.njit(cache=True, nogil=True)
def _count_queries(z, u, order, queries, method, q0, q1, isize, fsum, counts):
    """:func:`count_pairs` for the queries ``q0 .. q1-1`` only (the same
    dispatch, for the blocked kernels; :func:`count_pairs` keeps its own
    loop), with the scratch arrays ``isize``, ``fsum`` (2L + 1 entries, see
    :func:`_tree_size`); the documents of other queries are not touched.
    ``queries``: :class:`QueryArrays`; ``counts``: :class:`PairCounts`."""
    start, level, kq = queries.start, queries.level, queries.kq
    lplus, lminus, gplus, gminus = counts.lplus, counts.lminus, counts.gplus, counts.gminus
    for q in range(q0, q1):
        s, e = start[q], start[q + 1]
        k = kq[q]
        if k < 2:                               # no pairs in this query
            for ii in range(s, e):
                i = order[ii]
                lplus[i] = 0
                lminus[i] = 0
                gplus[i] = 0.0
                gminus[i] = 0.0
            continue
        if method == SELECTION_TREE:
            Lq = np.int64(1)                    # not a literal: one specialisation
            while Lq < k:
                Lq *= 2
            _selection_tree_query(z, u, order, s, e, level, Lq, isize, fsum, counts)
        elif method == Y_TREE:
            _ytree_query(z, u, order, s, e, level, k, isize, fsum, counts)
        elif method == DIRECT or method == ADJACENT:
            # a run-time flag, not a literal: one specialisation
            _direct_query(z, u, order, s, e, level, k, isize, fsum, counts,
                          method == ADJACENT)
        else:
            _prsvm_plus_query(z, u, order, s, e, level, k, counts)


@numba.njit(cache=True, nogil=True)
def count_pairs(z, u, order, start, level, kq, method,
                lplus, lminus, gplus, gminus, sw):
    """Fill ``lplus, lminus, gplus, gminus`` (length l, indexed by
    document) for all queries with the chosen method (see the module
    docstring).  ``sw``: document weights (ones: unweighted); ``lplus``
    and ``lminus`` are float64 arrays of (weighted) counts.  Returns nothing;
    O(l log k) for the trees, O(l k) for the direct method and PRSVM+."""
    counts = PairCounts(lplus, lminus, gplus, gminus, sw)
    kmax = 1
    for q in range(kq.size):
        if kq[q] > kmax:
            kmax = kq[q]
    L = 1
    while L < kmax:
        L *= 2
    isize = np.zeros(2 * L + 1)
    fsum = np.zeros(2 * L + 1, dtype=np.float64)
    for q in range(start.size - 1):
        s, e = start[q], start[q + 1]
        k = kq[q]
        if k < 2:                               # no pairs in this query
            for ii in range(s, e):
                i = order[ii]
                lplus[i] = 0
                lminus[i] = 0
                gplus[i] = 0.0
                gminus[i] = 0.0
            continue
        if method == SELECTION_TREE:
            Lq = np.int64(1)                    # not a literal: one specialisation
            while Lq < k:
                Lq *= 2
            _selection_tree_query(z, u, order, s, e, level, Lq, isize, fsum, counts)
        elif method == Y_TREE:
            _ytree_query(z, u, order, s, e, level, k, isize, fsum, counts)
        elif method == DIRECT or method == ADJACENT:
            # a run-time flag, not a literal: one specialisation
            _direct_query(z, u, order, s, e, level, k, isize, fsum, counts,
                          method == ADJACENT)
        else:
            _prsvm_plus_query(z, u, order, s, e, level, k, counts)


@numba.njit(cache=True, nogil=True)
def count_pairs_tree(z, u, order, start, level, kq, lplus, lminus, gplus, gminus, sw):
    """:func:`count_pairs` with the selection tree (``method`` =
    ``SELECTION_TREE``, the default), the same sums in the same order: a
    kernel of its own because :func:`count_pairs` compiles every method's
    query code (a third of RankSVM's default cold compile), which the other
    methods then compile on first use."""
    counts = PairCounts(lplus, lminus, gplus, gminus, sw)
    L = _tree_size(kq)
    isize = np.zeros(2 * L + 1)
    fsum = np.zeros(2 * L + 1, dtype=np.float64)
    for q in range(start.size - 1):
        s, e = start[q], start[q + 1]
        k = kq[q]
        if k < 2:                               # no pairs in this query
            for ii in range(s, e):
                i = order[ii]
                lplus[i] = 0
                lminus[i] = 0
                gplus[i] = 0.0
                gminus[i] = 0.0
            continue
        Lq = np.int64(1)                        # not a literal: one specialisation
        while Lq < k:
            Lq *= 2
        _selection_tree_query(z, u, order, s, e, level, Lq, isize, fsum, counts)


@numba.njit(cache=True, nogil=True)
def l2_terms(z, lplus, lminus, gplus, gminus, sw):
    """The L2-loss pieces of Eq. 2.11-2.13 at w (with u = z = Xw).

    Returns ``(r, loss, p_w, hinge)`` where ``r = A_w'A_w z - A_w'e_w``
    (length l; grad f = w + 2C X'r, Eq. 2.13), ``loss = z'(A_w'A_w z -
    2 A_w'e_w) + p_w`` (the sum of squared hinge losses, Eq. 2.12),
    ``p_w = sum_i l_i^+`` and ``hinge = p_w - z'A_w'e_w`` (the sum of the
    hinge losses 1 - w'(x_i - x_j) over SV(w)).  With weights ``sw`` every
    pair carries ``sw[i] sw[j]`` (the rows of A_w are scaled by its square
    root) and ``p_w`` is the weighted number of pairs in SV(w)."""
    l = z.size
    r = np.empty(l)
    quad = 0.0
    lin = 0.0
    pw = 0.0
    for i in range(l):
        a = (lplus[i] + lminus[i]) * z[i] - (gplus[i] + gminus[i])
        b = lminus[i] - lplus[i]
        a *= sw[i]
        b *= sw[i]
        pw += sw[i] * lplus[i]
        r[i] = a - b
        quad += z[i] * a
        lin += z[i] * b
    loss = quad - 2.0 * lin + pw
    return r, loss, pw, pw - lin


@numba.njit(cache=True, nogil=True)
def hv_terms(u, lplus, lminus, gplus, gminus, sw):
    """``(l_i^+ + l_i^-) u_i - (gamma_i^+ + gamma_i^-)`` (times ``sw[i]``
    with weights): the vector of Eq. 2.11 whose product with X' gives the
    Hessian-vector product (Eq. 2.9)."""
    l = u.size
    out = np.empty(l)
    for i in range(l):
        out[i] = ((lplus[i] + lminus[i]) * u[i] - (gplus[i] + gminus[i])) * sw[i]
    return out


@numba.njit(cache=True, nogil=True)
def dense_matvec(X, v):
    """X v for a C-contiguous dense X (one thread; O(l n))."""
    l, n = X.shape
    out = np.empty(l)
    for i in range(l):
        acc = 0.0
        for j in range(n):
            acc += X[i, j] * v[j]
        out[i] = acc
    return out


@numba.njit(cache=True, nogil=True)
def dense_rmatvec(X, r):
    """X' r accumulated instance by instance, the order of LIBLINEAR's
    ``XTv`` (one thread; O(l n))."""
    l, n = X.shape
    out = np.zeros(n)
    for i in range(l):
        ri = r[i]
        if ri != 0.0:
            for j in range(n):
                out[j] += ri * X[i, j]
    return out


@numba.njit(cache=True, nogil=True)
def csr_matvec(data, indices, indptr, v):
    """X v for X in CSR form (O(nnz))."""
    l = indptr.size - 1
    out = np.empty(l)
    for i in range(l):
        acc = 0.0
        for t in range(indptr[i], indptr[i + 1]):
            acc += data[t] * v[indices[t]]
        out[i] = acc
    return out


@numba.njit(cache=True, nogil=True)
def csr_rmatvec(data, indices, indptr, r, n):
    """X' r for X in CSR form, accumulated instance by instance (O(nnz))."""
    l = indptr.size - 1
    out = np.zeros(n)
    for i in range(l):
        ri = r[i]
        if ri != 0.0:
            for t in range(indptr[i], indptr[i + 1]):
                out[indices[t]] += ri * data[t]
    return out


# ------------------------------------------------------------ several threads
# The kernels below (``n_jobs`` of RankSVMObjective) run one pass of f or of
# a Hessian-vector product as loops over ranges of fixed blocks of whole
# queries, each range on its own thread (``objective._on_threads``; the
# blocks: ``blocks``, see ``objective.query_blocks``: they
# depend on the data only, never on the number of threads).  A block's
# documents (in ``perm`` order) get their X w or X v entries (the same dot
# products as above), their queries are sorted and counted by the code
# above (the same numbers), and the block's share of X'r and of the scalar
# sums is accumulated in a partial of its own while its rows are still in
# cache; the partials are then added in block order by one thread.  So
# every result is bitwise the same for every number of threads; it differs
# from the one-thread kernels above only by that grouping of the sums.


@numba.njit(cache=True, nogil=True)
def _dense_dots(X, v, perm, s0, s1, out):
    """``out[i] = x_i'v`` for the documents ``perm[s0:s1]`` (as
    :func:`dense_matvec`)."""
    n = X.shape[1]
    for ii in range(s0, s1):
        i = perm[ii]
        acc = 0.0
        for j in range(n):
            acc += X[i, j] * v[j]
        out[i] = acc


@numba.njit(cache=True, nogil=True)
def _csr_dots(data, indices, indptr, v, perm, s0, s1, out):
    """``out[i] = x_i'v`` for the documents ``perm[s0:s1]``, X in CSR form."""
    for ii in range(s0, s1):
        i = perm[ii]
        acc = 0.0
        for t in range(indptr[i], indptr[i + 1]):
            acc += data[t] * v[indices[t]]
        out[i] = acc


@numba.njit(cache=True, nogil=True)
def _dense_axpys(X, r, perm, s0, s1, acc):
    """``acc += sum_i r_i x_i`` over the documents ``perm[s0:s1]``, in that
    order (zero r_i skipped, as :func:`dense_rmatvec`)."""
    n = X.shape[1]
    for ii in range(s0, s1):
        i = perm[ii]
        ri = r[i]
        if ri != 0.0:
            for j in range(n):
                acc[j] += ri * X[i, j]


@numba.njit(cache=True, nogil=True)
def _csr_axpys(data, indices, indptr, r, perm, s0, s1, acc):
    """:func:`_dense_axpys` for X in CSR form."""
    for ii in range(s0, s1):
        i = perm[ii]
        ri = r[i]
        if ri != 0.0:
            for t in range(indptr[i], indptr[i + 1]):
                acc[indices[t]] += ri * data[t]


@numba.njit(cache=True, nogil=True)
def _sort_block(z, perm, start, q0, q1, order):
    """:func:`sort_within_queries` for the queries ``q0 .. q1-1``."""
    for q in range(q0, q1):
        s, e = start[q], start[q + 1]
        seg = perm[s:e]
        idx = argsort_stable(z[seg])
        for t in range(e - s):
            order[s + t] = seg[idx[t]]


@numba.njit(cache=True, nogil=True)
def _l2_block(z, lplus, lminus, gplus, gminus, sw, perm, s0, s1, r, sums):
    """:func:`l2_terms` for the documents ``perm[s0:s1]``: fills their
    ``r`` and adds their quadratic, linear and p_w terms to ``sums[0:3]``."""
    for ii in range(s0, s1):
        i = perm[ii]
        a = (lplus[i] + lminus[i]) * z[i] - (gplus[i] + gminus[i])
        b = lminus[i] - lplus[i]
        a *= sw[i]
        b *= sw[i]
        sums[2] += sw[i] * lplus[i]
        r[i] = a - b
        sums[0] += z[i] * a
        sums[1] += z[i] * b


@numba.njit(cache=True, nogil=True)
def _add_rows(part):
    """The rows of ``part`` added in row order (one thread)."""
    nb, n = part.shape
    out = np.zeros(n)
    for b in range(nb):
        for j in range(n):
            out[j] += part[b, j]
    return out


@numba.njit(cache=True, nogil=True)
def _fun_block(z, order, queries, method, q0, q1, L, counts, r, sums):
    """A block's share of f (with z already filled): sort its queries,
    count with u = z, and its terms of Eq. 2.11-2.12."""
    perm, start = queries.perm, queries.start
    _sort_block(z, perm, start, q0, q1, order)
    isize = np.zeros(2 * L + 1)
    fsum = np.zeros(2 * L + 1)
    _count_queries(z, z, order, queries, method, q0, q1, isize, fsum, counts)
    _l2_block(z, counts.lplus, counts.lminus, counts.gplus, counts.gminus, counts.sw, perm,
              start[q0], start[q1], r, sums)


@numba.njit(cache=True, nogil=True)
def _hv_block(z, u, order, queries, method, q0, q1, L, counts, t):
    """A block's share of H v (with u = X v already filled): count with
    gamma(w, v) and fill ``t`` (:func:`hv_terms`) for its documents."""
    isize = np.zeros(2 * L + 1)
    fsum = np.zeros(2 * L + 1)
    _count_queries(z, u, order, queries, method, q0, q1, isize, fsum, counts)
    perm, start = queries.perm, queries.start
    lplus, lminus, gplus, gminus, sw = (counts.lplus, counts.lminus, counts.gplus,
                                        counts.gminus, counts.sw)
    for ii in range(start[q0], start[q1]):
        i = perm[ii]
        t[i] = ((lplus[i] + lminus[i]) * u[i] - (gplus[i] + gminus[i])) * sw[i]


class FunBlocks(NamedTuple):
    """The outputs of one blocked pass of f (:func:`dense_fun_blocks`), one
    argument: every block writes the entries of its own documents in ``z``,
    ``order``, ``r`` and its own rows ``sums[b]`` (quadratic, linear and p_w
    sums of :func:`l2_terms`) and ``part[b]`` (its partial X'r)."""

    z: np.ndarray              # float64 (l,)
    order: np.ndarray          # int64 (l,)
    r: np.ndarray              # float64 (l,)
    sums: np.ndarray           # float64 (n_blocks, 3)
    part: np.ndarray           # float64 (n_blocks, n)


class HvBlocks(NamedTuple):
    """The inputs z, order (of the workspace at w) and the outputs u = X v,
    t (:func:`hv_terms`) and the blocks' partial X't of one blocked pass of
    H v (:func:`dense_hv_blocks`), one argument."""

    z: np.ndarray              # float64 (l,)
    order: np.ndarray          # int64 (l,)
    u: np.ndarray              # float64 (l,)
    t: np.ndarray              # float64 (l,)
    part: np.ndarray           # float64 (n_blocks, n)


# The blocked passes of ``n_jobs``: each kernel below runs the query blocks
# b0 .. b1-1 on the calling thread, without the GIL; the objective hands
# contiguous ranges of blocks to its threads and adds the blocks' partial
# sums in block order (:func:`_add_rows`).  Plain Python threads, not numba's
# parallel=True: the parfors lowering cost about 8 s of cold compile time for
# these six kernels and nothing at run time (issue 41).

@numba.njit(cache=True, nogil=True)
def dense_fun_blocks(X, w, queries, method, blocks, b0, b1, counts, out):
    """One pass of f at w over the query blocks ``b0 .. b1-1`` (dense X):
    z = X w, the sorted order, the counts, r (Eq. 2.11-2.13) and the blocks'
    partial sums and X'r into ``out`` (:class:`FunBlocks`); ``queries``:
    :class:`QueryArrays`, ``counts``: :class:`PairCounts`."""
    L = _tree_size(queries.kq)
    perm, start = queries.perm, queries.start
    for b in range(b0, b1):
        q0, q1 = blocks[b], blocks[b + 1]
        _dense_dots(X, w, perm, start[q0], start[q1], out.z)
        _fun_block(out.z, out.order, queries, method, q0, q1, L, counts, out.r, out.sums[b])
        _dense_axpys(X, out.r, perm, start[q0], start[q1], out.part[b])


@numba.njit(cache=True, nogil=True)
def csr_fun_blocks(data, indices, indptr, w, queries, method, blocks, b0, b1, counts, out):
    """:func:`dense_fun_blocks` for X in CSR form."""
    L = _tree_size(queries.kq)
    perm, start = queries.perm, queries.start
    for b in range(b0, b1):
        q0, q1 = blocks[b], blocks[b + 1]
        _csr_dots(data, indices, indptr, w, perm, start[q0], start[q1], out.z)
        _fun_block(out.z, out.order, queries, method, q0, q1, L, counts, out.r, out.sums[b])
        _csr_axpys(data, indices, indptr, out.r, perm, start[q0], start[q1], out.part[b])


@numba.njit(cache=True, nogil=True)
def dense_hv_blocks(X, v, queries, method, blocks, b0, b1, counts, arrs):
    """The blocks ``b0 .. b1-1``'s partials of X'((l^+ + l^-) u - (gamma^+ +
    gamma^-)) with u = X v (the data part of H v, Eq. 2.9, before the factor
    2C), dense X; ``arrs``: :class:`HvBlocks`."""
    L = _tree_size(queries.kq)
    perm, start = queries.perm, queries.start
    for b in range(b0, b1):
        q0, q1 = blocks[b], blocks[b + 1]
        _dense_dots(X, v, perm, start[q0], start[q1], arrs.u)
        _hv_block(arrs.z, arrs.u, arrs.order, queries, method, q0, q1, L, counts, arrs.t)
        _dense_axpys(X, arrs.t, perm, start[q0], start[q1], arrs.part[b])


@numba.njit(cache=True, nogil=True)
def csr_hv_blocks(data, indices, indptr, v, queries, method, blocks, b0, b1, counts, arrs):
    """:func:`dense_hv_blocks` for X in CSR form."""
    L = _tree_size(queries.kq)
    perm, start = queries.perm, queries.start
    for b in range(b0, b1):
        q0, q1 = blocks[b], blocks[b + 1]
        _csr_dots(data, indices, indptr, v, perm, start[q0], start[q1], arrs.u)
        _hv_block(arrs.z, arrs.u, arrs.order, queries, method, q0, q1, L, counts, arrs.t)
        _csr_axpys(data, indices, indptr, arrs.t, perm, start[q0], start[q1], arrs.part[b])


@numba.njit(cache=True, nogil=True)
def dense_rmatvec_blocks(X, r, perm, start, blocks, b0, b1, part):
    """The partial X'r of each query block ``b0 .. b1-1`` (its documents in
    ``perm`` order) into ``part[b]``."""
    for b in range(b0, b1):
        _dense_axpys(X, r, perm, start[blocks[b]], start[blocks[b + 1]], part[b])


@numba.njit(cache=True, nogil=True)
def csr_rmatvec_blocks(data, indices, indptr, r, perm, start, blocks, b0, b1, part):
    """:func:`dense_rmatvec_blocks` for X in CSR form."""
    for b in range(b0, b1):
        _csr_axpys(data, indices, indptr, r, perm, start[blocks[b]], start[blocks[b + 1]],
                   part[b])
