"""M3LClassifier on data nobody tuned it for (issue 29, items 2-3): a
warning before the solve when X is not standardised (naming the pipeline
that fixes it), a ConvergenceWarning that names it too, and a warning when
a fit ends in a trivial model.  Its Hamming loss against one-vs-rest
LinearSVC is in tests/core/test_defaults_matrix.py."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import random_scales, warns_before_the_solve
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from polyrank import M3LClassifier
from polyrank.datasets import load_yeast
from polyrank.exceptions import FeatureScaleWarning, TrivialModelWarning
from polyrank.m3l.estimator import DEFAULT_C


@pytest.fixture(scope="module")
def yeast():
    d = load_yeast()
    return d.X_train[:500], d.Y_train[:500]


@pytest.mark.parametrize("solver, kernel", [("dca", "linear"), ("smo", "linear"),
                                            ("smo", "rbf")])
def test_unscaled_features_warn_before_the_solve_naming_the_pipeline(yeast, solver, kernel):
    X, Y = yeast
    early = warns_before_the_solve(M3LClassifier(solver=solver, kernel=kernel, random_state=0),
                                   random_scales(X), Y, FeatureScaleWarning)
    assert len(early) == 1
    assert str(early[0].message).startswith("M3LClassifier: X does not look standardised")
    assert "make_pipeline(StandardScaler(), M3LClassifier())" in str(early[0].message)


def test_mean_dominated_rows_warn_and_the_pipeline_converges_quietly(yeast):
    X, Y = yeast
    with pytest.warns(FeatureScaleWarning, match="dominated by their common mean"):
        M3LClassifier(max_iter=1, random_state=0).fit(X + 30.0, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = make_pipeline(StandardScaler(), M3LClassifier(random_state=0))
        model.fit(random_scales(X + 30.0), Y)
    assert model[-1].result_.success


def test_the_convergence_warning_names_the_scaler(yeast):
    X, Y = yeast
    with pytest.warns(ConvergenceWarning, match=r"max_iter=1 iterations done.*increase "
                      r"max_iter or tol, or standardise X: make_pipeline\(StandardScaler\(\), "
                      r"M3LClassifier\(\)\)"):
        M3LClassifier(max_iter=1, random_state=0).fit(X, Y)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_a_trivial_fit_warns_with_the_reason_and_the_remedy(yeast, kernel):
    """Rare labels the features do not explain: no label is ever predicted."""
    X, _ = yeast
    rng = np.random.default_rng(0)
    Y = (rng.random((len(X), 5)) < 0.04).astype(int)
    with pytest.warns(TrivialModelWarning, match=r"M3LClassifier: the model predicts "
                      r"\[0, 0, 0, 0, 0\] for every training row although y holds \d+ "
                      rf"distinct rows; raise C \(now {DEFAULT_C[kernel]:g}\)(, raise gamma .*)?, "
                      r"or standardise X"):
        model = M3LClassifier(kernel=kernel, random_state=0).fit(X, Y)
    assert model.result_.success
    y = np.where(rng.random(len(X)) < 0.05, "rare", "common")
    with pytest.warns(TrivialModelWarning, match="predicts common for every training row"):
        M3LClassifier(kernel=kernel, random_state=0).fit(X, y)


def test_a_too_narrow_kernel_width_is_named(yeast):
    """yeast's rows have norm 1: with gamma = 1/n_features every kernel value
    is about exp(-2/104) = 0.98, and the model predicts one label set."""
    X, Y = yeast
    with pytest.warns(TrivialModelWarning, match=r"predicts \[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
                      r"0, 1, 1, 0\] for every training row.*raise gamma \(now "
                      r"1/n_features; a small gamma makes the kernel almost constant\)"):
        M3LClassifier(kernel="rbf", random_state=0).fit(X, Y)


def test_ordinary_fits_stay_quiet(yeast):
    X, Y = yeast
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        M3LClassifier(random_state=0).fit(X, Y)
        M3LClassifier(kernel="rbf", gamma=1.0, random_state=0).fit(X, Y)
        # classes after the recommended StandardScaler (on yeast's unit-norm rows
        # the default C = 0.1 predicts the majority class: a warning then)
        M3LClassifier(random_state=0).fit(StandardScaler().fit_transform(X),
                                          np.argmax(Y[:, :3], axis=1))
        # a class absent from the rows of positive weight is no trivial model
        w = np.ones(len(X))
        y = np.where(X[:, 0] > 0, "a", "b")
        y[:4], w[:4] = "c", 0.0
        M3LClassifier(random_state=0).fit(X, y, sample_weight=w)


def test_trivial_rbf_model_on_raw_pixels_says_to_lower_gamma():
    """scikit-learn's digits as raw pixel values (0..16, 64 features): with
    gamma = 1/n_features the rbf kernel of two distinct rows is ~1e-16, so
    every row is its own neighbourhood and the model predicts no label.
    The warning used to say "raise gamma", the wrong way; it now measures
    the kernel on training pairs and says to lower it (or standardise).
    (At the rbf default C = 0.5 the model memorises its training rows, so
    the training predictions are not one value and no warning comes; at
    C = 0.1 they are.)"""
    from sklearn.datasets import load_digits
    from sklearn.metrics import hamming_loss

    X, digit = load_digits(return_X_y=True)
    Y = np.eye(10, dtype=int)[digit]
    with pytest.warns(TrivialModelWarning, match=r"lower gamma \(now 1/n_features; the "
                      r"median of k\(x, x'\) over training pairs is [0-9.e-]+: the kernel "
                      r"is almost the identity\)"):
        M3LClassifier(kernel="rbf", C=0.1, random_state=0).fit(X[:600], Y[:600])
    # following the advice works
    lower = M3LClassifier(kernel="rbf", gamma=1.0 / (64 * X[:600].var()),
                          random_state=0).fit(X[:600], Y[:600])
    assert hamming_loss(Y[600:], lower.predict(X[600:])) < 0.05


@pytest.mark.parametrize("kernel, C", [("linear", 0.1), ("rbf", 0.5), ("poly", 0.5)])
def test_the_default_c_is_per_kernel_and_visible_after_fit(yeast, kernel, C):
    """C=None resolves per kernel (issue 42, item 3) into ``C_``, without
    touching the parameter: get_params, set_params and clone see None."""
    from sklearn.base import clone

    X, Y = yeast
    model = M3LClassifier(kernel=kernel, gamma=1.0, random_state=0)
    assert model.get_params()["C"] is None
    model.fit(StandardScaler().fit_transform(X[:200]), Y[:200])
    assert model.C_ == C == DEFAULT_C[kernel]
    assert model.C is None and clone(model).get_params()["C"] is None
    explicit = M3LClassifier(kernel=kernel, gamma=1.0, C=C, random_state=0)
    explicit.fit(StandardScaler().fit_transform(X[:200]), Y[:200])
    np.testing.assert_array_equal(model.alpha_, explicit.alpha_)
    model.set_params(C=2.0).fit(StandardScaler().fit_transform(X[:200]), Y[:200])
    assert model.C_ == 2.0 and model.get_params()["C"] == 2.0


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_the_kernel_default_c_is_svc_default_per_label(yeast, kernel):
    """With R = I M3L is L SVMs of penalty 2 C (Sec. 3.1): the kernel
    default 0.5 is scikit-learn's SVC(C=1.0); their dual variables agree up
    to the bias (M3L's is regularised, k + bias^2), so the test predictions
    agree on all but a few labels."""
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import SVC

    X, Y = yeast
    X = StandardScaler().fit_transform(X)
    gamma = 1.0 / X.shape[1]
    ours = M3LClassifier(kernel=kernel, random_state=0).fit(X[:350], Y[:350])
    peer = OneVsRestClassifier(SVC(kernel=kernel, gamma=gamma, coef0=1.0)).fit(X[:350], Y[:350])
    assert 2 * ours.C_ == peer.estimator.C
    agree = np.mean(ours.predict(X[350:]) == peer.predict(X[350:]))
    assert agree > 0.98
