"""numba kernels of linear RankSVM (``large-scale-linear-ranksvm.txt``).

Free ``@numba.njit(cache=True)`` functions over plain arrays.  Queries are
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
"""

from __future__ import annotations

import numba
import numpy as np

# method codes used by the drivers
SELECTION_TREE = 0
Y_TREE = 1
DIRECT = 2
PRSVM_PLUS = 3
ADJACENT = 4          # partial pairs (Sec. 5): only adjacent relevance levels


@numba.njit(cache=True)
def sort_within_queries(z, perm, start):
    """Document indices sorted by query, then by ascending ``z`` inside each
    query (step 2 of Alg. 2; one O(l_q log l_q) sort per query)."""
    order = np.empty(perm.size, dtype=np.int64)
    for q in range(start.size - 1):
        s, e = start[q], start[q + 1]
        seg = perm[s:e]
        idx = np.argsort(z[seg], kind="mergesort")
        for t in range(e - s):
            order[s + t] = seg[idx[t]]
    return order


@numba.njit(cache=True)
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
        o = np.argsort(ys, kind="mergesort")
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


@numba.njit(cache=True)
def _selection_tree_query(z, u, order, s, e, level, L, size, xv,
                          lplus, lminus, gplus, gminus):
    """Alg. 2 with the selection tree of Sec. 2.4 for one query: leaves
    L .. L+k-1 hold (size, xv) of each relevance level; node m has parent
    m // 2; Larger / Smaller climb from a leaf adding right / left
    siblings."""
    for t in range(2 * L):
        size[t] = 0
        xv[t] = 0.0
    j = s
    for ii in range(s, e):                      # step 4: ascending z
        i = order[ii]
        zi = z[i]
        while j < e and 1.0 - z[order[j]] + zi > 0.0:
            jj = order[j]
            node = L + level[jj]
            uj = u[jj]
            while node >= 1:
                size[node] += 1
                xv[node] += uj
                node >>= 1
            j += 1
        node = L + level[i]
        c = 0
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
            node = L + level[jj]
            uj = u[jj]
            while node >= 1:
                size[node] += 1
                xv[node] += uj
                node >>= 1
            j -= 1
        node = L + level[i]
        c = 0
        g = 0.0
        while node > 1:                         # Smaller(leaf of y_i)
            if (node & 1) == 1:
                c += size[node - 1]
                g += xv[node - 1]
            node >>= 1
        lminus[i] = c
        gminus[i] = g


@numba.njit(cache=True)
def _ytree_insert(k, key, uj, size, xv):
    """Insert (key, uj) into the order-statistic tree keyed by y over the
    levels 0..k-1: node ``mid`` of the key range [lo, hi) has children
    ``(lo+mid)//2`` and ``(mid+1+hi)//2``; ``size``/``xv`` are subtree sums
    (Eq. 2.19, 2.22)."""
    lo = 0
    hi = k
    while lo < hi:
        mid = (lo + hi) >> 1
        size[mid] += 1
        xv[mid] += uj
        if key == mid:
            return
        if key < mid:
            hi = mid
        else:
            lo = mid + 1


@numba.njit(cache=True)
def _ytree_larger(k, key, size, xv):
    """Larger(root, y_i) of Eq. 2.20, extended to xv (Eq. 2.21-2.22)."""
    lo = 0
    hi = k
    c = 0
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


@numba.njit(cache=True)
def _ytree_smaller(k, key, size, xv):
    """Smaller(root, y_i): the mirror image of Eq. 2.20."""
    lo = 0
    hi = k
    c = 0
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


@numba.njit(cache=True)
def _ytree_query(z, u, order, s, e, level, k, size, xv,
                 lplus, lminus, gplus, gminus):
    """Alg. 2 with the order-statistic tree keyed by y of Sec. 2.3."""
    for t in range(k):
        size[t] = 0
        xv[t] = 0.0
    j = s
    for ii in range(s, e):
        i = order[ii]
        zi = z[i]
        while j < e and 1.0 - z[order[j]] + zi > 0.0:
            jj = order[j]
            _ytree_insert(k, level[jj], u[jj], size, xv)
            j += 1
        c, g = _ytree_larger(k, level[i], size, xv)
        lplus[i] = c
        gplus[i] = g
    for t in range(k):
        size[t] = 0
        xv[t] = 0.0
    j = e - 1
    for ii in range(e - 1, s - 1, -1):
        i = order[ii]
        zi = z[i]
        while j >= s and 1.0 - zi + z[order[j]] > 0.0:
            jj = order[j]
            _ytree_insert(k, level[jj], u[jj], size, xv)
            j -= 1
        c, g = _ytree_smaller(k, level[i], size, xv)
        lminus[i] = c
        gminus[i] = g


@numba.njit(cache=True)
def _direct_query(z, u, order, s, e, level, k, cnt, sm,
                  lplus, lminus, gplus, gminus, adjacent):
    """The direct counting method (end of Sec. 2.2): per-level counts and
    sums of the inserted documents, O(k) per Larger/Smaller.  With
    ``adjacent`` only the next level up / down is counted (partial pairs,
    Sec. 5), O(1) per query."""
    for t in range(k):
        cnt[t] = 0
        sm[t] = 0.0
    j = s
    for ii in range(s, e):
        i = order[ii]
        zi = z[i]
        while j < e and 1.0 - z[order[j]] + zi > 0.0:
            jj = order[j]
            cnt[level[jj]] += 1
            sm[level[jj]] += u[jj]
            j += 1
        c = 0
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
    for t in range(k):
        cnt[t] = 0
        sm[t] = 0.0
    j = e - 1
    for ii in range(e - 1, s - 1, -1):
        i = order[ii]
        zi = z[i]
        while j >= s and 1.0 - zi + z[order[j]] > 0.0:
            jj = order[j]
            cnt[level[jj]] += 1
            sm[level[jj]] += u[jj]
            j -= 1
        c = 0
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


@numba.njit(cache=True)
def _prsvm_plus_query(z, u, order, s, e, level, k,
                      lplus, lminus, gplus, gminus):
    """PRSVM+ (Sec. 3.1): the loss split into k-1 two-level problems
    (level r against the levels > r), each done by the two-level sorted
    sweep of Chapelle & Keerthi; O(l_q) per level (Eq. 3.1-3.2)."""
    for ii in range(s, e):
        i = order[ii]
        lminus[i] = 0
        gminus[i] = 0.0
    for r in range(k - 1):
        # low documents (level r): l^+ from the higher levels
        jp = s
        c = 0
        g = 0.0
        for ii in range(s, e):
            i = order[ii]
            if level[i] != r:
                continue
            zi = z[i]
            while jp < e and 1.0 - z[order[jp]] + zi > 0.0:
                jj = order[jp]
                if level[jj] > r:
                    c += 1
                    g += u[jj]
                jp += 1
            lplus[i] = c
            gplus[i] = g
        # high documents (level > r): their l^- gains the level-r part
        jp = e - 1
        c = 0
        g = 0.0
        for ii in range(e - 1, s - 1, -1):
            i = order[ii]
            if level[i] <= r:
                continue
            zi = z[i]
            while jp >= s and 1.0 - zi + z[order[jp]] > 0.0:
                jj = order[jp]
                if level[jj] == r:
                    c += 1
                    g += u[jj]
                jp -= 1
            lminus[i] += c
            gminus[i] += g
    # the top level has no higher level
    for ii in range(s, e):
        i = order[ii]
        if level[i] == k - 1:
            lplus[i] = 0
            gplus[i] = 0.0


@numba.njit(cache=True)
def count_pairs(z, u, order, start, level, kq, method,
                lplus, lminus, gplus, gminus):
    """Fill ``lplus, lminus, gplus, gminus`` (length l, indexed by
    document) for all queries with the chosen method (see the module
    docstring).  Returns nothing; O(l log k) for the trees, O(l k) for the
    direct method and PRSVM+."""
    kmax = 1
    for q in range(kq.size):
        if kq[q] > kmax:
            kmax = kq[q]
    L = 1
    while L < kmax:
        L *= 2
    isize = np.zeros(2 * L, dtype=np.int64)
    fsum = np.zeros(2 * L, dtype=np.float64)
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
            Lq = 1
            while Lq < k:
                Lq *= 2
            _selection_tree_query(z, u, order, s, e, level, Lq, isize, fsum,
                                  lplus, lminus, gplus, gminus)
        elif method == Y_TREE:
            _ytree_query(z, u, order, s, e, level, k, isize, fsum,
                         lplus, lminus, gplus, gminus)
        elif method == DIRECT:
            _direct_query(z, u, order, s, e, level, k, isize, fsum,
                          lplus, lminus, gplus, gminus, False)
        elif method == ADJACENT:
            _direct_query(z, u, order, s, e, level, k, isize, fsum,
                          lplus, lminus, gplus, gminus, True)
        else:
            _prsvm_plus_query(z, u, order, s, e, level, k,
                              lplus, lminus, gplus, gminus)


@numba.njit(cache=True)
def l2_terms(z, lplus, lminus, gplus, gminus):
    """The L2-loss pieces of Eq. 2.11-2.13 at w (with u = z = Xw).

    Returns ``(r, loss, p_w, hinge)`` where ``r = A_w'A_w z - A_w'e_w``
    (length l; grad f = w + 2C X'r, Eq. 2.13), ``loss = z'(A_w'A_w z -
    2 A_w'e_w) + p_w`` (the sum of squared hinge losses, Eq. 2.12),
    ``p_w = sum_i l_i^+`` and ``hinge = p_w - z'A_w'e_w`` (the sum of the
    hinge losses 1 - w'(x_i - x_j) over SV(w))."""
    l = z.size
    r = np.empty(l)
    quad = 0.0
    lin = 0.0
    pw = 0
    for i in range(l):
        a = (lplus[i] + lminus[i]) * z[i] - (gplus[i] + gminus[i])
        b = lminus[i] - lplus[i]
        r[i] = a - b
        quad += z[i] * a
        lin += z[i] * b
        pw += lplus[i]
    loss = quad - 2.0 * lin + pw
    return r, loss, pw, pw - lin


@numba.njit(cache=True)
def hv_terms(u, lplus, lminus, gplus, gminus):
    """``(l_i^+ + l_i^-) u_i - (gamma_i^+ + gamma_i^-)``: the vector of Eq.
    2.11 whose product with X' gives the Hessian-vector product (Eq. 2.9)."""
    l = u.size
    out = np.empty(l)
    for i in range(l):
        out[i] = (lplus[i] + lminus[i]) * u[i] - (gplus[i] + gminus[i])
    return out


@numba.njit(cache=True)
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
        # dense levels of y inside the query
        ys = y[seg]
        yo = np.argsort(ys, kind="mergesort")
        lev = np.empty(m, dtype=np.int64)
        cur = 0
        for t in range(m):
            if t > 0 and ys[yo[t]] != ys[yo[t - 1]]:
                cur += 1
            lev[yo[t]] = cur
        k = cur + 1
        # pairs = (m^2 - sum_c count_c^2) / 2
        tot = 0
        run = 1
        for t in range(1, m + 1):
            if t < m and lev[yo[t]] == lev[yo[t - 1]]:
                run += 1
            else:
                tot += run * run
                run = 1
        pairs[q] = (m * m - tot) // 2
        if k < 2:
            continue
        Lq = 1
        while Lq < k:
            Lq *= 2
        for t in range(2 * Lq):
            tree[t] = 0
        so = np.argsort(s[seg], kind="mergesort")
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
                gs = np.sort(grp[:g])
                same = 0
                run = 1
                for a in range(1, g + 1):
                    if a < g and gs[a] == gs[a - 1]:
                        run += 1
                    else:
                        same += run * run
                        run = 1
                c_tie += (g * g - same) // 2
            for a in range(t, t2):
                node = Lq + lev[so[a]]
                while node >= 1:
                    tree[node] += 1
                    node >>= 1
            t = t2
        correct[q] = c_ok
        tied[q] = c_tie
    return pairs, correct, tied


@numba.njit(cache=True)
def ndcg_kernel(y, s, perm, start, m, yahoo, mean_over_positions, no_relevant):
    """NDCG of every query (Eq. 4.5): gain 2^y - 1, discount 1/log2(max(2, i))
    (LETOR) or 1/log2(i + 1) (``yahoo``); ranking by descending score with
    equal scores in input order (stable).  ``m <= 0`` means l_q; with
    ``mean_over_positions`` the per-query mean of NDCG@1..l_q.  A query with
    ideal DCG 0 gets ``no_relevant`` (NaN to skip it)."""
    nq = start.size - 1
    out = np.empty(nq)
    for q in range(nq):
        b, e = start[q], start[q + 1]
        lq = e - b
        seg = perm[b:e]
        ys = y[seg]
        neg = np.empty(lq)
        for t in range(lq):
            neg[t] = -s[seg[t]]
        ranked = np.argsort(neg, kind="mergesort")
        ideal = np.sort(ys)[::-1]
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
            dcg += (2.0 ** ys[ranked[t]] - 1.0) * d
            idcg += (2.0 ** ideal[t] - 1.0) * d
            if mean_over_positions:
                acc += dcg / idcg if idcg > 0 else 0.0
            elif t + 1 == cut:
                break
        if 2.0 ** ideal[0] - 1.0 <= 0:         # ideal DCG 0: no relevant document
            out[q] = no_relevant
        elif mean_over_positions:
            out[q] = acc / lq
        else:
            out[q] = dcg / idcg
    return out


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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
