"""PRank's honest endings (issue 28 item 5): a fixed number of passes is its
design, a non-finite score is a numerical failure that leaves no model, and
nothing mentions a duality gap PRank does not have."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

from polyrank import PRank
from polyrank.exceptions import FeatureScaleWarning, NumericalError, TrivialModelWarning
from polyrank.ordinal import make_instance, prank
from polyrank.result import STATUS_COMPLETED, STATUS_NUMERICAL


@pytest.mark.parametrize("kernel", ["linear", "poly", "csr"])
def test_overflowing_features_are_refused_or_end_in_numerical_failure(kernel):
    X, y = make_instance(60, 1, separable=False, seed=1)
    k = "linear" if kernel == "csr" else kernel
    huge = X.copy()
    huge[:, 0] *= 1e308                            # x . x overflows float64: the input gate
    with pytest.raises(ValueError, match="too large.*scale X"):
        prank(sp.csr_matrix(huge) if kernel == "csr" else huge, y, kernel=k, max_iter=3)
    with pytest.raises(ValueError, match="too large.*scale X"):
        PRank(kernel=k).fit(huge, y)
    if kernel != "poly":
        return
    big = X.copy()
    big[:, 0] *= 1e150                             # passes the gate; (x . x')^3 overflows
    with np.errstate(over="ignore", invalid="ignore"):
        res = prank(big, y, kernel=k, max_iter=3)
    assert res.status == STATUS_NUMERICAL and res.success is False
    assert "not finite" in res.message and "scale the features" in res.message
    assert "dual" not in res.message and "gap" not in res.message
    model = PRank(kernel=k, gamma=1.0).fit(X, y)    # fitted, then a failed refit
    with pytest.raises(NumericalError, match="not finite"), np.errstate(over="ignore",
                                                                        invalid="ignore"):
        model.fit(big, y)
    with pytest.raises(NotFittedError):
        model.predict(X[:2])
    # the default gamma = 1 / max ||x||^2 bounds the kernel: no overflow (the scale
    # warning says what the units do to the model)
    with pytest.warns(FeatureScaleWarning):
        bounded = PRank(kernel=k).fit(big, y)
    assert bounded.result_.status == STATUS_COMPLETED
    assert np.all(np.isfinite(bounded.decision_function(big)))


def test_completed_passes_log_has_no_gap(capsys):
    X, y = make_instance(80, 1, separable=False, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = PRank(max_iter=4, verbose=1, shuffle=True, random_state=0).fit(X, y)
    out = capsys.readouterr().out
    assert out.count("PRank iter") == 4 and "mistakes" in out
    assert "gap" not in out and "dual" not in out and "primal" not in out
    res = model.result_
    assert res.status == STATUS_COMPLETED and res.success and res.nit == 4
    assert res.message == (f"completed 4 passes (max_iter=4); {res.mistakes} mistakes "
                           "in the last pass")


def test_trivial_prank_warns():
    X = np.zeros((12, 2))                           # every score 0: one grade
    y = np.arange(12) % 3
    with pytest.warns(TrivialModelWarning, match="PRank: every weight is zero|predicts"):
        PRank().fit(X, y)


def test_prank_in_raw_units_warns_and_names_the_pipeline():
    """Real data in units nobody tuned for: scikit-learn's diabetes features
    x 1000 + 50 (equal scales, so only PRank's own magnitude check can see
    it).  PRank's thresholds move by 1 per mistake while its w adds rows of
    magnitude 70: one pass is no better than guessing, silently before.
    Now a FeatureScaleWarning names the fix, and the fix works."""
    from sklearn.datasets import load_diabetes
    from sklearn.metrics import mean_absolute_error
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from polyrank.exceptions import FeatureScaleWarning

    X, target = load_diabetes(return_X_y=True)
    y = np.digitize(target, np.quantile(target, [0.2, 0.4, 0.6, 0.8]))
    Xtr, Xte, ytr, yte = train_test_split(X * 1000 + 50, y, random_state=0)
    with pytest.warns(FeatureScaleWarning,
                      match=r"root mean square of its entries is 69\.\d.*"
                            r"make_pipeline\(StandardScaler\(\), PRank\(\)\)"):
        raw = PRank().fit(Xtr, ytr)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaled = make_pipeline(StandardScaler(), PRank()).fit(Xtr, ytr)
        PRank(kernel="rbf").fit(Xtr, ytr)         # rbf values lie in [0, 1]: no warning
    mae_raw = mean_absolute_error(yte, raw.predict(Xte))
    mae_scaled = mean_absolute_error(yte, scaled.predict(Xte))
    guess = mean_absolute_error(yte, np.full_like(yte, int(np.median(ytr))))
    assert mae_scaled < guess - 0.2 and mae_raw > mae_scaled + 0.2


def _paper_prank_iterates(X, labels, passes, order_of_pass):
    """Crammer & Singer's Fig. 1 in plain Python (linear kernel), returning
    every iterate (w, b) after each object: the reference for averaging."""
    l = int(labels.max())
    w, b = np.zeros(X.shape[1]), np.zeros(l)
    iterates = []
    for p in range(passes):
        for i in order_of_pass(p):
            f = X[i] @ w
            pred = int(np.sum(f >= b))
            if pred != labels[i]:
                y = np.where(labels[i] >= np.arange(1, l + 1), 1.0, -1.0)
                tau = np.where((f - b) * y <= 0, y, 0.0)
                w, b = w + tau.sum() * X[i], b - tau
            iterates.append((w.copy(), b.copy()))
    return iterates


@pytest.mark.parametrize("sparse", [False, True])
def test_averaged_prank_is_the_mean_of_the_iterates(sparse):
    X, y = make_instance(80, 3, separable=False, seed=4)
    labels = np.searchsorted(np.unique(y), y)
    iterates = _paper_prank_iterates(X, labels, 3, lambda p: np.arange(len(y)))
    w_mean = np.mean([w for w, _ in iterates], axis=0)
    b_mean = np.mean([b for _, b in iterates], axis=0)
    Xin = sp.csr_matrix(X) if sparse else X
    for average, (w_ref, b_ref) in ((True, (w_mean, b_mean)), (False, iterates[-1])):
        res = prank(Xin, labels, max_iter=3, average=average)
        np.testing.assert_allclose(X.T @ res.x, w_ref, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(res.thresholds, b_ref, rtol=1e-12, atol=1e-12)
        assert np.all(np.diff(res.thresholds) >= 0)          # still ordered
    assert not np.allclose(w_mean, iterates[-1][0])          # the two differ here


def test_estimator_default_is_averaged_and_paper_prank_one_flag_away():
    X, y = make_instance(80, 3, separable=False, seed=4)
    avg, last = PRank().fit(X, y), PRank(average=False).fit(X, y)
    assert avg.result_.average and not last.result_.average
    labels = np.searchsorted(np.unique(y), y)
    iterates = _paper_prank_iterates(X, labels, 1, lambda p: np.arange(len(y)))
    np.testing.assert_allclose(last.coef_, iterates[-1][0], atol=1e-12)
    np.testing.assert_allclose(avg.coef_, np.mean([w for w, _ in iterates], axis=0),
                               atol=1e-12)
