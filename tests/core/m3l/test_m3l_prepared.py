"""M3LClassifier keeps what it builds from X alone along a path (issue 45,
item 2; ``polyrank._warm.prepared``): the solver's form of X, the linear
rows and the kernel solver's Gram matrix are built once while
``warm_start=True`` and the data are the same, and rebuilt when X, y, the
kernel or the bias change."""

from __future__ import annotations

import numpy as np
import pytest

from polyrank import M3LClassifier, _warm


def _data(seed=0, N=60, D=5, L=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    Y = (X @ rng.normal(size=(D, L)) + 0.3 * rng.normal(size=(N, L)) > 0).astype(int)
    return X, Y


def _kept(est):
    return _warm._PREPARED.get(est, (None, None))[1]


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_the_data_form_is_built_once_along_a_path(kernel):
    X, Y = _data()
    est = M3LClassifier(kernel=kernel, C=0.1, warm_start=True, random_state=0).fit(X, Y)
    first = _kept(est)
    assert first is not None
    K = first.grams.get("K") if first.grams is not None else None
    est.set_params(C=0.3).fit(X, Y)
    assert est.result_.warm_start == "used"
    assert _kept(est) is first                       # reused, not rebuilt
    if kernel == "rbf":
        assert first.grams["K"] is K                 # the Gram matrix computed once
    # the warm fit solves the same problem as a cold one, to the tolerance
    cold = M3LClassifier(kernel=kernel, C=0.3, random_state=0).fit(X, Y)
    rel = abs(est.result_.primal_objective - cold.result_.primal_objective)
    assert rel <= 1e-2 * abs(cold.result_.primal_objective)
    assert est.result_.gap <= 1e-2 * est.result_.primal_objective


@pytest.mark.parametrize("change", ["X", "y", "kernel", "bias"])
def test_a_change_of_what_the_build_reads_rebuilds(change):
    X, Y = _data()
    est = M3LClassifier(C=0.1, warm_start=True, random_state=0).fit(X, Y)
    first = _kept(est)
    X2, Y2 = X, Y
    if change == "X":
        X2 = X.copy()
        X2[0, 0] += 1.0
    elif change == "y":
        Y2 = Y.copy()
        Y2[0, 0] = 1 - Y2[0, 0]
    elif change == "kernel":
        est.set_params(kernel="rbf")
    else:
        est.set_params(bias=2.0)
    est.fit(X2, Y2)
    second = _kept(est)
    assert second is not first
    if change == "X":
        assert second.Xa[0, 0] == X2[0, 0]             # built from the new X
        np.testing.assert_array_equal(second.rows.X[:, :X.shape[1]], X2)
    if change == "bias":
        assert np.all(second.Xa[:, -1] == 2.0)          # the new bias feature
    if change == "kernel":
        assert second.rows is None and second.grams is not None


def test_a_new_kernel_width_recomputes_the_kept_gram_matrix():
    X, Y = _data()
    est = M3LClassifier(kernel="rbf", gamma=0.1, warm_start=True, random_state=0).fit(X, Y)
    store = _kept(est).grams
    K1 = store["K"]
    est.set_params(gamma=0.5).fit(X, Y)
    assert _kept(est).grams is store                   # the same data: the same store ...
    assert store["K"] is not K1                        # ... with the new kernel's matrix
    assert not np.allclose(store["K"], K1)
    cold = M3LClassifier(kernel="rbf", gamma=0.5, random_state=0).fit(X, Y)
    np.testing.assert_allclose(est.decision_function(X), cold.decision_function(X),
                               atol=0.05 * np.abs(cold.decision_function(X)).max())


def test_nothing_is_kept_without_warm_start():
    X, Y = _data()
    est = M3LClassifier(kernel="rbf").fit(X, Y)
    assert _kept(est) is None
    est.set_params(warm_start=True).fit(X, Y)
    assert _kept(est) is not None
    est.set_params(warm_start=False).fit(X, Y)
    assert _kept(est) is None
