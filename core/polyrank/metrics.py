"""Evaluation metrics of the papers that scikit-learn does not provide.

Each block below belongs to one paper and is independent of the others;
ROC AUC, Hamming loss and the other standard metrics come from
:mod:`sklearn.metrics`.

- :func:`pairwise_accuracy`, :func:`ndcg_at`, :func:`mean_ndcg`,
  :func:`ndcg_per_query`: learning to rank
  (``large-scale-linear-ranksvm.txt``, Sec. 4.4, Eq. 4.5), and the
  scikit-learn scorers :func:`ndcg_scorer`, :func:`pairwise_accuracy_scorer`
  that receive ``qid`` through metadata routing.
- :func:`prbep`: precision-recall break-even point
  (``sign-constrained-sdca-pegasos.txt``, Sec. 6.1).
"""

from __future__ import annotations

import numpy as np
import sklearn
from sklearn.metrics import make_scorer

from ._ranking_kernels import ndcg_kernel, pairwise_counts
from .validation import as_float_array, check_int, check_query_ids

__all__ = ["pairwise_accuracy", "ndcg_at", "mean_ndcg", "ndcg_per_query", "prbep",
           "ndcg_scorer", "pairwise_accuracy_scorer"]


# ------------------------------------------------------------------------
# Learning to rank: pairwise accuracy and NDCG
# (``large-scale-linear-ranksvm.txt``, Sec. 4.4, Eq. 4.5)
# ------------------------------------------------------------------------

_DISCOUNTS = ("letor", "yahoo")


def _check_rank_inputs(y_true, y_score, qid, relevance: bool = False):
    y_score = as_float_array(y_score, "y_score", ndim=1)
    y_true = as_float_array(y_true, "y_true", ndim=1)
    if y_true.size != y_score.size:
        raise ValueError(f"y_true: expected length {y_score.size} (one per score), "
                         f"got {y_true.size}")
    if relevance and y_true.min() < 0:
        raise ValueError(f"y_true: NDCG needs relevance labels >= 0 (gain 2^y - 1), got "
                         f"{y_true.min():g}; shift or re-code the labels")
    return y_true, y_score, check_query_ids(qid, y_score.size, per="entry of y_score")


def _groups(qid):
    perm = np.argsort(qid, kind="stable").astype(np.int64)
    qs = qid[perm]
    cut = np.flatnonzero(np.diff(qs)) + 1
    start = np.concatenate([[0], cut, [qs.size]]).astype(np.int64)
    return perm, start


def _check_pairwise_options(average, ties):
    if average not in ("pooled", "query"):
        raise ValueError(f"average: expected 'pooled' or 'query', got {average!r}")
    if ties not in ("correct", "incorrect", "half"):
        raise ValueError(f"ties: expected 'correct', 'incorrect' or 'half', got {ties!r}")


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
        The fraction of pairs ordered correctly (by ``average`` and ``ties``).

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
    _check_pairwise_options(average, ties)
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

    Raises
    ------
    ValueError
        Lengths differ, NaN/inf, a negative relevance label (the gain
        2^y - 1 would be negative), unknown options.
    TypeError
        Non-integer qid.

    Notes
    -----
    Documents are ranked by descending score.  Tied scores follow the
    LETOR / :func:`sklearn.metrics.ndcg_score` convention: every position
    of a group of equal scores gets the group's mean gain (the expected DCG
    over all orders of the tie), so the value does not depend on the order
    of the rows; a constant scorer gets the NDCG of a random order.  The
    gain is 2^y - 1 (computed without overflow for any finite y >= 0).
    Inside a query whose ideal DCG is positive, positions before the first
    relevant document of the ideal list cannot occur (it is sorted), so
    NDCG@i is always defined; the mean over positions follows
    liblinear-ranksvm's ``eval_list``.  With ``discount="yahoo"`` and
    ``2**y - 1`` passed as ``y_true``, the NDCG@m of one query is
    ``sklearn.metrics.ndcg_score([2**y - 1], [score], k=m)``.  Computed by a
    numba kernel, O(l_q log l_q) per query.
    """
    _check_ndcg_options(discount, no_relevant)
    y_true, y_score, qid = _check_rank_inputs(y_true, y_score, qid, relevance=True)
    perm, start = _groups(qid)
    fill = {"zero": 0.0, "one": 1.0, "skip": np.nan}[no_relevant]
    out = ndcg_kernel(y_true, y_score, perm, start, 0 if m is None else int(m),
                      discount == "yahoo", bool(mean_over_positions), fill)
    return qid[perm[start[:-1]]], out


def ndcg_at(y_true, y_score, qid, m: int = 10, *, discount: str = "letor",
            no_relevant: str = "zero", sample_weight=None) -> float:
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
    sample_weight : array_like, shape (l,), optional
        Query weights, given per row (constant inside a query, as XGBoost's
        ranking weights, in the row-aligned form that scikit-learn's
        metadata routing splits into folds): the result is the weighted
        mean over queries.

    Returns
    -------
    float in [0, 1]
        The (weighted) mean over queries of NDCG@min(m, l_q).

    Raises
    ------
    ValueError
        m < 1, bad lengths, NaN, a negative label, unknown options, weights
        that differ inside a query or are negative, or (with
        ``no_relevant="skip"``) no query with a relevant document.

    Notes
    -----
    Tied scores share their gains (the LETOR / scikit-learn convention, see
    :func:`ndcg_per_query`): a constant scorer gets the same value for
    every order of the rows.

    Examples
    --------
    One query, labels (2, 0, 1) ranked by the scores as (doc 0, doc 2, doc 1);
    LETOR discount d = (1, 1, 1/log2 3):

    >>> round(ndcg_at([2, 0, 1], [3.0, 1.0, 2.0], [1, 1, 1], m=3), 6)
    1.0
    >>> round(ndcg_at([2, 0, 1], [1.0, 3.0, 2.0], [1, 1, 1], m=2), 6)   # (0+1)/(3+1)
    0.25
    """
    m = check_int(m, "m", minimum=1)
    _, vals = ndcg_per_query(y_true, y_score, qid, m, discount=discount,
                             no_relevant=no_relevant)
    return _mean(vals, _query_weights(sample_weight, qid))


def mean_ndcg(y_true, y_score, qid, *, discount: str = "letor",
              no_relevant: str = "zero", sample_weight=None) -> float:
    """Mean NDCG of LETOR 4.0 / MSLR (Sec. 4.4): sum_{i=1}^{l_q} NDCG@i / l_q
    per query, then the average over queries.

    Parameters
    ----------
    y_true, y_score, qid : array_like, shape (l,)
    discount, no_relevant
        See :func:`ndcg_per_query`.
    sample_weight : array_like, shape (l,), optional
        Query weights given per row, see :func:`ndcg_at`.

    Returns
    -------
    float in [0, 1]
        The (weighted) mean over queries of the mean of NDCG@1 .. NDCG@l_q.

    Raises
    ------
    ValueError
        As :func:`ndcg_at`; weights that differ inside a query or are
        negative.

    Notes
    -----
    Tied scores share their gains (see :func:`ndcg_per_query`).  This is
    :meth:`polyrank.RankSVM.score`.

    Examples
    --------
    >>> round(mean_ndcg([2, 0, 1], [1.0, 3.0, 2.0], [1, 1, 1]), 6)  # (0 + 1/4 + NDCG@3) / 3
    0.324399
    >>> round(mean_ndcg([2, 0, 1], [0.0, 0.0, 0.0], [1, 1, 1]), 6)   # a tie: mean gain 4/3
    0.662696
    """
    _, vals = ndcg_per_query(y_true, y_score, qid, discount=discount,
                             no_relevant=no_relevant, mean_over_positions=True)
    return _mean(vals, _query_weights(sample_weight, qid))


def _query_weights(sample_weight, qid):
    """One weight per query (in the order of :func:`ndcg_per_query`) from
    row weights that are constant inside each query; None stays None."""
    if sample_weight is None:
        return None
    qid = check_query_ids(qid, np.size(qid))
    sw = as_float_array(sample_weight, "sample_weight", ndim=1, shape=(qid.size,))
    if sw.min() < 0:
        raise ValueError(f"sample_weight: weights must be >= 0, got {sw.min():g}")
    perm, start = _groups(qid)
    first = sw[perm[start[:-1]]]
    if not np.array_equal(np.repeat(first, np.diff(start)), sw[perm]):
        raise ValueError("sample_weight: NDCG weighs queries; the weights must be "
                         "equal for all rows of a query")
    return first


def _mean(vals, weights=None) -> float:
    keep = ~np.isnan(vals)
    if not keep.any():
        raise ValueError("y_true: no query has a relevant document (ideal DCG 0 "
                         "everywhere) and no_relevant='skip'")
    if weights is None:
        return float(vals[keep].mean())
    if weights[keep].sum() <= 0:
        raise ValueError("sample_weight: the scored queries have total weight 0")
    return float(np.average(vals[keep], weights=weights[keep]))


# ------------------------------------------------------------------ scorers
# scikit-learn scorers that receive qid through metadata routing

def _need_qid(qid, name):
    if qid is None:
        raise ValueError(
            f"qid: {name} needs the query ids of the rows it scores and got none "
            "(without them every fold would be scored as one query). Enable metadata "
            "routing (sklearn.set_config(enable_metadata_routing=True)), let the ranker "
            "receive qid too (RankSVM().set_fit_request(qid=True)) and pass qid with the "
            "data, e.g. cross_validate(..., params={'qid': qid, 'groups': qid}) or "
            "GridSearchCV(...).fit(X, y, qid=qid, groups=qid)")
    return qid


def _ndcg_at_k(y_true, y_pred, *, qid=None, k=10, discount="letor", no_relevant="zero"):
    return ndcg_at(y_true, y_pred, _need_qid(qid, "ndcg_scorer"), k, discount=discount,
                   no_relevant=no_relevant)


def _pairwise_accuracy(y_true, y_pred, *, qid=None, average="pooled", ties="correct"):
    return pairwise_accuracy(y_true, y_pred, _need_qid(qid, "pairwise_accuracy_scorer"),
                             average=average, ties=ties)


def _routed_scorer(func, name, **kwargs):
    if not sklearn.get_config()["enable_metadata_routing"]:
        raise RuntimeError(
            f"{name}: a ranking scorer receives qid through scikit-learn's metadata "
            "routing; call sklearn.set_config(enable_metadata_routing=True) first")
    return make_scorer(func, response_method="predict", **kwargs).set_score_request(qid=True)


def ndcg_scorer(k: int = 10, *, discount: str = "letor", no_relevant: str = "zero"):
    """A scikit-learn scorer of the mean NDCG@k over queries (:func:`ndcg_at`)
    that requests ``qid``, for ``scoring=`` in ``GridSearchCV`` and
    ``cross_validate``.

    Built as ``sklearn.metrics.make_scorer(..., response_method="predict")
    .set_score_request(qid=True)``: the estimator's ``predict`` gives the
    scores, and scikit-learn's metadata routing hands the scorer the query
    ids of the rows it scores.

    Parameters
    ----------
    k : int, default 10
        Cut-off (>= 1), ``m`` of :func:`ndcg_at`.
    discount, no_relevant
        See :func:`ndcg_per_query`.

    Returns
    -------
    sklearn scorer
        ``scorer(estimator, X, y, qid=qid)``; raises ValueError if called
        without ``qid`` (one query per fold would be a silent error).

    Raises
    ------
    RuntimeError
        If metadata routing is not enabled
        (``sklearn.set_config(enable_metadata_routing=True)``).
    ValueError
        k < 1 or unknown options.

    Examples
    --------
    >>> import numpy as np, sklearn
    >>> from sklearn.model_selection import GroupKFold, cross_validate
    >>> from polyrank import RankSVM
    >>> from polyrank.metrics import ndcg_scorer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); qid = np.repeat(np.arange(6), 10)
    >>> y = (X @ [1.0, -1.0, 0.0] > 0).astype(int) + (X[:, 0] > 1)
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     model = RankSVM().set_fit_request(qid=True)
    ...     cv = cross_validate(model, X, y, params={"qid": qid, "groups": qid},
    ...                         cv=GroupKFold(3), scoring=ndcg_scorer(k=5))
    >>> bool(cv["test_score"].min() > 0.8)
    True
    """
    k = check_int(k, "k", minimum=1)
    _check_ndcg_options(discount, no_relevant)
    return _routed_scorer(_ndcg_at_k, "ndcg_scorer", k=k, discount=discount,
                          no_relevant=no_relevant)


def pairwise_accuracy_scorer(*, average: str = "pooled", ties: str = "correct"):
    """A scikit-learn scorer of :func:`pairwise_accuracy` that requests
    ``qid`` (see :func:`ndcg_scorer` for how it is built and used).

    Parameters
    ----------
    average, ties
        See :func:`pairwise_accuracy`.

    Returns
    -------
    sklearn scorer
        Pairwise accuracy, larger is better: ``scorer(estimator, X, y,
        qid=qid)``; raises ValueError if called without ``qid``.

    Raises
    ------
    RuntimeError
        If metadata routing is not enabled.
    ValueError
        Unknown ``average`` or ``ties``.
    """
    _check_pairwise_options(average, ties)
    return _routed_scorer(_pairwise_accuracy, "pairwise_accuracy_scorer", average=average,
                          ties=ties)


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
        The precision (= recall) at the top p of the ranking.

    Raises
    ------
    ValueError
        If the shapes differ, an input is empty or not finite, or
        ``y_true`` has a single class (no positive or no negative example:
        the break-even point is then 0 or 1 whatever the scores).

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
    if p == 0 or p == y.size:
        raise ValueError(f"y_true: PRBEP needs at least one positive and one negative "
                         f"example, got {'no' if p == 0 else 'only'} positive ones")
    t = np.sort(s)[::-1][p - 1]                 # the p-th largest score
    above = s > t
    tied = s == t
    k = int(above.sum())
    n_tied = int(tied.sum())
    hits = float(pos[above].sum()) + pos[tied].sum() * (p - k) / n_tied
    return float(hits / p)
