"""LabelRanker's ConvergenceWarning gives the advice that fits why the
solve stopped at ``max_iter`` (issue 42, item 4: the defaults matrix's
advice rows): a precomputed Gram matrix -> compute it from standardised
features; sparse X standardised without centring -> MaxAbsScaler; dense X
standardised already -> max_iter or tol with the numbers; other X ->
standardise it.  In Python's words in Python, the command's options on the
command line.  That following the advice converges on real data is in
tests/core/test_defaults_matrix.py."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import MaxAbsScaler, StandardScaler

from polyrank import LabelRanker
from polyrank._text import command_line_advice, gram_advice, sparse_scale_advice
from polyrank.datasets import load_yeast

CLI = {"max_iter": "--max-iter", "tol": "--tol", "standardize": "--standardize"}


@pytest.fixture(scope="module")
def yeast():
    d = load_yeast()
    return d.X_train[:300], d.Y_train[:300]


def _advice(X, Y, **kw) -> str:
    with pytest.warns(ConvergenceWarning) as rec:
        LabelRanker(max_iter=2, random_state=0, **kw).fit(X, Y)
    texts = [str(w.message) for w in rec if w.category is ConvergenceWarning]
    assert len(texts) == 1, texts
    return texts[0]


def _sparse_scaled(seed=0):
    """Sparse 0/1 features with a few rare columns, standardised without
    centring (w8a's shape: the rare columns become large)."""
    rng = np.random.default_rng(seed)
    dense = (rng.random((300, 40)) < np.r_[np.full(35, 0.3), np.full(5, 0.01)]).astype(float)
    y = (dense[:, :5].sum(axis=1) + rng.normal(size=300) > 1.5).astype(int)
    X = StandardScaler(with_mean=False).fit_transform(sp.csr_matrix(dense))
    return sp.csr_matrix(X), y


def test_a_gram_matrix_gets_compute_it_from_standardised_features(yeast):
    X, Y = yeast
    text = _advice(X @ X.T + 1.0, Y, kernel="precomputed")
    assert "increase max_iter (now 2) or tol (now 0.001; the relative duality gap reached" in text
    assert text.endswith("or compute the Gram matrix from standardised features "
                         "(Z = StandardScaler().fit_transform(X); K = Z @ Z.T + 1)")
    assert "make_pipeline(StandardScaler(), LabelRanker())" not in text


def test_sparse_standardised_x_gets_maxabsscaler():
    X, y = _sparse_scaled()
    text = _advice(X, y)
    assert "X is sparse and standardised without centring (squared row norms up to" in text
    assert "make_pipeline(MaxAbsScaler(), LabelRanker()) (sklearn.pipeline, " in text
    assert "increase max_iter (now 2) or tol (now 0.001;" in text
    assert "StandardScaler" not in text


def test_the_advice_followed_converges_on_sparse_data():
    X, y = _sparse_scaled()
    Xm = MaxAbsScaler().fit_transform(X)
    model = LabelRanker(random_state=0).fit(Xm, y)
    assert model.result_.status == "converged"


def test_standardised_dense_x_gets_max_iter_and_tol_with_the_numbers(yeast):
    X, Y = yeast
    text = _advice(StandardScaler().fit_transform(X), Y)
    assert "X looks standardised already: increase max_iter (now 2) or tol (now 0.001; the " \
           "relative duality gap reached " in text
    assert "make_pipeline" not in text


@pytest.mark.filterwarnings("ignore::polyrank.exceptions.FeatureScaleWarning")
def test_unscaled_x_still_gets_the_scaler(yeast):
    X, Y = yeast
    text = _advice(X * 3.0 + 5.0, Y)
    assert text.endswith("increase max_iter or tol, or standardise X: make_pipeline("
                         "StandardScaler(), LabelRanker()) (sklearn.pipeline, "
                         "sklearn.preprocessing)")


def test_on_the_command_line_the_advice_names_the_options(yeast):
    X, Y = yeast
    Xs, y = _sparse_scaled()
    with command_line_advice(CLI):
        gram = _advice(X @ X.T + 1.0, Y, kernel="precomputed")
        sparse = _advice(Xs, y)
        assert gram_advice() == "compute the Gram matrix from standardised features"
        assert sparse_scale_advice("LabelRanker").startswith("rerun without --standardize")
    assert "increase --max-iter (now 2) or --tol (now 0.001;" in gram
    assert gram.endswith("or compute the Gram matrix from standardised features")
    assert "rerun without --standardize" in sparse and "MaxAbsScaler" not in sparse
    assert "max_iter" not in sparse.replace("max_iter=2 passes", "")
