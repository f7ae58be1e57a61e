"""Slow, obviously correct references that enumerate the preference pairs.

Used by the tests against the counting methods; also PRSVM's explicit form
(Eq. 2.6 of ``large-scale-linear-ranksvm.txt``): the p x l matrix A of
Sec. 2.2 is formed explicitly, so memory and time are O(p).  With document
weights ``sample_weight`` every pair (i, j) carries c_ij = s_i s_j (and
documents of weight 0 form no pair).
"""

from __future__ import annotations

import numpy as np

__all__ = ["preference_pairs", "pair_weights", "brute_force_fun", "brute_force_grad",
           "brute_force_hv", "brute_force_counts", "brute_force_l1"]


def preference_pairs(y, qid, adjacent: bool = False) -> np.ndarray:
    """All pairs (i, j) with q_i = q_j and y_i > y_j (Eq. 1.1), shape (p, 2).

    With ``adjacent``, only pairs whose levels are adjacent among the
    distinct values of their query (Sec. 5).

    Examples
    --------
    >>> preference_pairs(np.array([1.0, 0.0, 2.0]), np.array([1, 1, 2])).tolist()
    [[0, 1]]
    """
    y = np.asarray(y, dtype=np.float64)
    qid = np.asarray(qid)
    out = []
    for q in np.unique(qid):
        idx = np.flatnonzero(qid == q)
        yq = y[idx]
        vals = np.unique(yq)
        lev = np.searchsorted(vals, yq)
        diff = lev[:, None] - lev[None, :]
        mask = diff == 1 if adjacent else diff > 0
        a, b = np.nonzero(mask)
        out.append(np.column_stack([idx[a], idx[b]]))
    if not out:
        return np.zeros((0, 2), dtype=np.int64)
    return np.concatenate(out).astype(np.int64)


def pair_weights(pairs, sample_weight=None) -> np.ndarray:
    """c_ij = s_i s_j of every pair (ones without weights), shape (p,)."""
    if sample_weight is None:
        return np.ones(len(pairs))
    s = np.asarray(sample_weight, dtype=np.float64)
    return s[pairs[:, 0]] * s[pairs[:, 1]]


def _pairs(y, qid, adjacent, sample_weight):
    """The pairs of the documents of positive weight (weight 0 = absent)."""
    if sample_weight is None:
        return preference_pairs(y, qid, adjacent)
    keep = np.flatnonzero(np.asarray(sample_weight) > 0)
    return keep[preference_pairs(np.asarray(y)[keep], np.asarray(qid)[keep], adjacent)]


def _margins(X, w, pairs):
    z = np.asarray(X @ w).ravel()
    # the same floating-point expression as the kernels: 1 - z_i + z_j
    return 1.0 - z[pairs[:, 0]] + z[pairs[:, 1]]


def _diffs(X, pairs, n):
    return np.asarray(X[pairs[:, 0]] - X[pairs[:, 1]]) if pairs.size else np.zeros((0, n))


def brute_force_fun(X, y, qid, w, C, adjacent=False, sample_weight=None) -> float:
    """f(w) of Eq. 1.3 by summing c_ij max(0, 1 - w'(x_i - x_j))^2 over every pair."""
    pairs = _pairs(y, qid, adjacent, sample_weight)
    m = _margins(X, w, pairs)
    c = pair_weights(pairs, sample_weight)
    return 0.5 * float(w @ w) + C * float(np.sum(c * np.maximum(m, 0.0) ** 2))


def brute_force_grad(X, y, qid, w, C, adjacent=False, sample_weight=None) -> np.ndarray:
    """grad f(w) = w - 2C sum_P c_ij (x_i - x_j) max(0, 1 - w'(x_i - x_j)) (Eq. 2.4)."""
    pairs = _pairs(y, qid, adjacent, sample_weight)
    m = pair_weights(pairs, sample_weight) * np.maximum(_margins(X, w, pairs), 0.0)
    return w - 2.0 * C * (_diffs(X, pairs, w.size).T @ m)


def brute_force_hv(X, y, qid, w, v, C, adjacent=False, sample_weight=None) -> np.ndarray:
    """PRSVM's product v + 2C X'A'D_w A X v (Eq. 2.6) with A formed
    explicitly (rows scaled by c_ij)."""
    pairs = _pairs(y, qid, adjacent, sample_weight)
    d = _margins(X, w, pairs) > 0.0
    Xd = _diffs(X, pairs, w.size)[d]
    return v + 2.0 * C * (Xd.T @ (pair_weights(pairs, sample_weight)[d] * (Xd @ v)))


def brute_force_counts(X, y, qid, w, v=None, adjacent=False) -> dict:
    """l^+, l^-, gamma^+(w, v), gamma^-(w, v) of Sec. 2.2 by enumeration."""
    pairs = preference_pairs(y, qid, adjacent)
    z = np.asarray(X @ w).ravel()
    u = z if v is None else np.asarray(X @ v).ravel()
    sv = pairs[_margins(X, w, pairs) > 0.0]
    l = z.size
    lp = np.bincount(sv[:, 1], minlength=l).astype(np.int64)   # (j, i) in SV: j in SV_i^+
    lm = np.bincount(sv[:, 0], minlength=l).astype(np.int64)
    gp = np.bincount(sv[:, 1], weights=u[sv[:, 0]], minlength=l)
    gm = np.bincount(sv[:, 0], weights=u[sv[:, 1]], minlength=l)
    return {"lplus": lp, "lminus": lm, "gplus": gp, "gminus": gm}


def brute_force_l1(X, y, qid, w, C, sample_weight=None) -> float:
    """The L1-loss objective of Eq. 1.2 by summing c_ij max(0, 1 - w'(x_i - x_j))
    over every pair."""
    pairs = _pairs(y, qid, False, sample_weight)
    m = _margins(X, w, pairs)
    c = pair_weights(pairs, sample_weight)
    return 0.5 * float(w @ w) + C * float(np.sum(c * np.maximum(m, 0.0)))
