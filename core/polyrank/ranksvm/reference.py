"""Slow, obviously correct references that enumerate the preference pairs.

Used by the tests against the counting methods; also PRSVM's explicit form
(Eq. 2.6 of ``large-scale-linear-ranksvm.txt``): the p x l matrix A of
Sec. 2.2 is formed explicitly, so memory and time are O(p).
"""

from __future__ import annotations

import numpy as np

__all__ = ["preference_pairs", "brute_force_fun", "brute_force_grad",
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


def _margins(X, w, pairs):
    z = np.asarray(X @ w).ravel()
    # the same floating-point expression as the kernels: 1 - z_i + z_j
    return 1.0 - z[pairs[:, 0]] + z[pairs[:, 1]]


def brute_force_fun(X, y, qid, w, C, adjacent=False) -> float:
    """f(w) of Eq. 1.3 by summing over every pair."""
    pairs = preference_pairs(y, qid, adjacent)
    m = _margins(X, w, pairs)
    return 0.5 * float(w @ w) + C * float(np.sum(np.maximum(m, 0.0) ** 2))


def brute_force_grad(X, y, qid, w, C, adjacent=False) -> np.ndarray:
    """grad f(w) = w - 2C sum_P (x_i - x_j) max(0, 1 - w'(x_i - x_j)) (Eq. 2.4)."""
    pairs = preference_pairs(y, qid, adjacent)
    m = np.maximum(_margins(X, w, pairs), 0.0)
    Xd = np.asarray(X[pairs[:, 0]] - X[pairs[:, 1]]) if pairs.size else np.zeros((0, w.size))
    return w - 2.0 * C * (Xd.T @ m)


def brute_force_hv(X, y, qid, w, v, C, adjacent=False) -> np.ndarray:
    """PRSVM's product v + 2C X'A'D_w A X v (Eq. 2.6) with A formed explicitly."""
    pairs = preference_pairs(y, qid, adjacent)
    d = _margins(X, w, pairs) > 0.0
    Xd = np.asarray(X[pairs[:, 0]] - X[pairs[:, 1]]) if pairs.size else np.zeros((0, w.size))
    return v + 2.0 * C * (Xd[d].T @ (Xd[d] @ v))


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


def brute_force_l1(X, y, qid, w, C) -> float:
    """The L1-loss objective of Eq. 1.2 by summing over every pair."""
    pairs = preference_pairs(y, qid)
    m = _margins(X, w, pairs)
    return 0.5 * float(w @ w) + C * float(np.sum(np.maximum(m, 0.0)))
