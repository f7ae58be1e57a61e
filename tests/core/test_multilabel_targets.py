"""Targets as users have them for LabelRanker and M3LClassifier (issue 14):
class labels, indicator matrices in the user's coding, target rankings,
classes_, and scikit-learn's multi-label scorers through cross_val_score."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_multilabel_classification
from sklearn.metrics import f1_score, hamming_loss, label_ranking_loss, make_scorer
from sklearn.model_selection import KFold, cross_val_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MultiLabelBinarizer, StandardScaler
from sklearn.svm import LinearSVC

from polyrank import LabelRanker, M3LClassifier
from polyrank.datasets import load_yeast

ESTIMATORS = [LabelRanker(random_state=0), M3LClassifier(random_state=0)]
IDS = ["LabelRanker", "M3LClassifier"]


@pytest.fixture(scope="module")
def multilabel():
    X, Y = make_multilabel_classification(n_samples=120, n_features=8, n_classes=4,
                                          n_labels=2, random_state=0)
    return StandardScaler().fit_transform(X), Y


# ------------------------------------------------------------ indicator coding

def test_m3l_all_ones_targets_predict_in_0_1_not_pm1():
    """Regression: M3L fitted on 0/1 targets containing no 0 answered in -1/+1."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    model = M3LClassifier().fit(X, np.ones((20, 2), dtype=int))
    assert model.label_values_ == (0, 1)
    assert set(np.unique(model.predict(X)).tolist()) <= {0, 1}
    pm = M3LClassifier().fit(X, -np.ones((20, 2), dtype=int))      # a -1 means -1/+1
    assert pm.label_values_ == (-1, 1)
    assert set(np.unique(pm.predict(X)).tolist()) <= {-1, 1}


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
@pytest.mark.parametrize("coding, dtype", [((0, 1), np.int64), ((0, 1), np.float32),
                                           ((False, True), bool), ((-1, 1), np.int32)])
def test_indicator_predictions_keep_the_users_coding_and_dtype(est, coding, dtype, multilabel):
    X, Y = multilabel
    Yc = np.where(Y > 0, coding[1], coding[0]).astype(dtype)
    model = est.fit(X, Yc)
    P = model.predict(X)
    assert P.dtype == Yc.dtype and P.shape == Y.shape
    assert set(np.unique(P).tolist()) <= set(np.asarray(coding, dtype).tolist())
    assert model.target_type_ == "multilabel-indicator"
    np.testing.assert_array_equal(model.classes_, np.arange(4))
    np.testing.assert_array_equal(P == coding[1], model.decision_function(X) > 0)


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_multilabelbinarizer_targets_and_scorers(est, multilabel):
    X, Y = multilabel
    sets = [[f"l{j}" for j in np.flatnonzero(row)] for row in Y]
    mlb = MultiLabelBinarizer()
    Yb = mlb.fit_transform(sets)
    model = make_pipeline(StandardScaler(), est).fit(X, Yb)
    back = mlb.inverse_transform(model.predict(X))
    assert len(back) == len(X) and all(set(s) <= set(mlb.classes_) for s in back)
    cv = KFold(3, shuffle=True, random_state=0)
    hamming = make_scorer(hamming_loss, greater_is_better=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # converged, no warnings, with defaults
        f1 = cross_val_score(model, X, Yb, cv=cv, scoring="f1_micro")
        auc = cross_val_score(model, X, Yb, cv=cv, scoring="roc_auc")
        ham = cross_val_score(model, X, Yb, cv=cv, scoring=hamming)
    # a hard problem: compare with one-vs-rest LinearSVC on the same folds
    ovr = make_pipeline(StandardScaler(), OneVsRestClassifier(LinearSVC()))
    assert f1.mean() > cross_val_score(ovr, X, Yb, cv=cv, scoring="f1_micro").mean() - 0.03
    assert auc.mean() > cross_val_score(ovr, X, Yb, cv=cv, scoring="roc_auc").mean() - 0.03
    assert -ham.mean() < -cross_val_score(ovr, X, Yb, cv=cv, scoring=hamming).mean() + 0.03
    assert np.all((0.5 < f1) & (0.7 < auc) & (0 <= -ham) & (-ham < 0.35))


def test_rows_with_no_or_all_labels_relevant_are_used(multilabel):
    X, Y = multilabel
    Y = Y.copy()
    Y[:5] = 0
    Y[5:10] = 1
    model = LabelRanker(bias=1.0, random_state=0).fit(X, Y)
    assert model.result_.success
    with pytest.raises(ValueError, match="have all targets equal"):
        LabelRanker(threshold_label=False).fit(X, Y)


# ------------------------------------------------------------ LabelRanker targets

def test_label_ranker_threshold_label_is_calibrated_label_ranking(multilabel):
    """decision_function = f_r - f_v with the threshold label v last in the
    raw solution; the ranking of the labels is that of f_r."""
    X, Y = multilabel
    model = LabelRanker(C=1.0, bias=0.0, random_state=0).fit(X, Y)
    W = model.result_.x                                 # (k + 1, n): w_1..w_k, w_v
    assert W.shape == (5, 8)
    F = X @ W.T
    np.testing.assert_allclose(model.decision_function(X), F[:, :4] - F[:, 4:], atol=1e-12)
    np.testing.assert_allclose(W.sum(axis=0), 0.0, atol=1e-10)   # dual feasibility


def test_label_ranker_rankings_predict_the_label_order():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3))
    Y = X @ rng.normal(size=(3, 5)) + 0.1 * rng.normal(size=(30, 5))     # real rankings
    model = LabelRanker(C=1.0, random_state=0).fit(X, Y)
    assert model.target_type_ == "label-ranking" and model.result_.success
    S = model.decision_function(X)
    order = model.predict(X)
    assert order.shape == (30, 5)
    np.testing.assert_array_equal(np.take_along_axis(S, order, 1),
                                  -np.sort(-S, axis=1))
    assert 0.5 < model.score(X, Y) <= 1


def test_label_ranker_class_labels(multilabel):
    X, Y = multilabel
    y = np.array(["cat", "dog", "emu"])[Y.argmax(axis=1) % 3]
    model = LabelRanker(C=1.0, bias=1.0, random_state=0).fit(X, y)
    assert model.target_type_ == "multiclass"
    np.testing.assert_array_equal(model.classes_, ["cat", "dog", "emu"])
    np.testing.assert_array_equal(model.predict(X),
                                  model.classes_[model.decision_function(X).argmax(1)])
    assert model.score(X, y) == np.mean(model.predict(X) == y)
    yb = np.where(y == "cat", "cat", "other")
    binary = LabelRanker(C=1.0, bias=1.0, random_state=0).fit(X, yb)
    d = binary.decision_function(X)
    assert d.shape == (120,) and binary.coef_.shape == (1, 8)
    np.testing.assert_array_equal(binary.predict(X), np.where(d > 0, "other", "cat"))
    # the two prototypes are opposite (dual feasibility), d = f_1 - f_0
    W = binary.result_.x
    np.testing.assert_allclose(d, (X @ W[1, :8] - X @ W[0, :8]) + W[1, 8] - W[0, 8],
                               atol=1e-10)
    # a column vector means the same as a 1-d y
    col = LabelRanker(C=1.0, bias=1.0, random_state=0).fit(X, y[:, None])
    np.testing.assert_array_equal(col.predict(X), model.predict(X))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        LabelRanker().fit(X, np.linspace(0, 1, 120))
    with pytest.raises(ValueError, match="at least 2 classes"):
        LabelRanker().fit(X, np.zeros(120))


def test_m3l_class_labels(multilabel):
    X, Y = multilabel
    yb = np.where(Y[:, 0] > 0, "yes", "no")
    binary = M3LClassifier(random_state=0).fit(X, yb)
    assert binary.target_type_ == "binary" and binary.n_labels_ == 1
    ref = M3LClassifier(random_state=0).fit(X, (yb == "yes").astype(int)[:, None])  # column
    d = binary.decision_function(X)
    assert d.shape == (120,)
    np.testing.assert_array_equal(binary.predict(X), np.where(d > 0, "yes", "no"))
    np.testing.assert_allclose(d, ref.decision_function(X), atol=1e-12)
    y3 = Y.argmax(axis=1) % 3
    multi = M3LClassifier(random_state=0).fit(X, y3)
    assert multi.target_type_ == "multiclass" and multi.n_labels_ == 3
    one_hot = M3LClassifier(random_state=0).fit(X, np.eye(3, dtype=int)[y3])
    np.testing.assert_allclose(multi.decision_function(X), one_hot.decision_function(X))
    np.testing.assert_array_equal(multi.predict(X), multi.decision_function(X).argmax(1))
    assert multi.score(X, y3) == np.mean(multi.predict(X) == y3)
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        M3LClassifier().fit(X, np.linspace(0, 1, 120))
    with pytest.raises(ValueError, match="at least 2 classes"):
        M3LClassifier().fit(X, np.ones(120))


# ------------------------------------------------------------ the threshold rule on yeast

def test_threshold_label_on_yeast_beats_one_vs_rest():
    """The numbers behind the threshold rule (LabelRanker docstring, notebook 01):
    at C = 0.03 the threshold label gives a lower Hamming loss and a higher
    micro-F1 than one-vs-rest LinearSVC at its best C of the grid, with the
    ranking loss of the model without threshold label."""
    d = load_yeast()
    model = LabelRanker(C=0.03, bias=1.0, normalize=False, random_state=0).fit(d.X_train, d.Y_train)
    P = model.predict(d.X_test)
    ovr = OneVsRestClassifier(LinearSVC(C=0.1, random_state=0)).fit(d.X_train, d.Y_train)
    Po = ovr.predict(d.X_test)
    assert hamming_loss(d.Y_test, P) < hamming_loss(d.Y_test, Po) < 0.2
    assert f1_score(d.Y_test, P, average="micro") > f1_score(d.Y_test, Po, average="micro") + 0.01
    plain = LabelRanker(C=0.03, bias=1.0, normalize=False, random_state=0,
                        threshold_label=False).fit(
        d.X_train, d.Y_train)
    assert abs(label_ranking_loss(d.Y_test, model.decision_function(d.X_test))
               - label_ranking_loss(d.Y_test, plain.decision_function(d.X_test))) < 0.002


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_renamed_dataframe_columns_are_rejected(est, multilabel):
    """Regression: renamed DataFrame columns were silently accepted."""
    import pandas as pd

    X, Y = multilabel
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(8)])
    model = est.fit(frame, Y)
    np.testing.assert_array_equal(model.feature_names_in_, frame.columns)
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(frame.rename(columns={"f0": "g0"}))
