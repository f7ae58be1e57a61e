"""A synthetic LETOR-like ranking problem, generated partition by partition
where it is used (on the workers), for tests, benchmarks and demonstrations.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_int
from ._common import import_dask

__all__ = ["make_ranking", "make_ranking_partition", "query_splits"]

#: the noise of the relevance score, relative to the signal's spread
_NOISE = 0.5
#: the level thresholds in standard deviations of the score around its mean:
#: about 31 % of the documents get 0, 45 % get 1, 24 % get 2 (MQ2008 has
#: mostly 0s, then 1s, then 2s)
_LEVELS = (-0.5, 0.7)


def query_splits(n_queries: int, npartitions: int) -> np.ndarray:
    """The first query of each partition and the end.

    Parameters
    ----------
    n_queries : int
        Queries to split.
    npartitions : int
        Partitions.

    Returns
    -------
    ndarray of int64
        ``npartitions + 1`` increasing offsets splitting ``n_queries`` queries as evenly as
        possible (``np.array_split``'s sizes): partition ``i`` holds queries
        ``offsets[i]`` to ``offsets[i + 1] - 1``.
    """
    base, extra = divmod(n_queries, npartitions)
    sizes = np.full(npartitions, base, dtype=np.int64)
    sizes[:extra] += 1
    return np.concatenate([[0], np.cumsum(sizes)])


def make_ranking_partition(seed: int, index: int, first_query: int, n_queries: int,
                           docs_per_query: int = 20, n_features: int = 46):
    """Partition ``index`` of :func:`make_ranking`: its queries
    ``first_query .. first_query + n_queries - 1``.

    Features are uniform on [0, 1] (like LETOR's query-normalised
    features); the score of a document is x'w_true + noise (w_true ~ N(0,
    I) drawn from ``seed``, the same in every partition; noise N(0, (0.5
    sd)^2)), cut into relevance levels 0, 1, 2 at fixed quantiles (about
    31 %, 45 %, 24 %).  The rows of a partition depend only on ``(seed,
    index)``.

    Parameters
    ----------
    seed, index : int
    first_query, n_queries : int
        The partition's queries (ids are global).
    docs_per_query, n_features : int

    Returns
    -------
    X : ndarray of float64, shape (n_queries * docs_per_query, n_features)
    y : ndarray of float64, shape (l,)
    qid : ndarray of int64, shape (l,)

    Examples
    --------
    >>> X, y, qid = make_ranking_partition(0, 1, 10, 3, docs_per_query=4, n_features=5)
    >>> X.shape, sorted(set(qid.tolist())), set(y.tolist()) <= {0.0, 1.0, 2.0}
    ((12, 5), [10, 11, 12], True)
    """
    w_true = np.random.default_rng(seed).normal(size=n_features)
    rng = np.random.default_rng([seed, index])
    l = n_queries * docs_per_query
    X = rng.uniform(size=(l, n_features))
    signal_sd = float(np.sqrt(w_true @ w_true / 12.0))
    s = X @ w_true + _NOISE * signal_sd * rng.normal(size=l)
    sd = signal_sd * float(np.sqrt(1.0 + _NOISE ** 2))
    cuts = 0.5 * float(w_true.sum()) + sd * np.asarray(_LEVELS)
    y = np.searchsorted(cuts, s).astype(np.float64)
    qid = np.repeat(np.arange(first_query, first_query + n_queries, dtype=np.int64),
                    docs_per_query)
    return X, y, qid


def make_ranking(n_documents: int, *, n_features: int = 46, docs_per_query: int = 20,
                 npartitions: int = 2, seed: int = 0):
    """A LETOR-like ranking problem as lazy dask arrays: each partition is
    generated where it is computed (on a worker), never on the client.

    Parameters
    ----------
    n_documents : int
        l, a multiple of ``docs_per_query``.
    n_features : int, default 46
        As LETOR 4.0.
    docs_per_query : int, default 20
    npartitions : int, default 2
        Partitions of whole queries (sizes differ by at most one query).
    seed : int, default 0

    Returns
    -------
    X : dask.array.Array, shape (l, n_features), float64
    y : dask.array.Array, shape (l,), float64
        Relevance 0, 1, 2.
    qid : dask.array.Array, shape (l,), int64
        Sorted; every query inside one partition.

    Raises
    ------
    ValueError
        ``n_documents`` not a positive multiple of ``docs_per_query``, or
        more partitions than queries.
    ImportError
        Without dask.

    Examples
    --------
    >>> X, y, qid = make_ranking(1000, n_features=5, npartitions=3)
    >>> X.shape, X.numblocks, int(qid[-1].compute())
    ((1000, 5), (3, 1), 49)
    """
    dask = import_dask()
    da = dask.array
    n_documents = check_int(n_documents, "n_documents", minimum=1)
    docs_per_query = check_int(docs_per_query, "docs_per_query", minimum=1)
    n_features = check_int(n_features, "n_features", minimum=1)
    npartitions = check_int(npartitions, "npartitions", minimum=1)
    if n_documents % docs_per_query:
        raise ValueError(f"n_documents: must be a multiple of docs_per_query="
                         f"{docs_per_query}, got {n_documents}")
    n_queries = n_documents // docs_per_query
    if npartitions > n_queries:
        raise ValueError(f"npartitions: at most the number of queries ({n_queries}), got "
                         f"{npartitions}")
    cuts = query_splits(n_queries, npartitions)
    Xs, ys, qs = [], [], []
    for k in range(npartitions):
        nq = int(cuts[k + 1] - cuts[k])
        l = nq * docs_per_query
        Xd, yd, qd = dask.delayed(make_ranking_partition, nout=3, pure=True)(
            seed, k, int(cuts[k]), nq, docs_per_query, n_features)
        Xs.append(da.from_delayed(Xd, shape=(l, n_features), dtype=np.float64))
        ys.append(da.from_delayed(yd, shape=(l,), dtype=np.float64))
        qs.append(da.from_delayed(qd, shape=(l,), dtype=np.int64))
    return da.concatenate(Xs), da.concatenate(ys), da.concatenate(qs)
