"""Evaluation metrics of the papers that scikit-learn does not provide.

Each block below belongs to one paper and is independent of the others;
ROC AUC, Hamming loss and the other standard metrics come from
:mod:`sklearn.metrics`.

- :func:`pairwise_accuracy`, :func:`ndcg_at`, :func:`mean_ndcg`,
  :func:`ndcg_per_query`: learning to rank
  (``large-scale-linear-ranksvm.txt``, Sec. 4.4, Eq. 4.5).
- :func:`prbep`: precision-recall break-even point
  (``sign-constrained-sdca-pegasos.txt``, Sec. 6.1).
"""

from __future__ import annotations

import numpy as np

__all__ = ["pairwise_accuracy", "ndcg_at", "mean_ndcg", "ndcg_per_query", "prbep"]


# ------------------------------------------------------------------------
# Learning to rank: pairwise accuracy and NDCG
# (``large-scale-linear-ranksvm.txt``, Sec. 4.4, Eq. 4.5)
# ------------------------------------------------------------------------

_DISCOUNTS = ("letor", "yahoo")


def _check_rank_inputs(y_true, y_score, qid):
    from .ranksvm.objective import check_ranking_data
    from .validation import as_float_array

    y_score = as_float_array(y_score, "y_score", ndim=1)
    y_true, qid = check_ranking_data(y_true, qid, y_score.size)
    return y_true, y_score, qid


def _groups(qid):
    perm = np.argsort(qid, kind="stable").astype(np.int64)
    qs = qid[perm]
    cut = np.flatnonzero(np.diff(qs)) + 1
    start = np.concatenate([[0], cut, [qs.size]]).astype(np.int64)
    return perm, start


def pairwise_accuracy(y_true, y_score, qid, *, average: str = "pooled",
                      ties: str = "correct") -> float:
    """Fraction of preference pairs that the scores order correctly.

    Pairwise accuracy (Sec. 4.4 of ``large-scale-linear-ranksvm.txt``)::

        |{(i, j) in P : s_i > s_j}| / p,   P = {(i, j): q_i = q_j, y_i > y_j}

    computed per query in O(l_q log l_q) by Christensen's (2005) algorithm
    with a selection tree instead of an AVL tree (as the paper does):
    documents are swept in ascending score and, for each, the tree counts
    the earlier documents of lower relevance.

    Parameters
    ----------
    y_true : array_like, shape (l,)
        Relevance labels (ties in y form no pair).
    y_score : array_like, shape (l,)
        Predicted scores (larger = more relevant).
    qid : array_like of int, shape (l,)
        Query ids.
    average : {"pooled", "query"}, default "pooled"
        ``"pooled"``: correct pairs over all pairs of all queries (the
        paper's definition, dominated by queries with many pairs);
        ``"query"``: the mean over queries that have at least one pair of
        each query's accuracy.
    ties : {"correct", "incorrect", "half"}, default "correct"
        How a pair with ``y_i > y_j`` but equal scores counts:
        ``"correct"`` (s_i >= s_j counts, as LIBLINEAR-ranksvm's evaluation
        does), ``"incorrect"`` (strictly s_i > s_j, the paper's formula) or
        ``"half"`` (Kendall/concordance-index convention).

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    ValueError
        Lengths differ, NaN/inf, unknown ``average``/``ties``, or no
        preference pair at all.
    TypeError
        Non-integer qid.

    Examples
    --------
    >>> y = [2, 1, 0, 1, 0]; s = [0.9, 0.1, 0.5, 0.3, 0.3]; q = [1, 1, 1, 2, 2]
    >>> pairwise_accuracy(y, s, q)                       # 2 of 3, plus the tie
    0.75
    >>> pairwise_accuracy(y, s, q, ties="incorrect")
    0.5
    >>> pairwise_accuracy(y, s, q, average="query", ties="incorrect")
    0.3333333333333333
    """
    from .ranksvm._kernels import pairwise_counts

    if average not in ("pooled", "query"):
        raise ValueError(f"average: expected 'pooled' or 'query', got {average!r}")
    if ties not in ("correct", "incorrect", "half"):
        raise ValueError(f"ties: expected 'correct', 'incorrect' or 'half', got {ties!r}")
    y_true, y_score, qid = _check_rank_inputs(y_true, y_score, qid)
    perm, start = _groups(qid)
    pairs, correct, tied = pairwise_counts(y_true, y_score, perm, start)
    weight = {"correct": 1.0, "incorrect": 0.0, "half": 0.5}[ties]
    good = correct + weight * tied
    if pairs.sum() == 0:
        raise ValueError("y_true, qid: no preference pairs (every query has a "
                         "single relevance level)")
    if average == "pooled":
        return float(good.sum() / pairs.sum())
    has = pairs > 0
    return float(np.mean(good[has] / pairs[has]))


def _discount(m: int, discount: str) -> np.ndarray:
    i = np.arange(1, m + 1, dtype=np.float64)
    if discount == "letor":
        return 1.0 / np.log2(np.maximum(2.0, i))
    return 1.0 / np.log2(i + 1.0)


def _check_ndcg_options(discount, no_relevant):
    if discount not in _DISCOUNTS:
        raise ValueError(f"discount: expected one of {_DISCOUNTS}, got {discount!r}")
    if no_relevant not in ("zero", "one", "skip"):
        raise ValueError(f"no_relevant: expected 'zero', 'one' or 'skip', got {no_relevant!r}")


def ndcg_per_query(y_true, y_score, qid, m=None, *, discount: str = "letor",
                   no_relevant: str = "zero", mean_over_positions: bool = False):
    """NDCG of every query (Eq. 4.5); the building block of :func:`ndcg_at`
    and :func:`mean_ndcg`.

    Parameters
    ----------
    y_true, y_score, qid : array_like, shape (l,)
    m : int or None
        Cut-off (``min(m, l_q)`` per query); None: ``l_q``.  Ignored when
        ``mean_over_positions``.
    discount : {"letor", "yahoo"}
        d(i) = 1 / log2(max(2, i)) (LETOR 4.0, MSLR) or 1 / log2(i + 1)
        (Yahoo LTRC).
    no_relevant : {"zero", "one", "skip"}
        NDCG of a query whose ideal DCG is 0 (all labels 0): 0 (the LETOR
        evaluation script's convention), 1, or left out of the mean (NaN in
        the returned array).
    mean_over_positions : bool
        Return the per-query mean NDCG, sum_{i=1}^{l_q} NDCG@i / l_q.

    Returns
    -------
    qids : ndarray, shape (n_queries,)
    values : ndarray, shape (n_queries,)

    Notes
    -----
    Documents are ranked by descending score; equal scores keep the input
    order (a stable sort).  The gain is 2^y - 1.  Inside a query whose ideal
    DCG is positive, positions before the first relevant document of the
    ideal list cannot occur (it is sorted), so NDCG@i is always defined; the
    mean over positions follows liblinear-ranksvm's ``eval_list``.  Computed
    by a numba kernel, O(l_q log l_q) per query.
    """
    from .ranksvm._kernels import ndcg_kernel

    _check_ndcg_options(discount, no_relevant)
    y_true, y_score, qid = _check_rank_inputs(y_true, y_score, qid)
    perm, start = _groups(qid)
    fill = {"zero": 0.0, "one": 1.0, "skip": np.nan}[no_relevant]
    out = ndcg_kernel(y_true, y_score, perm, start, 0 if m is None else int(m),
                      discount == "yahoo", bool(mean_over_positions), fill)
    return qid[perm[start[:-1]]], out


def ndcg_at(y_true, y_score, qid, m: int = 10, *, discount: str = "letor",
            no_relevant: str = "zero") -> float:
    """NDCG@m of Eq. 4.5, averaged over queries.

    NDCG@m = N_m^{-1} sum_{i=1}^{m} (2^{y_pi'(i)} - 1) d(i), with N_m the
    same sum for an ideal ordering and m = min(m, l_q) per query (Yahoo's
    ``min(10, l_q)`` is ``m=10, discount="yahoo"``).

    Parameters
    ----------
    y_true, y_score, qid : array_like, shape (l,)
    m : int, default 10
        Cut-off (>= 1).
    discount, no_relevant
        See :func:`ndcg_per_query`.

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    ValueError
        m < 1, bad lengths, NaN, unknown options, or (with
        ``no_relevant="skip"``) no query with a relevant document.

    Examples
    --------
    One query, labels (2, 0, 1) ranked by the scores as (doc 0, doc 2, doc 1);
    LETOR discount d = (1, 1, 1/log2 3):

    >>> round(ndcg_at([2, 0, 1], [3.0, 1.0, 2.0], [1, 1, 1], m=3), 6)
    1.0
    >>> round(ndcg_at([2, 0, 1], [1.0, 3.0, 2.0], [1, 1, 1], m=2), 6)   # (0+1)/(3+1)
    0.25
    """
    from .validation import check_int

    m = check_int(m, "m", minimum=1)
    _, vals = ndcg_per_query(y_true, y_score, qid, m, discount=discount,
                             no_relevant=no_relevant)
    return _mean(vals)


def mean_ndcg(y_true, y_score, qid, *, discount: str = "letor",
              no_relevant: str = "zero") -> float:
    """Mean NDCG of LETOR 4.0 / MSLR (Sec. 4.4): sum_{i=1}^{l_q} NDCG@i / l_q
    per query, then the average over queries.

    Parameters
    ----------
    y_true, y_score, qid : array_like, shape (l,)
    discount, no_relevant
        See :func:`ndcg_per_query`.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> round(mean_ndcg([2, 0, 1], [1.0, 3.0, 2.0], [1, 1, 1]), 6)  # (0 + 1/4 + NDCG@3) / 3
    0.324399
    """
    _, vals = ndcg_per_query(y_true, y_score, qid, discount=discount,
                             no_relevant=no_relevant, mean_over_positions=True)
    return _mean(vals)


def _mean(vals) -> float:
    vals = vals[~np.isnan(vals)]
    if vals.size == 0:
        raise ValueError("y_true: no query has a relevant document (ideal DCG 0 "
                         "everywhere) and no_relevant='skip'")
    return float(vals.mean())


# ------------------------------------------------------------------ PRBEP
# sign-constrained-sdca-pegasos.txt, Sec. 6.1 (Joachims, ICML 2005)

def prbep(y_true, scores) -> float:
    """Precision-recall break-even point of a scoring.

    Ranks the examples by decreasing score and returns the precision of the
    top p, where p is the number of positives; there precision equals
    recall (Joachims, "A support vector method for multivariate performance
    measures", ICML 2005), the measure reported with the ROC score in
    Sec. 6.1 (Fig. 1) of ``sign-constrained-sdca-pegasos.txt``.  Scores tied
    at the cut-off count with their expected value under a random order of
    the tie (so the result does not depend on how ties are broken).

    Parameters
    ----------
    y_true : array_like, shape (n,)
        Binary labels: positives are ``y_true > 0`` (so {0, 1} and {-1, +1}
        both work).
    scores : array_like, shape (n,)
        Real scores, larger meaning more likely positive.

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    ValueError
        If the shapes differ, an input is empty or not finite, or there is
        no positive example.

    Examples
    --------
    >>> prbep([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1])
    0.5
    >>> prbep([1, 0, 1, 0], [0.9, 0.1, 0.7, 0.1])
    1.0
    """
    y = np.asarray(y_true)
    s = np.asarray(scores, dtype=np.float64)
    if y.ndim != 1 or s.shape != y.shape:
        raise ValueError(f"y_true, scores: expected two 1-d arrays of equal length, "
                         f"got shapes {y.shape} and {s.shape}")
    if y.size == 0:
        raise ValueError("y_true: must not be empty")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores: contains NaN or infinity")
    pos = np.asarray(y > 0)
    p = int(pos.sum())
    if p == 0:
        raise ValueError("y_true: PRBEP needs at least one positive example")
    t = np.sort(s)[::-1][p - 1]                 # the p-th largest score
    above = s > t
    tied = s == t
    k = int(above.sum())
    n_tied = int(tied.sum())
    hits = float(pos[above].sum()) + pos[tied].sum() * (p - k) / n_tied
    return float(hits / p)
