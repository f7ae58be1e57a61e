"""LabelRanker on data nobody tuned it for (issue 29, items 2-3): a clear
warning before the solve when X is not standardised (naming the pipeline
that fixes it), a ConvergenceWarning that names it too, and a warning when a
fit ends in a trivial model.  The scores against one-vs-rest LinearSVC are
in tests/core/test_defaults_matrix.py."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_scales, warns_before_the_solve
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from polyrank import LabelRanker
from polyrank._sklearn import feature_scale_issue
from polyrank.datasets import load_yeast
from polyrank.exceptions import FeatureScaleWarning, TrivialModelWarning


@pytest.fixture(scope="module")
def yeast():
    d = load_yeast()
    return d.X_train[:600], d.Y_train[:600]


def test_unscaled_features_warn_before_the_solve_naming_the_pipeline(yeast):
    X, Y = yeast
    early = warns_before_the_solve(LabelRanker(random_state=0, shrinking=False),
                                   random_scales(X), Y, FeatureScaleWarning)
    assert len(early) == 1
    text = str(early[0].message)
    assert text.startswith("LabelRanker: X does not look standardised: feature standard "
                           "deviations range from")
    assert "make_pipeline(StandardScaler(), LabelRanker())" in text
    # it points at the user's line (here the helper's fit call), not at polyrank
    assert early[0].filename == warns_before_the_solve.__code__.co_filename


def test_rows_dominated_by_their_mean_warn_and_the_pipeline_does_not(yeast):
    X, Y = yeast
    with pytest.warns(FeatureScaleWarning, match="dominated by their common mean"):
        LabelRanker(max_iter=2, random_state=0).fit(X + 30.0, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = make_pipeline(StandardScaler(), LabelRanker(random_state=0))
        model.fit(random_scales(X + 30.0), Y)
    assert model[-1].result_.success


def test_the_rbf_kernel_ignores_the_mean_and_precomputed_is_not_checked(yeast):
    X, Y = yeast[0][:150], yeast[1][:150]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FeatureScaleWarning)
        LabelRanker(kernel="rbf", max_iter=3, random_state=0).fit(X + 30.0, Y)
        K = random_scales(X) @ random_scales(X).T
        LabelRanker(kernel="precomputed", max_iter=3, random_state=0).fit(K, Y)
    with pytest.warns(FeatureScaleWarning, match="standard deviations range"):
        LabelRanker(kernel="rbf", max_iter=3, random_state=0).fit(random_scales(X), Y)


def test_sparse_x_is_checked_for_the_spread_only_and_told_with_mean_false(yeast):
    X, Y = yeast
    Xs = sp.csr_matrix(np.where(np.abs(X) > 0.1, X, 0.0))      # 72 % zeros
    assert feature_scale_issue(sp.csr_matrix(Xs.toarray() + 30.0)) is None
    with pytest.warns(FeatureScaleWarning, match=r"StandardScaler\(with_mean=False\)"):
        LabelRanker(max_iter=2, random_state=0).fit(sp.csr_matrix(random_scales(Xs.toarray())),
                                                    Y)


def test_column_names_appear_in_the_message(yeast):
    pd = pytest.importorskip("pandas")
    X, Y = yeast
    frame = pd.DataFrame(random_scales(X), columns=[f"gene{j}" for j in range(X.shape[1])])
    with pytest.warns(FeatureScaleWarning, match=r"\('gene\d+'\) to .* \('gene\d+'\)"):
        LabelRanker(max_iter=2, random_state=0).fit(frame, Y)


def test_the_convergence_warning_names_the_scaler(yeast):
    X, Y = yeast
    with pytest.warns(ConvergenceWarning, match=r"max_iter=2 passes done.*increase max_iter "
                      r"or tol, or standardise X: make_pipeline\(StandardScaler\(\), "
                      r"LabelRanker\(\)\)"):
        LabelRanker(max_iter=2, random_state=0).fit(X, Y)


def test_feature_scale_issue_limits():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    assert feature_scale_issue(X) is None
    assert feature_scale_issue(X * [1.0, 1.0, 1.0, 900.0]) is None        # below 1e3
    assert "range from" in feature_scale_issue(X * [1.0, 1.0, 1.0, 2000.0])
    assert feature_scale_issue(X + 3.0) is None                             # 36 < 10 * 4
    assert "common mean" in feature_scale_issue(X + 7.0)                    # 196 > 40
    assert feature_scale_issue(X + 7.0, offset=False) is None
    # constant columns (a bias column of the user's) count for the mean only
    const = np.column_stack([X, np.full(400, 5.0)])
    assert feature_scale_issue(const) is None
    assert feature_scale_issue(np.zeros((5, 3))) is None


# ------------------------------------------------------------ trivial models

def test_a_trivial_fit_warns_with_the_reason_and_the_remedy(yeast):
    """Rare labels that the features do not explain: the hinge loss is
    cheapest when nothing is ever predicted relevant."""
    X, _ = yeast
    rng = np.random.default_rng(0)
    Y = (rng.random((len(X), 5)) < 0.04).astype(int)
    with pytest.warns(TrivialModelWarning, match=r"LabelRanker: the model predicts "
                      r"\[0, 0, 0, 0, 0\] for every training row although y holds 11 "
                      r"distinct rows; raise C \(now 0.3\), or standardise X"):
        model = LabelRanker(random_state=0).fit(X, Y)
    assert model.result_.success
    y = np.where(rng.random(len(X)) < 0.05, "rare", "common")
    with pytest.warns(TrivialModelWarning, match="predicts common for every training row "
                      "although y holds 2 distinct values"):
        LabelRanker(random_state=0).fit(X, y)


def test_rows_of_weight_zero_do_not_count(yeast):
    X, Y = yeast
    y = np.where(X[:, 0] > 0, "a", "b")
    y[:5] = "c"
    w = np.ones(len(y))
    w[:5] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrivialModelWarning)
        LabelRanker(random_state=0).fit(X, y, sample_weight=w)


def test_ordinary_fits_stay_quiet(yeast):
    X, Y = yeast
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LabelRanker(random_state=0).fit(X, Y)
        LabelRanker(random_state=0).fit(X, np.argmax(Y, axis=1))
        LabelRanker(random_state=0, C=3.0).fit(X, Y * np.arange(1, 15))     # rankings
