"""Pairwise accuracy (Christensen's O(l log l) count with a selection tree)
and NDCG / mean NDCG (Eq. 4.5) of large-scale-linear-ranksvm.txt, Sec. 4.4:
brute force, scikit-learn's ndcg_score, tied scores (hypothesis), overflow
and hostile labels; PRBEP's one-class error."""

import math
from itertools import permutations, product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import ndcg_score

from polyrank.datasets import load_mq2008
from polyrank.metrics import mean_ndcg, ndcg_at, ndcg_per_query, pairwise_accuracy, prbep


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


# ------------------------------------------------------------------ ties, overflow, hostile labels

def _orders_of_ties(s):
    """Every ranking of the rows by descending score, tied rows in any order."""
    groups = [np.flatnonzero(s == v) for v in np.unique(s)[::-1]]
    for parts in product(*(permutations(g) for g in groups)):
        yield np.concatenate(parts)


def _ndcg_brute(y, s, m, letor=True, mean_over_positions=False):
    """Expected NDCG@m (or mean NDCG) of one query over all orders of its ties,
    with explicit 2^y - 1 gains; 0 without a relevant document."""
    gain = 2.0 ** y - 1
    if gain.max() == 0:
        return 0.0
    i = np.arange(1, y.size + 1)
    d = 1 / np.log2(np.maximum(2, i)) if letor else 1 / np.log2(i + 1)
    ideal = np.cumsum(np.sort(gain)[::-1] * d)
    # expected DCG = DCG of the expected gains (linearity)
    orders = list(_orders_of_ties(s))
    dcg = np.mean([np.cumsum(gain[o] * d) for o in orders], axis=0)
    if mean_over_positions:
        return float(np.mean(dcg / ideal))
    m = min(m, y.size)
    return float(dcg[m - 1] / ideal[m - 1])


@st.composite
def tied_rankings(draw):
    sizes = draw(st.lists(st.integers(1, 6), min_size=1, max_size=4))
    qid = np.repeat(np.arange(len(sizes)) * 7 + 3, sizes)
    l = qid.size
    y = np.array(draw(st.lists(st.integers(0, 4), min_size=l, max_size=l)), dtype=float)
    s = np.array(draw(st.lists(st.integers(-2, 2), min_size=l, max_size=l)), dtype=float)
    perm = np.random.default_rng(draw(st.integers(0, 1000))).permutation(l)
    return y[perm], s[perm], qid[perm]


@settings(max_examples=60, deadline=None)
@given(tied_rankings(), st.integers(1, 7))
def test_ndcg_with_ties_equals_sklearn_and_the_expectation_over_tie_orders(data, m):
    y, s, qid = data
    qids, per = ndcg_per_query(y, s, qid, m)
    _, per_yahoo = ndcg_per_query(y, s, qid, m, discount="yahoo")
    _, per_mean = ndcg_per_query(y, s, qid, mean_over_positions=True)
    for q, v, vy, vm in zip(qids, per, per_yahoo, per_mean):
        rows = qid == q
        assert v == pytest.approx(_ndcg_brute(y[rows], s[rows], m), rel=1e-12, abs=1e-15)
        assert vy == pytest.approx(_ndcg_brute(y[rows], s[rows], m, letor=False), rel=1e-12,
                                   abs=1e-15)
        assert vm == pytest.approx(_ndcg_brute(y[rows], s[rows], m, mean_over_positions=True),
                                   rel=1e-12, abs=1e-15)
        if rows.sum() > 1:            # sklearn's ndcg_score: gains as y_true, 1/log2(i + 1)
            ref = ndcg_score([2.0 ** y[rows] - 1], [s[rows]], k=m)
            assert vy == pytest.approx(ref, rel=1e-12, abs=1e-15)
    assert ndcg_at(y, s, qid, m) == pytest.approx(np.mean(per), rel=1e-14)


@settings(max_examples=60, deadline=None)
@given(tied_rankings())
def test_pairwise_accuracy_with_ties_equals_brute_force(data):
    y, s, qid = data
    ref = _brute_pairs(y, s, qid)
    P = sum(v[0] for v in ref.values())
    if P == 0:
        with pytest.raises(ValueError, match="no preference pairs"):
            pairwise_accuracy(y, s, qid)
        return
    for ties, weight in (("correct", 1.0), ("incorrect", 0.0), ("half", 0.5)):
        good = sum(v[1] + weight * v[2] for v in ref.values())
        assert pairwise_accuracy(y, s, qid, ties=ties) == pytest.approx(good / P, rel=1e-14)


def test_constant_model_ndcg_does_not_depend_on_row_order():
    """Issue 14: a constant model scored 0.148-0.673 NDCG@10 on MQ2008
    depending on the order of the rows."""
    d = load_mq2008()
    y, qid = d.y_test, d.qid_test
    rng = np.random.default_rng(0)
    values = set()
    for _ in range(4):
        p = rng.permutation(y.size)
        values.add(round(ndcg_at(y[p], np.zeros(y.size), qid[p], 10), 12))
        values.add(round(mean_ndcg(y[p], np.zeros(y.size), qid[p]), 12))
    assert len(values) == 2
    # and it is the mean over random orders: between the worst and the best ranking
    assert ndcg_at(y, -y, qid, 10) < ndcg_at(y, np.zeros(y.size), qid, 10) < ndcg_at(y, y, qid, 10)


def test_large_relevance_does_not_overflow():
    """Issue 14: mean_ndcg returned NaN for relevance 2000 (2^2000 overflow)."""
    q = np.zeros(3, int)
    s = np.array([1.0, 2.0, 3.0])
    # gains 2^2000 - 1, 2^1999 - 1, 0 are 1 : 1/2 : 0 to double precision
    v = ndcg_at([2000, 1999, 0], s, q, 3)
    ideal = 1 + 0.5
    assert v == pytest.approx((0.5 + 1 / np.log2(3)) / ideal, rel=1e-14)
    assert np.isfinite(mean_ndcg([2000, 0, 1], s, q))
    # scaling relevance by +500 levels changes nothing once 2^y >> 1
    assert ndcg_at([1100, 1000, 1050], s, q, 2) == pytest.approx(
        ndcg_at([600, 500, 550], s, q, 2), rel=1e-12)
    # tiny positive relevance: gains do not cancel to 0
    assert ndcg_at([1e-300, 0.0], [0.0, 1.0], [0, 0], 2, discount="yahoo") == pytest.approx(
        1 / np.log2(3), rel=1e-12)


def test_negative_relevance_and_one_class_prbep_are_rejected():
    """Issue 14: mean_ndcg returned 0.0 for negative relevance, prbep 1.0 for
    a single class."""
    with pytest.raises(ValueError, match="y_true: NDCG needs relevance labels >= 0"):
        mean_ndcg([-1.0, 0.0, 2.0], [0.1, 0.2, 0.3], [0, 0, 0])
    with pytest.raises(ValueError, match="y_true: NDCG needs relevance labels >= 0"):
        ndcg_at([-1.0, 0.0, 2.0], [0.1, 0.2, 0.3], [0, 0, 0], 2)
    with pytest.raises(ValueError, match="only positive"):
        prbep([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="no positive"):
        prbep([0, -1, 0], [0.1, 0.2, 0.3])
    assert prbep([1, 0], [0.2, 0.1]) == 1.0


def test_query_weights_in_ndcg():
    y, s, qid = _random_ranking(5, l=80, n_queries=4)
    _, per = ndcg_per_query(y, s, qid, 5)
    w_q = np.array([1.0, 0.0, 2.0, 5.0])
    rows = w_q[np.searchsorted(np.unique(qid), qid)]
    assert ndcg_at(y, s, qid, 5, sample_weight=rows) == pytest.approx(
        np.average(per, weights=w_q), rel=1e-14)
    with pytest.raises(ValueError, match="equal for all rows of a query"):
        mean_ndcg(y, s, qid, sample_weight=np.arange(80.0))
