"""One validation room (issue 46, item 4): the sample-weight and label checks
live in :mod:`polyrank.validation`, and the paper packages use them (one
sample-weight checker, not four)."""

import numpy as np
import pytest
import scipy.sparse as sp

from polyrank import ordinal, validation
from polyrank.ordinal import generation, solve_svor, svor
from polyrank.ranksvm import objective
from polyrank.ranksvm.objective import RankSVMObjective
from polyrank.sopopo import batch
from polyrank.validation import (
    check_gram,
    check_ordinal_labels,
    check_ranking_data,
    check_sample_weight,
)


def test_the_paper_packages_use_the_one_checker():
    # the names the papers' modules had are the functions of polyrank.validation
    assert objective.check_sample_weight is validation.check_sample_weight
    assert svor._check_weights is validation.check_sample_weight
    assert objective.check_ranking_data is validation.check_ranking_data
    assert ordinal.check_labels is generation.check_labels is validation.check_ordinal_labels
    assert batch.check_gram is validation.check_gram


@pytest.mark.parametrize("rows", [np.zeros((4, 2)), sp.csr_matrix((4, 3)), 4],
                         ids=["dense", "csr", "count"])
def test_sample_weights_of_the_rows_or_of_their_number(rows):
    out = check_sample_weight([1, 0, 2.5, 3], rows)
    assert out.dtype == np.float64 and out.flags.c_contiguous
    assert out.tolist() == [1.0, 0.0, 2.5, 3.0]
    assert check_sample_weight(2, rows).tolist() == [2.0] * 4       # a scalar is broadcast
    assert check_sample_weight(None, rows) is None                  # the unweighted path


@pytest.mark.parametrize("bad, exc, match", [
    (np.ones(3), ValueError, r"expected one weight per row of X \(shape \(4,\)\), got shape"),
    (-np.ones(4), ValueError, "Negative values"),
    (np.zeros(4), ValueError, "at least one non-zero"),
    (np.array([1, np.nan, 1, 1]), ValueError, "NaN"),
    (np.array([1, np.inf, 1, 1]), ValueError, "infinity"),
    (np.ones((4, 2)), ValueError, "1D array or scalar"),
    (np.array(["a"] * 4), TypeError, "expected real numbers"),
    (np.array([object()] * 4), TypeError, "expected real numbers"),
])
def test_bad_sample_weights_name_the_argument(bad, exc, match):
    for rows in (np.zeros((4, 1)), 4):
        with pytest.raises(exc, match=rf"^sample_weight: .*{match}"):
            check_sample_weight(bad, rows)


def test_the_ranksvm_objective_and_svor_refuse_what_the_checker_refuses():
    rng = np.random.default_rng(0)
    X, y, qid = rng.normal(size=(12, 3)), np.arange(12) % 3, np.repeat([0, 1], 6)
    for bad in (np.zeros(12), -np.ones(12), np.ones(11)):
        with pytest.raises(ValueError, match="^sample_weight: "):
            RankSVMObjective(X, y, qid, sample_weight=bad)
        with pytest.raises(ValueError, match="^sample_weight: "):
            solve_svor(X, y % 2, sample_weight=bad)
    weighted = RankSVMObjective(X, y, qid, sample_weight=np.full(12, 2.0))
    plain = RankSVMObjective(X, y, qid)
    w = rng.normal(size=3)
    # weights s_i s_j = 4 on every pair: 4 times the loss of the unweighted objective
    assert weighted.fun(w) - 0.5 * w @ w == pytest.approx(4 * (plain.fun(w) - 0.5 * w @ w))


def test_ranking_data():
    y, qid = check_ranking_data([2, 0, 1], [7.0, 7.0, 3.0], 3)
    assert y.dtype == np.float64 and qid.dtype == np.int64 and qid.tolist() == [7, 7, 3]
    with pytest.raises(ValueError, match=r"^y: expected length 4 \(one per row of X\)"):
        check_ranking_data([2, 0, 1], [1, 1, 1], 4)
    with pytest.raises(ValueError, match="^y: .*NaN"):
        check_ranking_data([2, np.nan, 1], [1, 1, 1], 3)
    with pytest.raises(TypeError, match="^qid: expected integer query ids"):
        check_ranking_data([2, 0, 1], ["a", "b", "c"], 3)
    with pytest.raises(ValueError, match="^qid: expected integer query ids"):
        check_ranking_data([2, 0, 1], [1.5, 1, 1], 3)


def test_ordinal_labels():
    labels, top = check_ordinal_labels(np.array([0.0, 2.0, 1.0, 2.0]), 4)
    assert labels.dtype == np.int64 and labels.tolist() == [0, 2, 1, 2] and top == 2
    assert check_ordinal_labels(np.array([0.0, 1.0, 1.0]), 3)[1] == 1


@pytest.mark.parametrize("labels, exc, match", [
    ([0, 0, 2, 2], ValueError, "label 1 has no objects"),
    ([1, 1, 2, 2], ValueError, "label 0 has no objects"),
    ([0, 0.5, 1, 1], ValueError, "non-integer value 0.5"),
    ([0, np.nan, 1, 1], ValueError, "NaN"),
    (["a", "b", "a", "b"], TypeError, "integer labels"),
    ([True, False, True, False], TypeError, "booleans"),
    ([0, 1, 0], ValueError, "expected 4 labels"),
    ([[0, 1], [1, 0]], ValueError, "1-d"),
    ([0, -1, 1, 1], ValueError, ">= 0"),
    ([0, 0, 0, 0], ValueError, "at least two labels"),
])
def test_bad_ordinal_labels_name_the_argument(labels, exc, match):
    with pytest.raises(exc, match=f"^labels: .*{match}"):
        check_ordinal_labels(labels, 4)


def test_a_gram_matrix_is_square_symmetric_and_positive_semidefinite():
    rng = np.random.default_rng(1)
    A = 3 * rng.normal(size=(6, 3))
    K = A @ A.T                                   # rank 3: singular, but a Gram matrix
    check_gram(K)
    with pytest.raises(ValueError, match=r"^K: a precomputed kernel must be square"):
        check_gram(K[:, :4], "K")
    skew = K.copy()
    skew[0, 1] += 1e-3
    with pytest.raises(ValueError, match="^X: the precomputed kernel matrix is not symmetric"):
        check_gram(skew)
    with pytest.raises(ValueError, match="^X: the kernel matrix has negative diagonal"):
        check_gram(K - 100 * np.eye(6))
    with pytest.raises(ValueError, match=r"^X: .* is indefinite \(smallest eigenvalue -0\.5"):
        check_gram(K - 0.5 * np.eye(6))
