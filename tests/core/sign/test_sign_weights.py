"""Sample weights of SC-SDCA / SC-Pegasos and the sign estimators (issue 14).

The weighted problem is ``lam/2 ||w||^2 + 1/sum(s) sum_i s_i phi_i(<w, x_i>)``
s.t. ``c * w >= 0``: an integer weight equals repeating the row, a weight 0
removing it.  References: the unweighted solvers and Clarabel on repeated
rows, scikit-learn's Ridge(positive=True) and LinearSVC with their own
``sample_weight``.
"""

from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import sign_problem
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.svm import LinearSVC

from polyrank import SignConstrainedClassifier, SignConstrainedRegressor
from polyrank.sign import sc_pegasos, sc_sdca
from polyrank.sign.reference import primal_objective, reference_qp

#: X (n, d), yb, yr, ym, c, C and integer weights s (see conftest.sign_problem)
_problem = partial(sign_problem, n=40, d=5, weights=True)


BINARY = [("hinge", "yb"), ("smoothed_hinge", "yb"), ("logistic", "yb"),
          ("square", "yr"), ("absolute", "yr")]


@pytest.mark.parametrize("loss, target", BINARY)
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_integer_weights_equal_repeated_rows(loss, target, layout):
    X, yb, yr, _, c, _, s = _problem(0)
    y = {"yb": yb, "yr": yr}[target]
    kw = dict(lam=0.05, signs=c, tol=1e-11, max_iter=20000, layout=layout, random_state=0)
    weighted = sc_sdca(X, y, loss, sample_weight=s, **kw)
    repeated = sc_sdca(np.repeat(X, s, axis=0), np.repeat(y, s), loss, **kw)
    assert weighted.status == repeated.status == "converged"
    assert weighted.primal_objective == pytest.approx(repeated.primal_objective, abs=3e-11)
    assert weighted.gap >= -1e-12
    # the optimum is unique (lam-strongly convex): ||w - w*||^2 <= 2 gap / lam
    np.testing.assert_allclose(weighted.x, repeated.x, atol=1e-4)
    assert np.all(c * weighted.x >= 0)
    # rows of weight 0 keep alpha = 0
    assert np.all(weighted.dual[s == 0] == 0)


@pytest.mark.parametrize("loss", ["hinge", "absolute", "max_hinge", "top_k_hinge"])
def test_weighted_sdca_matches_clarabel_on_repeated_rows(loss):
    X, yb, yr, ym, c, C, s = _problem(1, n=30)
    y, signs = {"hinge": (yb, c), "absolute": (yr, c)}.get(loss, (ym, C))
    top_k = 2 if loss == "top_k_hinge" else 1
    ref = reference_qp(np.repeat(X, s, axis=0), np.repeat(y, s), loss, 0.1, signs,
                       top_k=top_k)
    res = sc_sdca(X, y, loss, 0.1, signs, top_k=top_k, sample_weight=s, tol=1e-9,
                  max_iter=50000, random_state=0)
    assert res.status == "converged"
    assert res.primal_objective == pytest.approx(ref.primal_objective, abs=2e-8)
    assert res.dual_objective <= ref.primal_objective + 1e-8
    P = primal_objective(X, y, loss, 0.1, res.x, top_k=top_k, sample_weight=s)
    assert P == pytest.approx(res.primal_objective, rel=1e-12)


def test_square_loss_weights_equal_sklearn_ridge_positive():
    X, _, yr, _, _, _, s = _problem(2, n=60)
    yr = yr + X @ np.arange(5.0)
    s = s + np.random.default_rng(0).uniform(0, 1, size=s.size)   # real-valued weights
    lam = 0.02
    ours = SignConstrainedRegressor(lam=lam, signs=[1] * 5, bias=0.0, tol=1e-13,
                                    max_iter=50000, random_state=0).fit(X, yr, sample_weight=s)
    ridge = Ridge(alpha=lam * s.sum(), positive=True, fit_intercept=False, tol=1e-12)
    ridge.fit(X, yr, sample_weight=s)
    np.testing.assert_allclose(ours.coef_, ridge.coef_, atol=1e-6)


def test_hinge_weights_equal_liblinear_sample_weight():
    """Without signs the weighted SC-SVM is LIBLINEAR's L1-loss SVM with
    C_i = C s_i, C = 1/(lam sum(s)) (LinearSVC's sample_weight)."""
    X, yb, _, _, _, _, s = _problem(3, n=80)
    s = s * 0.7
    lam = 0.01
    ours = SignConstrainedClassifier(lam=lam, bias=0.0, tol=1e-12, max_iter=50000,
                                     random_state=0).fit(X, yb, sample_weight=s)
    svc = LinearSVC(C=1 / (lam * s.sum()), loss="hinge", fit_intercept=False, tol=1e-9,
                    max_iter=1_000_000).fit(X, yb, sample_weight=s)
    P_ours = primal_objective(X, yb, "hinge", lam, ours.coef_[0], sample_weight=s)
    P_svc = primal_objective(X, yb, "hinge", lam, svc.coef_[0], sample_weight=s)
    assert P_ours <= P_svc + 1e-9
    np.testing.assert_allclose(ours.coef_, svc.coef_, atol=1e-3)


@pytest.mark.parametrize("loss", ["softmax", "max_hinge"])
def test_multiclass_weights_equal_repeated_rows(loss):
    X, _, _, ym, _, C, s = _problem(4)
    kw = dict(lam=0.05, signs=C, tol=1e-11, max_iter=50000, random_state=0)
    weighted = sc_sdca(X, ym, loss, sample_weight=s, **kw)
    repeated = sc_sdca(np.repeat(X, s, axis=0), np.repeat(ym, s), loss, **kw)
    assert weighted.status == repeated.status == "converged"
    assert weighted.primal_objective == pytest.approx(repeated.primal_objective, abs=3e-11)
    np.testing.assert_allclose(weighted.x, repeated.x, atol=1e-4)


def test_unit_weights_change_nothing():
    X, yb, _, ym, c, C, _ = _problem(5)
    for y, loss, signs in [(yb, "hinge", c), (ym, "max_hinge", C)]:
        a = sc_sdca(X, y, loss, 0.05, signs, tol=1e-8, random_state=3)
        b = sc_sdca(X, y, loss, 0.05, signs, tol=1e-8, random_state=3,
                    sample_weight=np.full(len(y), 2.5))     # scaled to mean 1
        np.testing.assert_array_equal(a.x, b.x)
        assert a.nit == b.nit
        p = sc_pegasos(X, y, loss, 0.05, signs, batch_size=4, max_iter=200, random_state=3)
        q = sc_pegasos(X, y, loss, 0.05, signs, batch_size=4, max_iter=200, random_state=3,
                       sample_weight=np.ones(len(y)))
        np.testing.assert_array_equal(p.x, q.x)


@pytest.mark.parametrize("loss, target", [("logistic", "yb"), ("square", "yr"),
                                          ("softmax", "ym")])
def test_weighted_pegasos_approaches_the_weighted_optimum(loss, target):
    X, yb, yr, ym, c, C, s = _problem(6, n=60)
    y = {"yb": yb, "yr": yr, "ym": ym}[target]
    signs = C if target == "ym" else c
    opt = sc_sdca(X, y, loss, 0.1, signs, sample_weight=s, tol=1e-10, max_iter=20000,
                  random_state=0).primal_objective
    res = sc_pegasos(X, y, loss, 0.1, signs, sample_weight=s, batch_size=5, max_iter=20000,
                     random_state=0)
    assert opt <= res.primal_objective <= opt * (1 + 2e-3)
    assert res.dual_objective <= opt + 1e-9          # a valid lower bound
    assert np.all(res.dual[s == 0] == 0)


def test_estimators_take_weights_on_sparse_and_dense_alike():
    X, yb, yr, ym, c, _, s = _problem(7)
    for est, y in [(SignConstrainedClassifier(lam=0.05, signs=c, tol=1e-10), yb),
                   (SignConstrainedClassifier(lam=0.05, tol=1e-10), ym),
                   (SignConstrainedRegressor(lam=0.05, signs=c, tol=1e-10), yr)]:
        a = est.set_params(random_state=0).fit(X, y, sample_weight=s).coef_.copy()
        b = est.fit(sp.csr_matrix(X), y, sample_weight=s).coef_
        np.testing.assert_allclose(a, b, atol=1e-5)


def test_grid_search_routes_sample_weight():
    X, yb, _, _, c, _, s = _problem(8, n=90)
    grid = GridSearchCV(SignConstrainedClassifier(signs=c, random_state=0),
                        {"lam": [1e-2, 1e-1]}, cv=3).fit(X, yb, sample_weight=s)
    assert grid.best_estimator_.coef_.shape == (1, 5)


@pytest.mark.parametrize("bad, match", [
    (lambda n: -np.ones(n), "sample_weight"),
    (lambda n: np.zeros(n), "sample_weight"),
    (lambda n: np.full(n, np.nan), "sample_weight"),
    (lambda n: np.ones(n + 1), "sample_weight"),
])
def test_bad_weights_raise_naming_the_argument(bad, match):
    X, yb, yr, _, _, _, _ = _problem(9)
    n = len(yb)
    with pytest.raises(ValueError, match=match):
        sc_sdca(X, yb, "hinge", sample_weight=bad(n))
    with pytest.raises(ValueError, match=match):
        sc_pegasos(X, yb, "hinge", sample_weight=bad(n))
    for est, y in [(SignConstrainedClassifier(), yb), (SignConstrainedRegressor(), yr)]:
        with pytest.raises(ValueError, match=match):
            est.fit(X, y, sample_weight=bad(n))
    with pytest.raises(TypeError, match="sample_weight"):
        sc_sdca(X, yb, "hinge", sample_weight=np.array(["a"] * n))


def test_weight_on_a_single_class_raises():
    X, yb, _, _, _, _, _ = _problem(10)
    s = (yb > 0).astype(float)
    with pytest.raises(ValueError, match="sample_weight: .*single class"):
        SignConstrainedClassifier().fit(X, yb, sample_weight=s)
