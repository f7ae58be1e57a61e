"""Pairwise accuracy (Christensen's O(l log l) count with a selection tree)
and NDCG / mean NDCG (Eq. 4.5) of large-scale-linear-ranksvm.txt, Sec. 4.4."""

import math

import numpy as np
import pytest
from sklearn.metrics import ndcg_score

from polyrank.metrics import mean_ndcg, ndcg_at, ndcg_per_query, pairwise_accuracy


def _brute_pairs(y, s, qid):
    """O(l^2) counts per query: (pairs, correct, tied)."""
    out = {}
    for q in np.unique(qid):
        idx = np.flatnonzero(qid == q)
        p = c = t = 0
        for i in idx:
            for j in idx:
                if y[i] > y[j]:
                    p += 1
                    c += s[i] > s[j]
                    t += s[i] == s[j]
        out[q] = (p, c, t)
    return out


def _random_ranking(seed, l=300, n_queries=12):
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, size=l)
    y = rng.integers(0, 5, size=l).astype(float)
    s = np.round(rng.normal(size=l), 1)                  # many tied scores
    y[qid == 0] = 1.0                                    # a query with one level
    return y, s, qid


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("ties,weight", [("correct", 1.0), ("incorrect", 0.0), ("half", 0.5)])
def test_pairwise_accuracy_equals_quadratic_definition(seed, ties, weight):
    y, s, qid = _random_ranking(seed)
    ref = _brute_pairs(y, s, qid)
    P = sum(v[0] for v in ref.values())
    good = sum(v[1] + weight * v[2] for v in ref.values())
    assert pairwise_accuracy(y, s, qid, ties=ties) == pytest.approx(good / P, rel=1e-14)
    per_query = [(v[1] + weight * v[2]) / v[0] for v in ref.values() if v[0] > 0]
    assert pairwise_accuracy(y, s, qid, average="query", ties=ties) == pytest.approx(
        np.mean(per_query), rel=1e-14)


def test_pairwise_accuracy_extremes_and_single_query_auc():
    y = np.array([0, 1, 2, 3, 3.0])
    q = np.zeros(5, dtype=int)
    assert pairwise_accuracy(y, y, q) == 1.0
    assert pairwise_accuracy(y, -y, q) == 0.0
    # with k = 2 pairwise accuracy is the AUC (Sec. 4.6)
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(3)
    yb = rng.integers(0, 2, size=200).astype(float)
    sb = rng.normal(size=200) + yb
    assert pairwise_accuracy(yb, sb, np.zeros(200, int)) == pytest.approx(
        roc_auc_score(yb, sb), rel=1e-13)


def test_ndcg_hand_computed_example():
    # one query, labels (3, 2, 3, 0, 1, 2) scored so that the ranking is
    # docs 0, 1, 3, 2, 4, 5 -> gains 7, 3, 0, 7, 1, 3
    y = np.array([3, 2, 3, 0, 1, 2.0])
    s = np.array([6, 5, 3, 4, 2, 1.0])
    q = np.ones(6, dtype=int)
    gains = np.array([7, 3, 0, 7, 1, 3.0])
    ideal = np.array([7, 7, 3, 3, 1, 0.0])
    d_letor = np.array([1, 1, 1 / math.log2(3), 1 / 2, 1 / math.log2(5), 1 / math.log2(6)])
    d_yahoo = 1 / np.log2(np.arange(2, 8))
    for m in range(1, 7):
        ref = np.sum(gains[:m] * d_letor[:m]) / np.sum(ideal[:m] * d_letor[:m])
        assert ndcg_at(y, s, q, m) == pytest.approx(ref, rel=1e-14)
        ref_y = np.sum(gains[:m] * d_yahoo[:m]) / np.sum(ideal[:m] * d_yahoo[:m])
        assert ndcg_at(y, s, q, m, discount="yahoo") == pytest.approx(ref_y, rel=1e-14)
    # NDCG@3 by hand: (7 + 3 + 0) / (7 + 7 + 3/log2 3)
    assert ndcg_at(y, s, q, 3) == pytest.approx(10 / (14 + 3 / math.log2(3)), rel=1e-14)
    ref_mean = np.mean([np.sum(gains[:m] * d_letor[:m]) / np.sum(ideal[:m] * d_letor[:m])
                        for m in range(1, 7)])
    assert mean_ndcg(y, s, q) == pytest.approx(ref_mean, rel=1e-14)


def test_ndcg_equals_sklearn_where_definitions_coincide():
    """0/1 labels (2^y - 1 = y), Yahoo discount 1/log2(i + 1), no tied
    scores: Eq. 4.5 is scikit-learn's ndcg_score."""
    rng = np.random.default_rng(4)
    Y = rng.integers(0, 2, size=(20, 15)).astype(float)
    Y[:, 0] = 1.0
    S = rng.normal(size=(20, 15))
    qid = np.repeat(np.arange(20), 15)
    for m in (1, 5, 15):
        ours = ndcg_at(Y.ravel(), S.ravel(), qid, m, discount="yahoo")
        assert ours == pytest.approx(ndcg_score(Y, S, k=m), rel=1e-12)


def test_queries_without_relevant_documents_conventions():
    y = np.array([0, 0, 1, 0.0])
    s = np.array([1, 2, 1, 2.0])
    q = np.array([1, 1, 2, 2])
    _, per = ndcg_per_query(y, s, q, 2)
    assert per[0] == 0.0 and per[1] == pytest.approx(1 / 1)   # rank 2, LETOR d(2) = 1
    assert ndcg_at(y, s, q, 2, no_relevant="skip") == pytest.approx(1.0)
    assert ndcg_at(y, s, q, 2, no_relevant="one") == pytest.approx(1.0)
    assert ndcg_at(y, s, q, 2) == pytest.approx(0.5)


def test_bad_inputs_name_the_argument():
    y, s, q = np.array([1.0, 0.0]), np.array([0.5, 0.2]), np.array([1, 1])
    with pytest.raises(ValueError, match="qid"):
        pairwise_accuracy(y, s, q[:1])
    with pytest.raises(ValueError, match="y_score"):
        pairwise_accuracy(y, np.array([np.nan, 1.0]), q)
    with pytest.raises(ValueError, match="average"):
        pairwise_accuracy(y, s, q, average="macro")
    with pytest.raises(ValueError, match="ties"):
        pairwise_accuracy(y, s, q, ties="maybe")
    with pytest.raises(ValueError, match="no preference pairs"):
        pairwise_accuracy(np.ones(2), s, q)
    with pytest.raises(ValueError, match="m"):
        ndcg_at(y, s, q, 0)
    with pytest.raises(ValueError, match="discount"):
        mean_ndcg(y, s, q, discount="msn")
    with pytest.raises(TypeError, match="qid"):
        ndcg_at(y, s, np.array(["a", "b"]))
