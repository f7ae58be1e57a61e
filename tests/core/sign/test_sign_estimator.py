"""SignConstrainedClassifier / SignConstrainedRegressor: scikit-learn API,
signs as arrays and dicts, dense and sparse X, both solvers, hostile input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from polyrank import SignConstrainedClassifier, SignConstrainedRegressor
from polyrank.result import STATUS_CALLBACK
from polyrank.sign.reference import reference_qp


def _data(seed=0, n=60, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = np.array([2.0, -1.0, 0.5, 0.0, 1.0])[:d]
    y = np.where(X @ w + 0.3 * rng.normal(size=n) > 0, "pos", "neg")
    return X, y, rng


def test_binary_classifier_equals_the_solver_and_maps_labels():
    X, y, _ = _data()
    clf = SignConstrainedClassifier(lam=0.05, signs=[1, -1, 0, 1, -1], bias=0.0, tol=1e-10,
                                    random_state=0).fit(X, y)
    assert list(clf.classes_) == ["neg", "pos"] and clf.coef_.shape == (1, 5)
    ypm = np.where(y == "pos", 1.0, -1.0)
    ref = reference_qp(X, ypm, "hinge", 0.05, [1, -1, 0, 1, -1])
    np.testing.assert_allclose(clf.coef_[0], ref.x, atol=1e-5)
    assert clf.result_.gap <= 1e-10 and clf.n_iter_ == clf.result_.nit
    assert clf.score(X, y) >= 0.8         # one sign (feature 4) contradicts the truth
    s = clf.decision_function(X)
    assert s.shape == (60,) and np.array_equal(clf.predict(X), np.where(s > 0, "pos", "neg"))


def test_signs_as_dict_by_index_and_by_column_name():
    X, y, _ = _data(1)
    a = SignConstrainedClassifier(lam=0.05, signs={0: 1, 1: -1}, tol=1e-9,
                                  random_state=0).fit(X, y)
    b = SignConstrainedClassifier(lam=0.05, signs=[1, -1, 0, 0, 0], tol=1e-9,
                                  random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(X, columns=["wt", "ph", "ec", "ss", "do"])
    c = SignConstrainedClassifier(lam=0.05, signs={"wt": 1, "ph": -1}, tol=1e-9,
                                  random_state=0).fit(df, y)
    np.testing.assert_array_equal(c.coef_, b.coef_)
    assert list(c.feature_names_in_) == ["wt", "ph", "ec", "ss", "do"]
    np.testing.assert_array_equal(c.signs_, [1, -1, 0, 0, 0])
    with pytest.raises(ValueError, match="signs: unknown feature name 'pH'"):
        SignConstrainedClassifier(signs={"pH": -1}).fit(df, y)
    with pytest.raises(ValueError, match="feature name 'wt' given but X has no column"):
        SignConstrainedClassifier(signs={"wt": -1}).fit(X, y)
    with pytest.raises(ValueError, match="signs: the sign of 0 must be -1, 0 or"):
        SignConstrainedClassifier(signs={0: 2}).fit(X, y)
    with pytest.raises(ValueError, match="feature index 7 out of range"):
        SignConstrainedClassifier(signs={7: 1}).fit(X, y)


@pytest.mark.parametrize("solver", ["sdca", "pegasos"])
@pytest.mark.parametrize("loss", ["hinge", "smoothed_hinge", "logistic"])
def test_dense_and_sparse_fit_agree(solver, loss):
    X, y, rng = _data(2)
    X[rng.random(X.shape) < 0.4] = 0.0
    kw = dict(lam=0.05, signs=[1, -1, 0, 1, -1], loss=loss, solver=solver, random_state=3,
              max_iter=300, batch_size=5, tol=1e-9)
    a = SignConstrainedClassifier(**kw).fit(X, y)
    b = SignConstrainedClassifier(**kw).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.decision_function(sp.csc_matrix(X)),
                               b.decision_function(X), rtol=1e-12, atol=1e-12)
    assert np.all(a.signs_ * a.coef_[0] >= 0)


def test_multiclass_classifier():
    rng = np.random.default_rng(4)
    centers = np.array([[3, 0, 0], [0, 3, 0], [0, 0, 3.0]])
    labels = rng.integers(0, 3, size=90)
    X = centers[labels] + rng.normal(size=(90, 3))
    y = np.array(["a", "b", "c"])[labels]
    C = np.eye(3)                                # feature j is positive evidence of class j
    for loss in ("hinge", "softmax", "top_k_hinge"):
        clf = SignConstrainedClassifier(lam=0.01, signs=C, loss=loss, top_k=2, tol=1e-8,
                                        random_state=0).fit(X, y)
        assert clf.loss_ in ("max_hinge", "softmax", "top_k_hinge")
        assert clf.coef_.shape == (3, 3) and clf.intercept_.shape == (3,)
        assert np.all(C.T * clf.coef_ >= 0)
        assert clf.score(X, y) > 0.9
    d = SignConstrainedClassifier(lam=0.01, signs={(0, "a"): 1, (1, "a"): -1}, tol=1e-8,
                                  random_state=0).fit(X, y)
    assert d.coef_[0, 0] >= 0 and d.coef_[0, 1] <= 0
    with pytest.raises(ValueError, match="unknown class 'z'"):
        SignConstrainedClassifier(signs={(0, "z"): 1}).fit(X, y)
    with pytest.raises(ValueError, match="has no multiclass form"):
        SignConstrainedClassifier(loss="smoothed_hinge").fit(X, y)
    with pytest.raises(ValueError, match=r"signs: expected shape \(3, 3\)"):
        SignConstrainedClassifier(signs=[1, 1, 1]).fit(X, y)


def test_regressor_equals_ridge_positive_and_has_an_intercept():
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(5)
    X = rng.normal(size=(70, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 3.0]) + 0.1 * rng.normal(size=70)
    lam = 0.01
    reg = SignConstrainedRegressor(lam=lam, signs=np.ones(4), bias=0.0, tol=1e-12,
                                   max_iter=20000, random_state=0).fit(X, y)
    ridge = Ridge(alpha=lam * 70, positive=True, fit_intercept=False, tol=1e-12,
                  max_iter=100000).fit(X, y)
    np.testing.assert_allclose(reg.coef_, ridge.coef_, atol=1e-5)
    assert reg.coef_[1] == 0.0
    biased = SignConstrainedRegressor(lam=lam, bias=1.0, tol=1e-10, random_state=0).fit(
        X, y + 5.0)
    assert abs(biased.intercept_ - 5.0) < 0.5
    ab = SignConstrainedRegressor(lam=lam, loss="absolute", signs={1: -1}, tol=1e-4,
                                  max_iter=20000, random_state=0).fit(X, y)
    assert ab.coef_[1] <= 0 and ab.score(X, y) > 0.9
    peg = SignConstrainedRegressor(lam=lam, solver="pegasos", batch_size=10, max_iter=3000,
                                   random_state=0).fit(X, y)
    assert peg.score(X, y) > 0.9


@pytest.mark.parametrize("data", ["wine", "diabetes"])
def test_regressor_default_tol_gives_the_nnls_weights(data):
    """The default tol (1e-10 relative to P(0)) gives non-negative ridge
    weights within the accuracy the docstring states: the largest error
    relative to the largest weight below 1e-4 (measured 1.4e-5 and 2.6e-5;
    the tol of 1e-6 gave 1.6e-3 and 2.4e-3), against the exact solution,
    scipy.optimize.nnls on the augmented system [X; sqrt(lam n) I] w = [y; 0]
    (what Ridge(alpha=lam n, positive=True, fit_intercept=False) solves)."""
    import warnings

    import scipy.optimize
    from sklearn.datasets import load_diabetes
    from sklearn.preprocessing import StandardScaler

    from polyrank.datasets import load_winequality_red

    if data == "wine":
        d = load_winequality_red()
        X, y = d.X, d.quality.astype(float)
    else:
        X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    n, k = X.shape
    lam = 1e-3
    aug = np.vstack([X, np.sqrt(lam * n) * np.eye(k)])
    exact, _ = scipy.optimize.nnls(aug, np.r_[y, np.zeros(k)], maxiter=10_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        reg = SignConstrainedRegressor(lam=lam, signs=np.ones(k), bias=0.0,
                                       random_state=0).fit(X, y)
    assert reg.result_.success
    assert np.max(np.abs(reg.coef_ - exact)) <= 1e-4 * np.max(np.abs(exact))


def test_regressor_stop_does_not_depend_on_the_targets_units():
    """tol is relative to max(1, P(0)) (sc_sdca): the problem in y and in
    1000 y is the same up to scale (w, P and D scale by 1000, 1000^2), so
    the solve takes the same epochs and returns 1000 times the weights.
    With an absolute gap, 1000 y needs a gap 1e6 times smaller and ran out
    of epochs."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 6))
    y = 20.0 + X @ rng.normal(size=6) * 5.0 + rng.normal(size=150)
    small = SignConstrainedRegressor(random_state=0).fit(X, y)
    big = SignConstrainedRegressor(random_state=0).fit(X, 1000.0 * y)
    assert small.result_.success and big.result_.success
    assert small.n_iter_ == big.n_iter_
    np.testing.assert_allclose(big.coef_, 1000.0 * small.coef_, rtol=1e-9, atol=1e-9)
    assert "tol * P(0)" in big.result_.message or "tol * P(0)" in str(big.result_)


def test_regressor_defaults_converge_on_diabetes_as_ridge():
    """Real data nobody tuned for: scikit-learn's diabetes targets (25..346)
    after a StandardScaler.  The defaults converge without a warning and the
    test R^2 is Ridge's (the same problem up to the intercept's penalty)."""
    import warnings

    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = make_pipeline(StandardScaler(), SignConstrainedRegressor(random_state=0))
        ours.fit(Xtr, ytr)
    ridge = make_pipeline(StandardScaler(), Ridge(alpha=1e-3 * len(ytr))).fit(Xtr, ytr)
    assert ours[-1].result_.success
    assert abs(ours.score(Xte, yte) - ridge.score(Xte, yte)) < 1e-3


def test_callback_clone_and_convergence_warning():
    X, y, _ = _data(6)
    seen = []

    def cb(info):
        seen.append(info.gap)
        if len(seen) == 2:
            raise StopIteration

    clf = SignConstrainedClassifier(lam=0.05, random_state=0).fit(X, y, callback=cb)
    assert clf.result_.status == STATUS_CALLBACK and len(seen) == 2
    assert clone(clf).get_params()["lam"] == 0.05
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        SignConstrainedClassifier(lam=1e-4, max_iter=2, tol=1e-12).fit(X, y)


def test_estimator_hostile_inputs():
    X, y, _ = _data(7, n=20)
    with pytest.raises(ValueError, match="lam"):
        SignConstrainedClassifier(lam=0).fit(X, y)
    with pytest.raises(ValueError, match="lam"):
        SignConstrainedRegressor(lam=-1).fit(X, np.ones(20))
    with pytest.raises(ValueError, match="solver"):
        SignConstrainedClassifier(solver="sgd").fit(X, y)
    with pytest.raises(ValueError, match="at least two classes"):
        SignConstrainedClassifier().fit(X, np.array(["a"] * 20))
    with pytest.raises(ValueError, match="signs: entries must be"):
        SignConstrainedClassifier(signs=[1, 0.5, 0, 0, 0]).fit(X, y)
    with pytest.raises(ValueError, match="signs: expected shape"):
        SignConstrainedClassifier(signs=[1, 0]).fit(X, y)
    Xn = X.copy()
    Xn[0, 0] = np.inf
    with pytest.raises(ValueError, match="Input X contains infinity"):
        SignConstrainedClassifier().fit(Xn, y)
    with pytest.raises(ValueError, match="Input y contains NaN"):
        SignConstrainedRegressor().fit(X, np.full(20, np.nan))
    with pytest.raises(ValueError, match="loss"):
        SignConstrainedRegressor(loss="hinge").fit(X, np.ones(20))
    clf = SignConstrainedClassifier(lam=0.1).fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but SignConstrainedClassifier "
                                         "is expecting 5 features"):
        clf.predict(X[:, :3])
    with pytest.raises(ValueError, match="Unknown label type"):
        SignConstrainedClassifier().fit(X, np.linspace(0, 1, 20))    # a regression target
    with pytest.raises(ValueError, match="shrinking: implemented for the binary"):
        SignConstrainedClassifier(shrinking=True, loss="max_hinge").fit(X, y)
    with pytest.raises(ValueError, match="requires y to be passed"):
        SignConstrainedRegressor().fit(X, None)


def test_shrinking_reaches_the_same_model_through_the_estimators():
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    data = load_breast_cancer()
    X = StandardScaler().fit_transform(data.data)
    kw = dict(lam=1e-3, loss="smoothed_hinge", signs={0: 1, 2: 1}, tol=1e-8,
              max_iter=20000, random_state=0)
    plain = SignConstrainedClassifier(shrinking=False, **kw).fit(X, data.target)   # Alg. 2
    shrunk = SignConstrainedClassifier(**kw).fit(X, data.target)     # the default
    assert shrunk.get_params()["shrinking"] == "auto" and "n_active" in shrunk.result_.trace.columns
    assert abs(plain.result_.primal_objective - shrunk.result_.primal_objective) <= 2e-8
    assert shrunk.result_.trace.steps[-1] < plain.result_.trace.steps[-1]
    np.testing.assert_allclose(shrunk.coef_, plain.coef_, atol=1e-3)
    reg = SignConstrainedRegressor(lam=0.01, loss="absolute", shrinking=True, tol=1e-8,
                                   max_iter=20000, random_state=0).fit(X[:, :5], X[:, 5])
    assert reg.result_.gap <= 1e-8 and "n_active" in reg.result_.trace.columns


# ------------------------------------------------------------ probabilities
# issue 29, item 5: predict_proba / predict_log_proba of the likelihood losses,
# against scikit-learn's LogisticRegression on the same unconstrained problem:
# lam/2 ||w||^2 + 1/n sum log-loss  <=>  1/2 ||w||^2 + C sum log-loss, C = 1/(lam n)

def _proba_data(n_classes, seed=0, n=150, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    scores = X @ rng.normal(size=(d, n_classes)) + 0.8 * rng.normal(size=(n, n_classes))
    # labels whose sorted order differs from their order of appearance
    names = np.array(["zeta", "alpha", "mu", "beta"][:n_classes])
    return X, names[np.argmax(scores, axis=1)]


@pytest.mark.parametrize("bias", [0.0, 1.0, 3.0])
def test_logistic_probabilities_equal_logistic_regression(bias):
    """Binary logistic loss: liblinear's LogisticRegression appends the same
    regularised constant feature (intercept_scaling = bias)."""
    from sklearn.linear_model import LogisticRegression
    X, y = _proba_data(2)
    lam, n = 0.01, len(y)
    clf = SignConstrainedClassifier(lam=lam, loss="logistic", bias=bias, tol=1e-14,
                                    max_iter=100_000, random_state=0).fit(X, y)
    assert clf.result_.success
    ref = LogisticRegression(solver="liblinear", C=1 / (lam * n), fit_intercept=bias > 0,
                             intercept_scaling=max(bias, 1.0), tol=1e-12,
                             max_iter=100_000).fit(X, y)
    assert list(clf.classes_) == list(ref.classes_) == ["alpha", "zeta"]
    P, L = clf.predict_proba(X), clf.predict_log_proba(X)
    assert P.shape == L.shape == (n, 2)
    np.testing.assert_allclose(P, ref.predict_proba(X), atol=1e-6)
    np.testing.assert_allclose(L, ref.predict_log_proba(X), atol=1e-5)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-15)
    # the probability of classes_[1] grows with the decision function
    assert np.array_equal(clf.predict(X), clf.classes_[np.argmax(P, axis=1)])
    assert np.all(np.diff(P[np.argsort(clf.decision_function(X)), 1]) >= 0)


@pytest.mark.parametrize("loss, n_classes", [("softmax", 3), ("logistic", 4), ("softmax", 2)])
def test_softmax_probabilities_equal_multinomial_logistic_regression(loss, n_classes):
    from sklearn.linear_model import LogisticRegression
    X, y = _proba_data(n_classes, seed=1)
    lam, n = 0.01, len(y)
    clf = SignConstrainedClassifier(lam=lam, loss=loss, bias=0.0, tol=1e-14,
                                    max_iter=100_000, random_state=0).fit(X, y)
    assert clf.result_.success and clf.loss_ == "softmax"
    ref = LogisticRegression(C=1 / (lam * n), fit_intercept=False, tol=1e-12,
                             max_iter=100_000).fit(X, y)
    assert list(clf.classes_) == list(ref.classes_)
    P = clf.predict_proba(X)
    assert P.shape == (n, n_classes)
    if n_classes > 2:     # LogisticRegression fits two classes by the binary loss
        np.testing.assert_allclose(P, ref.predict_proba(X), atol=1e-6)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(clf.predict_log_proba(X), np.log(P), rtol=1e-12)
    assert np.array_equal(clf.predict(X), clf.classes_[np.argmax(P, axis=1)])


@pytest.mark.parametrize("n_classes", [2, 3])
def test_probabilities_stay_finite_at_huge_scores(n_classes):
    X, y = _proba_data(n_classes, seed=2)
    clf = SignConstrainedClassifier(loss="logistic", random_state=0).fit(X, y)
    clf.coef_ = clf.coef_ * 1e6           # scores ~1e6: exp overflows if done naively
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        P, L = clf.predict_proba(X), clf.predict_log_proba(X)
    assert np.all(np.isfinite(P)) and np.all(np.isfinite(L))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-14)
    assert L.min() < -1e4                 # log of an underflowed probability, still finite


@pytest.mark.parametrize("loss", ["hinge", "smoothed_hinge", "max_hinge", "top_k_hinge"])
def test_no_probabilities_without_a_likelihood_loss(loss):
    X, y = _proba_data(3 if loss in ("max_hinge", "top_k_hinge") else 2)
    clf = SignConstrainedClassifier(loss=loss, random_state=0)
    assert not hasattr(clf, "predict_proba") and not hasattr(clf, "predict_log_proba")
    clf.fit(X, y)
    assert not hasattr(clf, "predict_proba")
    with pytest.raises(AttributeError, match="has no attribute 'predict_proba'") as info:
        clf.predict_proba(X)
    assert "only with loss='logistic' or 'softmax'" in str(info.value.__cause__)
    assert hasattr(SignConstrainedClassifier(loss="logistic"), "predict_proba")
    assert not hasattr(SignConstrainedRegressor(), "predict_proba")


# ------------------------------------------------------------ trivial models
# issue 29, item 2

def test_signs_that_contradict_the_data_warn_of_a_trivial_model():
    from polyrank.exceptions import TrivialModelWarning
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] + X[:, 1] > 0, "pos", "neg")
    # both weights must be <= 0 although both features point to "pos": w = 0
    with pytest.warns(TrivialModelWarning, match=r"SignConstrainedClassifier: every weight "
                      r"is zero.*lower lam \(now 0.001\).*signs"):
        clf = SignConstrainedClassifier(signs=[-1, -1], random_state=0).fit(X, y)
    assert clf.result_.success and not np.any(clf.coef_)
    with pytest.warns(TrivialModelWarning, match="SignConstrainedRegressor: every weight"):
        SignConstrainedRegressor(signs=[-1, -1], random_state=0).fit(X, X @ [1.0, 2.0])
    # the weights are not all zero, but the intercept (bias feature) wins everywhere
    Xs = np.column_stack([X[:, 0], -np.abs(X[:, 1])])
    yi = np.where(rng.random(80) < 0.9, "pos", "neg")
    with pytest.warns(TrivialModelWarning, match="predicts pos for every training row "
                      "although y holds 2 distinct values"):
        SignConstrainedClassifier(lam=1.0, bias=1.0, random_state=0).fit(Xs, yi)


def test_ordinary_fits_do_not_warn_of_a_trivial_model():
    import warnings

    from polyrank.exceptions import TrivialModelWarning
    X, y, _ = _data(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrivialModelWarning)
        SignConstrainedClassifier(signs=[1, -1, 0, 0, 1], random_state=0).fit(X, y)
        SignConstrainedRegressor(random_state=0).fit(X, X @ [1.0, 0.0, 0.0, 2.0, 0.0])
