"""M3LClassifier / m3l_smo / m3l_dca: sample weights (box [0, C w_i]),
sparse input, statuses and parameter validation (issue 14)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError

from polyrank import M3LClassifier
from polyrank.kernels import kernel_matrix
from polyrank.m3l import dual_qp, m3l_dca, m3l_smo
from polyrank.result import STATUS_NUMERICAL

R3 = np.array([[1.0, 0.4, -0.2], [0.4, 1.0, 0.1], [-0.2, 0.1, 1.0]])


def _toy(seed=0, N=30, D=3, L=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    Y = (X @ rng.normal(size=(D, L)) + 0.5 * rng.normal(size=(N, L)) > 0).astype(int)
    return X, Y


def _solve(solver, X, Y, **kw):
    if solver == "dca":
        return m3l_dca(X, Y, R3, 0.8, tol=1e-9, random_state=0, **kw)
    return m3l_smo(X, Y, R3, 0.8, kernel="rbf", gamma=0.5, tol=1e-9, **kw)


@pytest.mark.parametrize("solver", ["dca", "smo"])
def test_integer_weights_equal_repeated_rows(solver):
    X, Y = _toy(1)
    w = np.random.default_rng(2).integers(0, 4, size=len(X))
    weighted = _solve(solver, X, Y, sample_weight=w)
    repeated = _solve(solver, np.repeat(X, w, axis=0), np.repeat(Y, w, axis=0))
    assert weighted.success and repeated.success
    assert weighted.primal_objective == pytest.approx(repeated.primal_objective, rel=1e-8)
    assert weighted.dual_objective == pytest.approx(repeated.dual_objective, rel=1e-8)
    kw = dict(R=R3, C=0.8, tol=1e-9, random_state=0)
    if solver == "smo":
        kw.update(kernel="rbf", gamma=0.5)
    a = M3LClassifier(**kw).fit(X, Y, sample_weight=w)
    b = M3LClassifier(**kw).fit(np.repeat(X, w, axis=0), np.repeat(Y, w, axis=0))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-6)


@pytest.mark.parametrize("solver", ["dca", "smo"])
def test_weights_match_the_weighted_qp_of_clarabel(solver):
    X, Y = _toy(3, N=20)
    w = np.random.default_rng(4).uniform(0.0, 2.5, size=len(X))
    K = X @ X.T if solver == "dca" else kernel_matrix(X, kernel="rbf", gamma=0.5)
    ref = dual_qp(K, Y, R3, 0.8, sample_weight=w)
    res = _solve(solver, X, Y, sample_weight=w)
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=1e-7)
    np.testing.assert_allclose(res.dual["alpha"], ref.x, atol=1e-5)
    assert np.all(res.dual["alpha"] <= 0.8 * w[:, None] + 1e-12)


def test_zero_weight_removes_the_example_and_bad_weights_are_rejected():
    X, Y = _toy(5)
    w = np.ones(len(X))
    w[[0, 7]] = 0
    a = m3l_dca(X, Y, None, 1.0, tol=1e-9, sample_weight=w, random_state=0)
    b = m3l_dca(np.delete(X, [0, 7], 0), np.delete(Y, [0, 7], 0), None, 1.0, tol=1e-9,
                random_state=0)
    np.testing.assert_allclose(a.x, b.x, atol=1e-6)
    assert np.all(a.dual["alpha"][[0, 7]] == 0)
    with pytest.raises(ValueError, match="sample_weight: expected weights >= 0"):
        m3l_smo(X, Y, sample_weight=-w)
    with pytest.raises(ValueError, match="every example has weight 0"):
        m3l_dca(X, Y, sample_weight=0 * w)
    with pytest.raises(ValueError, match=r"only the class \[1\] has positive weight"):
        M3LClassifier().fit(X, np.arange(len(X)) % 2, sample_weight=np.arange(len(X)) % 2)


def test_csr_input_gives_the_dense_solution():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(50, 40)) * (rng.random((50, 40)) < 0.15)
    Y = (rng.random((50, 3)) < 0.4).astype(int)
    dense = M3LClassifier(R=R3, C=0.5, tol=1e-8, random_state=0).fit(X, Y)
    for fmt in (sp.csr_matrix, sp.csc_matrix, sp.csr_array):
        sparse = M3LClassifier(R=R3, C=0.5, tol=1e-8, random_state=0).fit(fmt(X), Y)
        assert sparse.result_.dual_objective == pytest.approx(
            dense.result_.dual_objective, rel=1e-10)
        np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-7)
        np.testing.assert_array_equal(sparse.predict(fmt(X)), dense.predict(X))
    res = m3l_dca(sp.csr_matrix(X), Y, R3, 0.5, tol=1e-8, random_state=0)
    assert res.success


@pytest.mark.parametrize("params", [dict(kernel="rbf"), dict(kernel="poly"),
                                    dict(kernel="linear", solver="smo")])
def test_sparse_without_the_dca_solver_is_a_type_error(params):
    X = sp.csr_matrix(np.eye(6))
    Y = np.eye(6)[:, :2].astype(int)
    with pytest.raises(TypeError, match=f"sparse input is not supported with "
                                        f"kernel='{params['kernel']}'"):
        M3LClassifier(**params).fit(X, Y)
    assert not M3LClassifier(**params).__sklearn_tags__().input_tags.sparse
    with pytest.raises(TypeError, match="sparse"):
        m3l_smo(X, Y)


def test_cache_mb_and_other_parameters_are_constrained():
    X, Y = _toy(7)
    for params in (dict(cache_mb=0.0), dict(cache_mb=-5.0), dict(C=0.0), dict(tol=0.0),
                   dict(max_iter=0), dict(solver="newton"), dict(kernel="precomputed"),
                   dict(bias=-1.0), dict(ridge=-0.1), dict(switch_tol=-1.0),
                   dict(verbose=-1), dict(warm_start="no")):
        with pytest.raises(InvalidParameterError):
            M3LClassifier(**params).fit(X, Y)


def test_never_converged_on_a_negative_or_non_finite_gap(monkeypatch):
    from polyrank.m3l import _kernels, common, dca, smo

    X, Y = _toy(8)
    for fake in ((1.0, 2.0), (np.nan, 0.0)):
        for module in (common, dca, smo):         # every driver module's own name
            monkeypatch.setattr(module, "m3l_objectives", lambda *a, fake=fake: fake)
        # the kernel coordinate ascent forms its objectives in its compiled pass
        monkeypatch.setattr(_kernels, "cd_state", lambda *a, fake=fake: (*fake, 2.0))
        for fit in (lambda: m3l_dca(X, Y), lambda: m3l_smo(X, Y, method="smo"),
                    lambda: m3l_smo(X, Y, method="cd")):
            res = fit()
            assert res.status == STATUS_NUMERICAL and not res.success and res.nit == 1
        with pytest.warns(ConvergenceWarning, match="not finite or the duality gap is negative"):
            M3LClassifier(random_state=0).fit(X, Y)


def test_verbose_prints_one_line_per_iteration(capsys):
    X, Y = _toy(9)
    model = M3LClassifier(verbose=1, random_state=0).fit(X, Y)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == model.n_iter_ and lines[0].startswith("M3LClassifier iter     1")
