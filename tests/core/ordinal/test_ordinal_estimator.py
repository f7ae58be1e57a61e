"""OrdinalMarginRanker and PRank (scikit-learn API), the wine data, hostile
input to the estimators."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from polyrank import OrdinalMarginRanker, PRank
from polyrank.datasets import data_path, load_winequality_red
from polyrank.kernels import kernel_matrix
from polyrank.ordinal import (
    InfeasibleError,
    make_instance,
    predict_labels,
    rank_loss,
    solve_ordinal,
)

POLY4 = {"kernel": "poly", "gamma": 1.0, "degree": 4, "coef0": 1.0}


def test_fit_predict_decision_function_match_the_solver():
    X, y = make_instance(150, 1, separable=False, seed=3)
    model = OrdinalMarginRanker(formulation="paper", margin="soft", c=10.0,
                                add_per_iter=2, **POLY4).fit(X, y)
    res = solve_ordinal(X, y, margin="soft", c=10.0, **POLY4)
    assert model.result_.objective == pytest.approx(res.objective, rel=1e-12)
    np.testing.assert_allclose(model.decision_function(X), res.scores, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(model.predict(X), res.predictions)
    assert model.n_iter_ == res.nit and model.support_.size == res.working_set.size
    # the kernel expansion over the support objects only
    Xt = np.random.default_rng(0).uniform(size=(7, 2))
    f = kernel_matrix(Xt, X, **POLY4) @ res.x
    np.testing.assert_allclose(model.decision_function(Xt), f, rtol=1e-9, atol=1e-8)
    np.testing.assert_array_equal(model.predict(Xt), predict_labels(f, res.thresholds))
    assert model.score(X, y) == -rank_loss(y, res.predictions)
    assert list(model.classes_) == [0, 1, 2, 3]


def test_hard_margin_separable_zero_rank_loss_and_linear_coef():
    X, y = make_instance(150, 2, separable=True, seed=4)
    model = OrdinalMarginRanker(formulation="paper", margin="hard", **POLY4).fit(X, y)
    assert model.score(X, y) == 0.0                       # Table 2: zero on S instances
    assert np.all(np.diff(model.thresholds_) >= 2 - 1e-6)   # p_{k+1} - p_k >= 2
    lin = OrdinalMarginRanker(formulation="paper", margin="soft", c=10.0).fit(X, y)
    np.testing.assert_allclose(lin.decision_function(X), X @ lin.coef_, rtol=1e-10)
    primal = OrdinalMarginRanker(formulation="paper", c=10.0, representation="primal").fit(X, y)
    assert primal.result_.objective == pytest.approx(lin.result_.objective, rel=1e-6)
    np.testing.assert_allclose(primal.coef_, lin.coef_, rtol=1e-4)
    full = OrdinalMarginRanker(formulation="paper", c=10.0, method="full").fit(X, y)
    assert full.result_.objective == pytest.approx(lin.result_.objective, rel=1e-6)


def test_hard_margin_infeasible_and_convergence_warning():
    X, y = make_instance(100, 1, separable=False, seed=5)
    X = np.vstack([X, X[:1]])
    y = np.r_[y, (y[0] + 2) % 4]
    with pytest.raises(InfeasibleError, match="infeasible"):
        OrdinalMarginRanker(formulation="paper", margin="hard", **POLY4).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        OrdinalMarginRanker(formulation="paper", method="generation", max_iter=1).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="max_iter=1 Newton steps"):
        OrdinalMarginRanker(max_iter=1).fit(X, y)


def test_sklearn_clone_params_and_callback():
    model = OrdinalMarginRanker(formulation="paper", c=3.0, kernel="rbf", gamma=2.0)
    assert clone(model).get_params() == model.get_params()
    X, y = make_instance(80, 1, separable=False, seed=6)
    calls = []
    model.fit(X, y, callback=calls.append)
    assert len(calls) == model.n_iter_ and calls[-1].n_rows == model.support_.size
    with pytest.raises(Exception, match="not fitted"):
        OrdinalMarginRanker().predict(X)


@pytest.mark.parametrize("bad, exc, match", [
    ({"labels": ["lo", "hi", "mid", "lo"] * 5}, ValueError, "have no order; give it with"),
    ({"labels": [3, 3, 3, 3] * 5}, ValueError, "at least 2 ordered classes"),
    ({"labels": [0, 1, np.nan, 0] * 5}, ValueError, "NaN"),
    ({"c": 0.0}, ValueError, "c"),
    ({"c": -2.0}, ValueError, "c"),
    ({"X_nan": True}, ValueError, "NaN"),
    ({"kernel": "sigmoid"}, ValueError, "kernel"),
    ({"margin": "firm"}, ValueError, "margin"),
    ({"margin": "hard"}, ValueError, "formulation=.paper."),
    ({"formulation": "svm"}, ValueError, "formulation"),
])
def test_estimator_hostile_input(bad, exc, match):
    X = np.random.default_rng(7).uniform(size=(20, 2))
    y = np.array(bad.get("labels", [0, 1, 2, 3] * 5))
    if bad.get("X_nan"):
        X[2, 0] = np.nan
    params = {k: v for k, v in bad.items() if k in ("c", "kernel", "margin", "formulation")}
    with pytest.raises(exc, match=match):
        OrdinalMarginRanker(**params).fit(X, y)
    if not params:
        with pytest.raises(exc, match=match):
            PRank().fit(X, y)


@pytest.mark.parametrize("Model", [OrdinalMarginRanker, PRank])
def test_labels_as_users_have_them(Model):
    """Issue 14: wine quality 3..8, gaps in the labels, strings with an
    order, an ordered pandas Categorical: the same model as on 0..l, and
    predictions in the user's labels."""
    X, y = make_instance(90, 1, separable=False, seed=11)            # labels 0..3
    kw = {"random_state": 0} if Model is PRank else {}
    base = Model(**kw).fit(X, y)
    names = np.array(["poor", "fair", "good", "great"])
    for labels, extra in ((y + 3, {}),                               # 3..6
                          (np.array([1.0, 2.5, 7.0, 10.0])[y], {}),  # any increasing values
                          (names[y], {"classes": list(names)})):     # strings + order
        m = Model(**kw, **extra).fit(X, labels)
        np.testing.assert_array_equal(m.classes_, np.unique(labels) if not extra else names)
        np.testing.assert_allclose(m.decision_function(X), base.decision_function(X))
        np.testing.assert_array_equal(m.predict(X), m.classes_[base.predict(X)])
    pd = pytest.importorskip("pandas")
    cat = pd.Series(pd.Categorical(names[y], categories=["great", "good", "fair", "poor", "n/a"],
                                   ordered=True))
    m = Model(**kw).fit(X, cat)                # reversed order, an unused level dropped
    assert m.classes_.tolist() == ["great", "good", "fair", "poor"]
    np.testing.assert_array_equal(m.predict(X) == "great",
                                  Model(**kw).fit(X, 3 - y).predict(X) == 0)
    with pytest.raises(ValueError, match="no order"):
        Model(**kw).fit(X, pd.Categorical(names[y]))                 # unordered
    with pytest.raises(ValueError, match="'ok' is not in classes"):
        Model(**kw, classes=["poor", "fair", "good"]).fit(X, np.where(y == 3, "ok", names[y]))
    with pytest.raises(ValueError, match=r"classes \['superb'\] have no object"):
        Model(**kw, classes=[*names, "superb"]).fit(X, names[y])
    # the score is minus the mean absolute error in the labels' units (rank loss for 0..l)
    m = Model(**kw).fit(X, y + 3)
    assert m.score(X, y + 3) == pytest.approx(-np.mean(np.abs(m.predict(X) - (y + 3))))
    s = Model(**kw, classes=list(names)).fit(X, names[y])
    assert s.score(X, names[y]) == pytest.approx(base.score(X, y))


def test_sparse_linear_equals_dense_and_kernels_refuse_it():
    sp = pytest.importorskip("scipy.sparse")
    X, y = make_instance(80, 2, separable=False, seed=12)
    X[X < 0.3] = 0.0
    for rep in ("primal", "dual"):
        d = OrdinalMarginRanker(formulation="paper", representation=rep).fit(X, y)
        s = OrdinalMarginRanker(formulation="paper", representation=rep).fit(sp.csr_matrix(X), y)
        assert s.result_.objective == pytest.approx(d.result_.objective, rel=1e-7)
        np.testing.assert_allclose(s.decision_function(sp.csr_matrix(X)),
                                   d.decision_function(X), atol=1e-6)
    with pytest.raises(TypeError, match="sparse input is not supported with kernel='rbf' "
                                        ".only with kernel='linear'."):
        OrdinalMarginRanker(kernel="rbf").fit(sp.csr_matrix(X), y)
    # PRank: the CSR pass keeps w and makes the same mistakes as the dense kernel pass
    for kw in ({}, {"max_iter": 3, "shuffle": True, "random_state": 4}):
        d = PRank(**kw).fit(X, y)
        s = PRank(**kw).fit(sp.csr_matrix(X), y)
        assert s.result_.mistakes == d.result_.mistakes
        np.testing.assert_allclose(s.thresholds_, d.thresholds_)
        np.testing.assert_allclose(s.coef_, d.coef_, atol=1e-10)
        np.testing.assert_array_equal(s.predict(sp.csr_matrix(X)), d.predict(X))
    with pytest.raises(TypeError, match="sparse input is not supported with kernel='poly' "
                                        ".only with kernel='linear'."):
        PRank(kernel="poly").fit(sp.csr_matrix(X), y)


def test_sample_weight_equals_repeated_objects():
    """Soft margin: an integer weight is the object repeated (c w_i), zero
    weights remove the penalty; the optimum equals the whole QP's."""
    rng = np.random.default_rng(13)
    X, y = make_instance(60, 2, separable=False, seed=13)
    w = rng.integers(0, 4, size=60).astype(float)
    w[:4] = [1, 1, 1, 1]
    keep = np.repeat(np.arange(60), w.astype(int))
    for rep in ("primal", "dual"):
        a = OrdinalMarginRanker(formulation="paper", c=3.0, representation=rep).fit(
            X, y, sample_weight=w)
        b = OrdinalMarginRanker(formulation="paper", c=3.0, representation=rep).fit(
            X[keep], y[keep])
        full = OrdinalMarginRanker(formulation="paper", c=3.0, representation=rep,
                                   method="full").fit(X, y, sample_weight=w)
        assert a.result_.objective == pytest.approx(b.result_.objective, rel=1e-6)
        assert a.result_.objective == pytest.approx(full.result_.objective, rel=1e-6)
        np.testing.assert_allclose(a.decision_function(X), b.decision_function(X),
                                   atol=1e-4 * np.abs(b.decision_function(X)).max())
    with pytest.raises(ValueError, match="sample_weight: needs margin='soft'"):
        OrdinalMarginRanker(formulation="paper", margin="hard").fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="[Nn]egative"):
        OrdinalMarginRanker().fit(X, y, sample_weight=-w)


def test_fast_defaults_reach_the_papers_optimum():
    """Issue 16: the defaults (w in the primal for the linear kernel, a
    larger increment of W under the soft margin) solve the same problem as
    the paper's RC(S-bar) with 2 objects per iteration and as the whole QP."""
    wine = load_winequality_red()
    rows = np.random.default_rng(16).choice(wine.X.shape[0], 200, replace=False)
    X = StandardScaler().fit_transform(wine.X[rows])
    y = wine.quality[rows]
    kw = {"formulation": "paper"}
    default = OrdinalMarginRanker(**kw).fit(X, y)
    fast = OrdinalMarginRanker(method="generation", **kw).fit(X, y)
    paper = OrdinalMarginRanker(representation="dual", method="generation",
                                add_per_iter=2, **kw).fit(X, y)
    whole = OrdinalMarginRanker(method="full", representation="dual", **kw).fit(X, y)
    assert default.result_.algorithm == "full QP" and default.result_.formulation == "S"
    assert fast.result_.algorithm == "RS" and paper.result_.algorithm == "RCSbar"
    assert fast.n_iter_ < paper.n_iter_ / 5
    for other in (paper, whole, default):
        assert fast.result_.objective == pytest.approx(other.result_.objective, rel=1e-6)
        np.testing.assert_allclose(fast.coef_, other.coef_, atol=1e-4 * np.abs(other.coef_).max())
    assert OrdinalMarginRanker(margin="hard")._add_per_iter(1000) == 2
    assert OrdinalMarginRanker(margin="hard")._method() == "generation"
    assert OrdinalMarginRanker(kernel="rbf")._method() == "generation"


def test_clarabel_failure_becomes_a_value_error_saying_what_to_do(monkeypatch):
    """Issue 14: a raw RuntimeError('InsufficientProgress') from Clarabel
    became a ValueError that says to standardize X or lower c."""
    from polyrank.ordinal import subproblems

    def failing(*args, **kwargs):
        raise RuntimeError("Clarabel failed: InsufficientProgress")

    monkeypatch.setattr(subproblems, "solve_qp", failing)
    X, y = make_instance(40, 1, separable=False, seed=14)
    for rep in ("primal", "dual"):
        with pytest.raises(ValueError, match="InsufficientProgress.*standardize X.*lower c"):
            OrdinalMarginRanker(formulation="paper", representation=rep,
                                subproblem_solver="clarabel").fit(X, y)


def test_prank_passes_are_its_design_not_a_failure():
    """Issue 28 item 5: PRank makes a fixed number of passes by design: the
    result says "completed the passes" (success), no ConvergenceWarning;
    a mistake-free pass is "converged"."""
    X, y = make_instance(80, 1, separable=False, seed=15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for max_iter in (1, 3):
            res = PRank(max_iter=max_iter).fit(X, y).result_
            assert res.status == "completed the passes" and res.success
            assert res.message.startswith(f"completed {max_iter} passes (max_iter={max_iter})")
            assert "gap" not in res.message and "dual" not in res.message
        Xs, ys = make_instance(30, 1, separable=True, seed=6)
        res = PRank(max_iter=10_000).fit(Xs, ys).result_
        assert res.status == "converged" and res.mistakes == 0 and res.nit < 10_000


def test_decision_function_checks_features():
    X, y = make_instance(60, 1, seed=8)
    model = OrdinalMarginRanker().fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), X @ model.coef_)
    with pytest.raises(ValueError, match="X"):
        model.decision_function(np.ones((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        model.predict(np.array([[np.nan, 0.0]]))


def test_prank_estimator():
    X, y = make_instance(200, 1, separable=True, seed=9)
    model = PRank(max_iter=3, **POLY4).fit(X, y)
    f = model.decision_function(X)
    K = kernel_matrix(X, X, **POLY4)
    np.testing.assert_allclose(f, K @ model.result_.x, rtol=1e-9, atol=1e-8)
    assert np.all(np.diff(model.thresholds_) >= 0)
    # PRank's rule: the smallest r with f < b_{r+1}
    expect = np.array([next((r for r in range(3) if v < model.thresholds_[r]), 3) for v in f])
    np.testing.assert_array_equal(model.predict(X), expect)
    assert model.n_iter_ <= 3 and model.result_.trace.mistakes.size == model.n_iter_
    shuffled = PRank(max_iter=2, shuffle=True, random_state=0).fit(X, y)
    again = PRank(max_iter=2, shuffle=True, random_state=0).fit(X, y)
    np.testing.assert_array_equal(shuffled.result_.x, again.result_.x)


def test_predict_labels_paper_rule_with_unordered_thresholds():
    # the soft margin problems do not order p; the rule max{k | f > p_k} stands
    p = np.array([1.0, 0.5, 3.0])
    f = np.array([0.0, 0.7, 2.0, 4.0])
    expect = [max([0] + [k + 1 for k in range(3) if v > p[k]]) for v in f]
    assert predict_labels(f, p).tolist() == expect == [0, 2, 2, 3]


def test_winequality_red_bytes_and_shape():
    raw = data_path("winequality", "winequality-red.csv").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == (
        "4a402cf041b025d4566d954c3b9ba8635a3a8a01e039005d97d6a710278cf05e")
    d = load_winequality_red()
    assert d.X.shape == (1599, 11) and d.feature_names[1] == "volatile acidity"
    assert np.bincount(d.quality)[3:].tolist() == [10, 53, 681, 638, 199, 18]
    np.testing.assert_array_equal(d.labels, d.quality - 3)
    first = raw.decode().splitlines()[1].split(";")
    np.testing.assert_array_equal(d.X[0], np.array(first[:11], dtype=float))


def test_rbf_on_raw_units_warns_before_the_solve_and_the_pipeline_fixes_it():
    """scikit-learn's wine recognition data, raw (proline in the thousands,
    hue below 2), its 3 classes as grades: the rbf kernel of such X sees
    little but proline (test MAE 0.51 before, silently).  The
    FeatureScaleWarning names the pipeline, which scores far better; the
    linear model (TRON on the primal) stays quiet on raw X."""
    from sklearn.datasets import load_wine
    from sklearn.metrics import mean_absolute_error
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline

    from polyrank.exceptions import FeatureScaleWarning

    X, y = load_wine(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)
    with pytest.warns(FeatureScaleWarning, match=r"standard deviations range from .* "
                      r"make_pipeline\(StandardScaler\(\), OrdinalMarginRanker\(\)\)"):
        raw = OrdinalMarginRanker(kernel="rbf").fit(Xtr, ytr)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaled = make_pipeline(StandardScaler(), OrdinalMarginRanker(kernel="rbf")).fit(Xtr, ytr)
        OrdinalMarginRanker().fit(Xtr, ytr)
    assert (mean_absolute_error(yte, scaled.predict(Xte))
            < mean_absolute_error(yte, raw.predict(Xte)) - 0.2)
