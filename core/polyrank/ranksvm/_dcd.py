"""numba kernels of dual coordinate descent for L1-loss RankSVM (Eq. 1.2).

The dual of Eq. 1.2 over the preference pairs p = (i, j) (y_i > y_j in one
query) is::

    max_alpha  sum_p alpha_p - 1/2 ||sum_p alpha_p (x_i - x_j)||^2
    s.t.       0 <= alpha_p <= U_p = C c_ij

the dual of the hinge-loss SVM on the pair differences x_i - x_j, solved
one alpha_p at a time as LIBLINEAR's ``solve_l2r_l1l2_svc`` does (Hsieh
et al., ICML 2008, Alg. 1 with its shrinking), with w = sum_p alpha_p
(x_i - x_j) kept up to date.  The differences are never stored: a step
reads rows i and j of X.  Rows come as ``(X, Xdata, Xind, Xptr)``, dense
or CSR (:mod:`polyrank._csr`).

Free ``@numba.njit(cache=True, nogil=True)`` functions over plain arrays.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from .._csr import row_axpy, row_dot

__all__ = ["PairArrays", "DcdIterate", "enumerate_pairs", "pair_sqnorms", "pair_coef",
           "shuffle_active", "dcd_epoch"]


class PairArrays(NamedTuple):
    """The preference pairs of one dual problem, one argument of
    :func:`dcd_epoch` (numba types a NamedTuple of arrays field by field;
    the kernel reads the fields once)."""

    I: np.ndarray              # int64 (p,): pair p prefers document I[p] ...
    J: np.ndarray              # int64 (p,): ... to document J[p]
    U: np.ndarray              # float64 (p,): upper bounds U_p = C c_ij
    Qd: np.ndarray             # float64 (p,): ||x_i - x_j||^2 (pair_sqnorms)
    D: np.ndarray              # float64 (p, n) stored x_i - x_j, or (0, 0): read X


class DcdIterate(NamedTuple):
    """The iterate of :func:`dcd_epoch`, one argument (all updated in place)."""

    alpha: np.ndarray          # float64 (p,): dual variables
    w: np.ndarray              # float64 (n,): sum_p alpha_p (x_i - x_j)
    active: np.ndarray         # int64 (p,): active pairs first (permuted)


@numba.njit(cache=True, nogil=True)
def enumerate_pairs(perm, start, level, sw):
    """The preference pairs of the grouped queries.

    Parameters
    ----------
    perm, start : int64 arrays
        Documents grouped by query (:class:`~polyrank.ranksvm.objective.QueryGroups`).
    level : int64 array, shape (l,)
        Dense relevance level of each document inside its query.
    sw : float64 array, shape (l,) or (0,)
        Document weights (empty: all ones).

    Returns
    -------
    I, J : int64 arrays, shape (p,)
        Pair p prefers document I[p] to J[p] (level[I] > level[J], same
        query), in query order, then by the position of I, then of J.
    c : float64 array, shape (p,)
        Pair weights c_ij = sw[i] sw[j] (ones without weights).
    """
    n = 0
    for q in range(start.size - 1):
        for a in range(start[q], start[q + 1]):
            la = level[perm[a]]
            for b in range(start[q], start[q + 1]):
                if la > level[perm[b]]:
                    n += 1
    I = np.empty(n, np.int64)
    J = np.empty(n, np.int64)
    c = np.ones(n)
    k = 0
    for q in range(start.size - 1):
        for a in range(start[q], start[q + 1]):
            i = perm[a]
            for b in range(start[q], start[q + 1]):
                j = perm[b]
                if level[i] > level[j]:
                    I[k] = i
                    J[k] = j
                    if sw.size:
                        c[k] = sw[i] * sw[j]
                    k += 1
    return I, J, c


@numba.njit(cache=True, nogil=True)
def pair_sqnorms(X, Xdata, Xind, Xptr, n_features, I, J):
    """Q_pp = ||x_i - x_j||^2 of every pair (the diagonal of the dual
    Hessian), through a dense scratch row for CSR input."""
    p = I.size
    out = np.empty(p)
    buf = np.zeros(n_features)
    for t in range(p):
        row_axpy(buf, 1.0, X, Xdata, Xind, Xptr, I[t])
        row_axpy(buf, -1.0, X, Xdata, Xind, Xptr, J[t])
        s = 0.0
        if X.shape[0] == 0:
            for u in range(Xptr[I[t]], Xptr[I[t] + 1]):
                s += buf[Xind[u]] * buf[Xind[u]]
                buf[Xind[u]] = 0.0
            for u in range(Xptr[J[t]], Xptr[J[t] + 1]):
                s += buf[Xind[u]] * buf[Xind[u]]
                buf[Xind[u]] = 0.0
        else:
            for f in range(n_features):
                s += buf[f] * buf[f]
                buf[f] = 0.0
        out[t] = s
    return out


@numba.njit(cache=True, nogil=True)
def pair_coef(I, J, alpha, n_docs):
    """Per-document coefficients r with X'r = sum_p alpha_p (x_i - x_j)."""
    r = np.zeros(n_docs)
    for t in range(I.size):
        r[I[t]] += alpha[t]
        r[J[t]] -= alpha[t]
    return r


@numba.njit(cache=True, nogil=True)
def shuffle_active(active, n_active, seed):
    """Permute ``active[:n_active]`` in place by Fisher-Yates with numba's
    generator seeded by ``seed`` (the pass order of :func:`dcd_epoch`)."""
    np.random.seed(seed)
    for t in range(n_active - 1, 0, -1):
        r = np.random.randint(0, t + 1)
        tmp = active[t]
        active[t] = active[r]
        active[r] = tmp


@numba.njit(cache=True, nogil=True)
def dcd_epoch(X, Xdata, Xind, Xptr, pairs, it, n_active, pg_max_old, pg_min_old, shrinking,
              seed):
    """One pass of dual coordinate descent over the active pairs, in a fresh
    random order (Hsieh et al. 2008, Alg. 1; LIBLINEAR's shrinking).

    A pair at a bound whose projected-gradient sign says it stays there
    (alpha_p = 0 with G > pg_max_old, or alpha_p = U_p with G < pg_min_old)
    leaves the active set (moved behind ``n_active`` in ``active``).

    Parameters
    ----------
    X, Xdata, Xind, Xptr : the rows of X (dense or CSR, see :mod:`polyrank._csr`)
    pairs : PairArrays
        ``I``, ``J`` (int64, (p,)): the pairs; ``U`` (float64, (p,)): the
        upper bounds; ``Qd`` (float64, (p,)): ||x_i - x_j||^2; ``D``
        (float64, (p, n) or (0, 0)): the pair differences x_i - x_j stored
        row by row (LIBLINEAR's layout: one dot product and one axpy per
        step instead of two each), or empty: read rows i and j of X.
    it : DcdIterate
        ``alpha`` (float64, (p,)) the dual variables and ``w`` (float64,
        (n,)) = sum_p alpha_p (x_i - x_j), updated in place; ``active``
        (int64, (p,)), permuted in place: its first ``n_active`` entries
        are the active pairs.
    pg_max_old, pg_min_old : float
        The previous pass's extreme projected gradients (+inf/-inf: no
        shrinking this pass).
    shrinking : bool
    seed : int
        Seed of the permutation.

    Returns
    -------
    n_active : int
        Active pairs after the pass.
    pg_max, pg_min : float
        Extreme projected gradients over the pairs visited.
    n_changed : int
        Pairs whose alpha changed.
    """
    I, J, U, Qd, D = pairs.I, pairs.J, pairs.U, pairs.Qd, pairs.D
    alpha, w, active = it.alpha, it.w, it.active
    shuffle_active(active, n_active, seed)
    pg_max = -np.inf
    pg_min = np.inf
    n_changed = 0
    s = 0
    while s < n_active:
        p = active[s]
        i = I[p]
        j = J[p]
        if D.shape[0]:
            G = np.dot(w, D[p]) - 1.0
        else:
            G = row_dot(w, X, Xdata, Xind, Xptr, i) - row_dot(w, X, Xdata, Xind, Xptr, j) - 1.0
        a = alpha[p]
        PG = 0.0
        if a == 0.0:
            if shrinking and G > pg_max_old:
                n_active -= 1
                active[s] = active[n_active]
                active[n_active] = p
                continue
            if G < 0.0:
                PG = G
        elif a == U[p]:
            if shrinking and G < pg_min_old:
                n_active -= 1
                active[s] = active[n_active]
                active[n_active] = p
                continue
            if G > 0.0:
                PG = G
        else:
            PG = G
        if PG > pg_max:
            pg_max = PG
        if PG < pg_min:
            pg_min = PG
        if PG != 0.0:
            if Qd[p] > 0.0:
                an = min(max(a - G / Qd[p], 0.0), U[p])
            else:                       # x_i = x_j: the dual is linear in alpha_p
                an = U[p] if G < 0.0 else 0.0
            d = an - a
            if d != 0.0:
                alpha[p] = an
                if D.shape[0]:
                    dp = D[p]
                    for f in range(w.size):
                        w[f] += d * dp[f]
                else:
                    row_axpy(w, d, X, Xdata, Xind, Xptr, i)
                    row_axpy(w, -d, X, Xdata, Xind, Xptr, j)
                n_changed += 1
        s += 1
    return n_active, pg_max, pg_min, n_changed
