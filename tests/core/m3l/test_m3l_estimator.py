"""M3LClassifier and the R builders (m3l-multilabel-zero-shot.txt, Sec. 3,
Sec. 7.2), including the reference numbers of the original M3L C++ code on
yeast and hostile input."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import hamming_loss

from polyrank import M3LClassifier
from polyrank.datasets import load_yeast
from polyrank.m3l import (
    check_R,
    dual_qp,
    empirical_prior,
    labels_pm1,
    prior_from_classes,
    two_label_prior,
)


@pytest.fixture(scope="module")
def yeast():
    return load_yeast()


def _toy(seed=0, N=40, D=3, L=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    Y = (X @ rng.normal(size=(D, L)) + 0.3 * rng.normal(size=(N, L)) > 0).astype(int)
    return X, Y


# -- reference numbers of the original M3L code (issue #7) -------------------

@pytest.mark.parametrize("params, reference", [
    (dict(kernel="linear", C=0.5), 19.90),
    (dict(kernel="rbf", gamma=1.0, C=1.0), 19.25),
])
def test_yeast_matches_the_original_m3l_code(yeast, params, reference):
    model = M3LClassifier(bias=1.0, tol=1e-3, random_state=0, **params)
    model.fit(yeast.X_train, yeast.Y_train)
    assert model.result_.success
    loss = 100 * hamming_loss(yeast.Y_test, model.predict(yeast.X_test))
    assert abs(loss - reference) <= 0.2
    assert model.score(yeast.X_test, yeast.Y_test) == pytest.approx(1 - loss / 100)


# -- estimator behaviour ------------------------------------------------------

def test_linear_solvers_agree_and_match_the_qp():
    X, Y = _toy()
    R = np.array([[1.0, 0.5, -0.3], [0.5, 1.0, 0.1], [-0.3, 0.1, 1.0]])
    dca = M3LClassifier(R=R, C=0.5, tol=1e-8, random_state=0).fit(X, Y)
    smo = M3LClassifier(R=R, C=0.5, tol=1e-8, solver="smo").fit(X, Y)
    Xa = np.hstack([X, np.ones((len(X), 1))])
    ref = dual_qp(Xa @ Xa.T, Y, R, 0.5)
    for m in (dca, smo):
        assert m.result_.dual_objective == pytest.approx(ref.dual_objective, rel=1e-7)
        Z = 2 * Xa.T @ (labels_pm1(Y) * ref.x) @ R
        np.testing.assert_allclose(m.coef_, Z[:3].T, atol=1e-5)
        np.testing.assert_allclose(m.intercept_, Z[3], atol=1e-5)
    np.testing.assert_allclose(dca.decision_function(X), smo.decision_function(X), atol=1e-5)


def test_predict_is_the_sign_of_the_decisions_in_the_input_coding():
    X, Y = _toy(1)
    m01 = M3LClassifier(C=1.0, kernel="rbf", gamma=0.5).fit(X, Y)
    F = m01.decision_function(X)
    assert set(np.unique(m01.predict(X))) <= {0, 1}
    np.testing.assert_array_equal(m01.predict(X), (F > 0).astype(int))
    mpm = M3LClassifier(C=1.0, kernel="rbf", gamma=0.5).fit(X, 2 * Y - 1)
    np.testing.assert_array_equal(mpm.predict(X), np.where(F > 0, 1, -1))
    assert m01.score(X, Y) == pytest.approx(1 - hamming_loss(Y, m01.predict(X)))
    assert m01.score(X, Y) == mpm.score(X, 2 * Y - 1)


def test_bias_is_a_constant_feature():
    X, Y = _toy(2)
    m = M3LClassifier(C=1.0, bias=2.0, tol=1e-8, random_state=0).fit(X, Y)
    m0 = M3LClassifier(C=1.0, bias=0.0, tol=1e-8, random_state=0).fit(
        np.hstack([X, np.full((len(X), 1), 2.0)]), Y)
    np.testing.assert_allclose(m.coef_, m0.coef_[:, :3], atol=1e-5)
    np.testing.assert_allclose(m.intercept_, 2.0 * m0.coef_[:, 3], atol=1e-5)
    assert np.all(M3LClassifier(bias=0.0).fit(X, Y).intercept_ == 0)


def test_clone_params_and_callback():
    X, Y = _toy(3)
    m = M3LClassifier(C=2.0, kernel="poly", degree=2, gamma=0.5, cache_mb=1.0)
    assert clone(m).get_params() == m.get_params()
    rows = []
    m.fit(X, Y, callback=rows.append)
    assert len(rows) == m.n_iter_ == len(m.result_.trace)
    assert m.dual_coef_.shape == (40, 3) and m.alpha_.shape == (40, 3)


def test_convergence_warning():
    X, Y = _toy(4)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        M3LClassifier(C=100.0, tol=1e-12, max_iter=1, random_state=0).fit(X, Y)


def test_constant_label_column_is_solved_like_any_other():
    X, Y = _toy(5)
    Y[:, 0] = 1                       # all +1
    Y[:, 2] = 0                       # all -1
    m = M3LClassifier(C=1.0, tol=1e-8, random_state=0).fit(X, Y)
    assert m.result_.success
    P = m.predict(X)
    assert P[:, 0].all() and not P[:, 2].any()


def test_ridge_is_explicit():
    X, Y = _toy(6)
    R = prior_from_classes([[1, 0, 1], [0, 1, 1]])           # rank 2 of 3
    with pytest.raises(ValueError, match="positive-definite.*ridge"):
        M3LClassifier(R=R).fit(X, Y)
    m = M3LClassifier(R=R, ridge=0.1, random_state=0).fit(X, Y)
    np.testing.assert_allclose(m.R_, R + 0.1 * np.eye(3))


@pytest.mark.parametrize("params, match, exc", [
    (dict(R=[[1.0, 0.5, 0], [0.4, 1, 0], [0, 0, 1]]), "symmetric", ValueError),
    (dict(R=[[1.0, 0.9, 0.9], [0.9, 1, -0.9], [0.9, -0.9, 1]]), "positive-definite",
     ValueError),
    (dict(R=np.eye(4)), r"R: expected shape \(3, 3\)", ValueError),
    (dict(R=np.ones(3)), "R", ValueError),
    (dict(R=[["a"]]), "R", TypeError),
    (dict(C=-1.0), "C", ValueError),
    (dict(solver="newton"), "solver", ValueError),
    (dict(solver="dca", kernel="rbf"), "dca", ValueError),
    (dict(kernel="precomputed"), "kernel", ValueError),
    (dict(bias=-1.0), "bias", ValueError),
    (dict(ridge=-0.1), "ridge", ValueError),
    (dict(gamma=0.0, kernel="rbf"), "gamma", ValueError),
])
def test_hostile_parameters(params, match, exc):
    X, Y = _toy(7)
    with pytest.raises(exc, match=match):
        M3LClassifier(**params).fit(X, Y)


def test_hostile_data():
    X, Y = _toy(8)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        M3LClassifier().fit(Xn, Y)
    Yn = Y.astype(float)
    Yn[1, 1] = np.nan
    with pytest.raises(ValueError, match="Input y contains NaN"):
        M3LClassifier().fit(X, Yn)
    with pytest.raises(ValueError, match="y: M3LClassifier expects class labels"):
        M3LClassifier().fit(X, Y * 3)
    with pytest.raises(ValueError, match="y: M3LClassifier expects class labels"):
        M3LClassifier().fit(X, np.where(Y > 0, 1, -1) * (np.arange(3) - 1))   # -1, 0, 1
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        M3LClassifier().fit(X, Y[:10])
    m = M3LClassifier().fit(X, Y)
    with pytest.raises(ValueError, match="X has 2 features"):
        m.predict(X[:, :2])


# -- priors -------------------------------------------------------------------

def test_prior_from_classes_is_the_weighted_outer_product_sum():
    A = np.array([[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 0, 0]])
    p = np.array([0.5, 0.3, 0.2])
    R = prior_from_classes(A, p)
    Ypm = 2 * A - 1
    expected = sum(p[c] * np.outer(Ypm[c], Ypm[c]) for c in range(3))
    np.testing.assert_allclose(R, expected)
    np.testing.assert_allclose(np.diag(R), 1.0)
    np.testing.assert_allclose(prior_from_classes(A), prior_from_classes(A, np.full(3, 1 / 3)))
    with pytest.raises(ValueError, match="class_probs"):
        prior_from_classes(A, [0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="class_probs"):
        prior_from_classes(A, [1.2, -0.2, 0.0])
    with pytest.raises(ValueError, match="class_attributes"):
        prior_from_classes(A * 2)


def test_empirical_prior_and_two_label_prior():
    Y = np.array([[1, 1], [1, 1], [0, 0], [1, 0]])
    R = empirical_prior(Y)
    np.testing.assert_allclose(R, [[1.0, 0.5], [0.5, 1.0]])
    np.testing.assert_allclose(empirical_prior(2 * Y - 1, ridge=0.5), R + 0.5 * np.eye(2))
    np.testing.assert_allclose(two_label_prior(0.25), [[1, 0.25], [0.25, 1]])
    for r in (1.0, -1.0, np.nan, 2.0):
        with pytest.raises(ValueError, match="r"):
            two_label_prior(r)
    with pytest.raises(TypeError, match="r"):
        two_label_prior("0.5")


def test_check_R_accepts_negative_dense_and_rejects_semidefinite():
    R = np.array([[2.0, -1.0], [-1.0, 2.0]])
    np.testing.assert_array_equal(check_R(R), R)
    with pytest.raises(ValueError, match="positive-definite"):
        check_R(np.ones((2, 2)))
    np.testing.assert_allclose(check_R(np.ones((2, 2)), ridge=1.0), np.ones((2, 2)) + np.eye(2))


def test_warm_start_reaches_the_same_optimum_faster():
    X, Y = _toy(9, N=60)
    R1 = two_label_prior(0.3)
    R2 = two_label_prior(0.4)
    Y2 = Y[:, :2]
    for kw in (dict(kernel="rbf", gamma=0.5), dict(kernel="linear", random_state=0)):
        cold = M3LClassifier(R=R2, C=1.0, tol=1e-8, **kw).fit(X, Y2)
        warm = M3LClassifier(R=R1, C=1.0, tol=1e-8, warm_start=True, **kw).fit(X, Y2)
        warm.set_params(R=R2).fit(X, Y2)
        assert warm.result_.dual_objective == pytest.approx(cold.result_.dual_objective,
                                                            rel=1e-8)
        assert warm.result_.trace.dual[0] > cold.result_.trace.dual[0]
    with pytest.raises(ValueError, match="alpha0"):
        from polyrank.m3l import m3l_smo
        m3l_smo(X, Y2, None, 1.0, alpha0=np.full((60, 2), 2.0))
