"""PathDisplay (issue 45, item 4): the coefficients and the test metric along C,
the current C marked; its numbers are the path function's and a metric
computed independently."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics import accuracy_score, mean_absolute_error
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import polyrank as pr
from polyrank.ranksvm import ranksvm_path
from polyrank.sign import sign_path
from polyrank_widgets import PathDisplay
from polyrank_widgets.path_display import leading_lines


def _ranking(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 5))
    qid = np.repeat(np.arange(15), 20)
    y = np.digitize(X @ np.array([1.0, -1.0, 0.5, 0.0, 0.2]), [-1.0, 1.0])
    return X, y, qid


def _trace(fig, name):
    found = [t for t in fig.data if t.name == name]
    assert len(found) == 1, [t.name for t in fig.data]
    return found[0]


def test_from_estimator_draws_the_path_functions_numbers():
    X, y, qid = _ranking()
    Cs = [0.01, 0.1, 1.0, 10.0]
    disp = PathDisplay.from_estimator(pr.RankSVM(), X, y, Cs=Cs, fit_params={"qid": qid},
                                      test=(X, y, qid), current=1.0)
    ref = ranksvm_path(X, y, qid=qid, Cs=Cs)
    np.testing.assert_allclose(disp.Cs, ref.Cs)
    np.testing.assert_allclose(disp.path.objectives, ref.objectives, rtol=1e-10)
    W = np.stack([c.ravel() for c in ref.coefs])           # 5 coefficients: all drawn
    assert disp.labels == [f"w[{j}]" for j in range(5)]
    np.testing.assert_allclose(disp.coefs, W, rtol=1e-10)
    for j in range(5):
        np.testing.assert_allclose(_trace(disp.figure_, f"w[{j}]").y, W[:, j], rtol=1e-10)
    # the metric: mean NDCG over queries, each C scored by its own model
    for C, m in zip(Cs, disp.metric):
        assert m == pytest.approx(pr.RankSVM(C=C).fit(X, y, qid=qid).score(X, y, qid),
                                  abs=1e-6)
    assert "mean NDCG" in disp.metric_name and "higher is better" in disp.metric_name
    current = [t for t in disp.figure_.data if t.name.startswith("current C")]
    assert len(current) == 2 and all(list(t.x) == [1.0, 1.0] for t in current)
    assert disp.figure_.layout.xaxis.type == "log" and disp.figure_.layout.xaxis2.type == "log"


def test_a_lam_path_is_drawn_by_increasing_lam_with_an_independent_accuracy():
    X, y = make_classification(300, 6, random_state=0)
    lams = [1e-1, 1e-2, 1e-3]
    est = make_pipeline(StandardScaler(), pr.SignConstrainedClassifier(random_state=0,
                                                                       tol=1e-10))
    disp = PathDisplay.from_estimator(est, X, y, Cs=lams, test=(X, y))
    np.testing.assert_allclose(disp.Cs, sorted(lams))
    assert disp.param == "lam" and disp.current == pytest.approx(1e-3)   # the default lam
    Xs = StandardScaler().fit_transform(X)
    ref = sign_path(Xs, y, lams=lams, random_state=0, tol=1e-10)
    order = np.argsort(ref.Cs)
    np.testing.assert_allclose(disp.coefs, np.stack([ref.coefs[i].ravel() for i in order]),
                               rtol=1e-6, atol=1e-9)
    for lam, m in zip(disp.Cs, disp.metric):
        model = pr.SignConstrainedClassifier(random_state=0, lam=lam, tol=1e-10).fit(Xs, y)
        assert m == pytest.approx(accuracy_score(y, model.predict(Xs)))


def test_a_loss_is_drawn_as_itself():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = np.digitize(X @ np.array([1.0, 0.5, -0.5]), [-0.5, 0.5])
    disp = PathDisplay.from_estimator(pr.OrdinalMarginRanker(), X, y, Cs=[0.1, 1.0],
                                      test=(X, y))
    assert "mean absolute error (lower is better)" in disp.metric_name
    for c, m in zip(disp.Cs, disp.metric):
        model = pr.OrdinalMarginRanker(c=c).fit(X, y)
        assert m == pytest.approx(mean_absolute_error(y, model.predict(X)), abs=1e-9)


def test_leading_lines_keep_the_largest_entries_and_a_changing_shape_as_a_norm():
    coefs = [np.array([[0.0, 5.0, 0.1]]), np.array([[0.2, 6.0, -0.3]])]
    values, labels = leading_lines(coefs, 2)
    assert labels == ["w[0, 1]", "w[0, 2]"]
    np.testing.assert_allclose(values, [[5.0, 0.1], [6.0, -0.3]])
    values, labels = leading_lines([np.ones(2), np.ones(3)], 5, dual=True)
    assert labels == ["‖model‖"] and values[:, 0] == pytest.approx([2 ** 0.5, 3 ** 0.5])


def test_bad_arguments():
    X, y = make_classification(40, 3, n_informative=2, n_redundant=0, random_state=0)
    with pytest.raises(TypeError, match="estimator: PRank has no penalty"):
        PathDisplay.from_estimator(pr.PRank(), X, y)
    with pytest.raises(TypeError, match="estimator"):
        PathDisplay.from_estimator(object(), X, y)
    with pytest.raises(ValueError, match="Cs"):
        PathDisplay.from_estimator(pr.SignConstrainedClassifier(), X, y, Cs=[-1.0])
    with pytest.raises(TypeError, match="path"):
        PathDisplay.from_path({"Cs": [1.0]})
    with pytest.raises(ValueError, match="labels"):
        PathDisplay(Cs=[1.0, 2.0], coefs=np.ones((2, 2)), labels=["a"])
    with pytest.raises(ValueError, match="metric"):
        PathDisplay(Cs=[1.0, 2.0], coefs=np.ones((2, 1)), labels=["a"], metric=[1.0])
