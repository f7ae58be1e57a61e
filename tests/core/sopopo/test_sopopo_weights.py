"""LabelRanker / sopopo_batch: sample weights (C_i = C w_i), sparse input,
precomputed kernels, statuses and parameter validation (issue 14)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError

from polyrank import LabelRanker
from polyrank.kernels import kernel_matrix
from polyrank.result import STATUS_CONVERGED, STATUS_NUMERICAL
from polyrank.sopopo import build_pieces, sopopo_batch
from polyrank.sopopo.reference import batch_reduced_qp

TIGHT = dict(tol=1e-11, max_iter=50000, random_state=0)


def ranking_problem(seed, m=14, n=3, k=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    Y = np.round(X @ rng.normal(size=(k, n)).T + 0.5 * rng.normal(size=(m, k)))
    Y[:, 0] = Y.max(axis=1) + 1
    return X, Y


# ------------------------------------------------------------ sample weights

@pytest.mark.parametrize("kernel, order", [("linear", "shuffle"), ("linear", "greedy"),
                                           ("rbf", "cyclic")])
def test_integer_weights_equal_repeated_rows(kernel, order):
    X, Y = ranking_problem(0)
    w = np.array([0, 1, 2, 3, 1, 0, 2, 1, 1, 3, 2, 1, 1, 2])
    kw = dict(C=0.7, decomposition="adjacent_layers", kernel=kernel, gamma=0.5, order=order,
              **TIGHT)
    weighted = sopopo_batch(X, Y, sample_weight=w, **kw)
    repeated = sopopo_batch(np.repeat(X, w, axis=0), np.repeat(Y, w, axis=0), **kw)
    assert weighted.success and repeated.success
    assert weighted.primal_objective == pytest.approx(repeated.primal_objective, rel=1e-9)
    assert weighted.dual_objective == pytest.approx(repeated.dual_objective, rel=1e-9)
    Xt = np.random.default_rng(1).normal(size=(6, 3))
    a = LabelRanker(kernel=kernel, gamma=0.5, order=order, C=0.7,
                    decomposition="adjacent_layers", **TIGHT).fit(X, Y, sample_weight=w)
    b = LabelRanker(kernel=kernel, gamma=0.5, order=order, C=0.7,
                    decomposition="adjacent_layers", **TIGHT).fit(
        np.repeat(X, w, axis=0), np.repeat(Y, w, axis=0))
    np.testing.assert_allclose(a.decision_function(Xt), b.decision_function(Xt), atol=1e-5)


def test_weights_match_the_weighted_qp_of_clarabel():
    """The weighted batch problem posed independently: each piece of example
    i gets the bound C w_i sigma (built here, not by build_pieces)."""
    X, Y = ranking_problem(2)
    w = np.random.default_rng(3).uniform(0.0, 3.0, size=len(X))
    C = 0.4
    ps = build_pieces(Y, "all_pairs", True, 1.0)
    pieces = [(i, A, B, C * w[i] * Cp) for i, A, B, Cp in map(ps.piece, range(ps.n_pieces))]
    ref = batch_reduced_qp(X, Y, pieces)
    res = sopopo_batch(X, Y, C, decomposition="all_pairs", normalize=True, sample_weight=w,
                       **TIGHT)
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=1e-7)
    assert res.primal_objective == pytest.approx(ref.primal_objective, rel=1e-6)


def test_zero_weight_removes_the_example_and_bad_weights_are_rejected():
    X, Y = ranking_problem(4)
    w = np.ones(len(X))
    w[[2, 5]] = 0
    a = sopopo_batch(X, Y, 1.0, sample_weight=w, **TIGHT)
    b = sopopo_batch(np.delete(X, [2, 5], 0), np.delete(Y, [2, 5], 0), 1.0, **TIGHT)
    np.testing.assert_allclose(a.x, b.x, atol=1e-6)
    with pytest.raises(ValueError, match="sample_weight: expected weights >= 0"):
        sopopo_batch(X, Y, sample_weight=-w)
    with pytest.raises(ValueError, match="every example has weight 0"):
        sopopo_batch(X, Y, sample_weight=0 * w)
    with pytest.raises(ValueError, match="Negative values in data passed to `sample_weight`"):
        LabelRanker().fit(X, Y, sample_weight=-w)
    with pytest.raises(ValueError, match=r"only the class \[1\] has positive weight"):
        LabelRanker().fit(X, np.arange(len(X)) % 2, sample_weight=np.arange(len(X)) % 2)


# ------------------------------------------------------------ sparse input

@pytest.mark.parametrize("order", ["shuffle", "greedy"])
def test_csr_input_gives_the_dense_solution(order):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 30)) * (rng.random((40, 30)) < 0.2)
    y = rng.integers(0, 3, size=40)
    dense = LabelRanker(C=0.5, bias=1.0, order=order, **TIGHT).fit(X, y)
    for fmt in (sp.csr_matrix, sp.csc_matrix, sp.csr_array):
        sparse = LabelRanker(C=0.5, bias=1.0, order=order, **TIGHT).fit(fmt(X), y)
        assert sparse.result_.primal_objective == pytest.approx(
            dense.result_.primal_objective, rel=1e-10)
        np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-8)
        np.testing.assert_allclose(sparse.decision_function(fmt(X)),
                                   dense.decision_function(X), atol=1e-8)
    assert LabelRanker().__sklearn_tags__().input_tags.sparse
    assert not LabelRanker(kernel="rbf").__sklearn_tags__().input_tags.sparse


@pytest.mark.parametrize("kernel", ["rbf", "poly", "precomputed"])
def test_sparse_with_a_nonlinear_kernel_is_a_type_error(kernel):
    X = sp.csr_matrix(np.eye(6))
    with pytest.raises(TypeError, match=f"sparse input is not supported with kernel='{kernel}'"):
        LabelRanker(kernel=kernel).fit(X, np.arange(6) % 2)
    with pytest.raises(TypeError, match="sparse input is not supported"):
        sopopo_batch(X, np.eye(6)[:, :3] + np.eye(6)[:, 3:], kernel=kernel)
    model = LabelRanker(kernel=kernel).fit(np.eye(6) if kernel != "precomputed"
                                           else np.eye(6), np.arange(6) % 2)
    with pytest.raises(TypeError, match="sparse"):
        model.decision_function(X)


# ------------------------------------------------------------ precomputed kernels

def test_precomputed_rejects_non_symmetric_and_indefinite_gram_matrices():
    X, Y = ranking_problem(6)
    K = kernel_matrix(X, kernel="rbf", gamma=0.5)
    bad = K.copy()
    bad[0, 1] += 0.1
    for fit in (lambda G: LabelRanker(kernel="precomputed").fit(G, Y),
                lambda G: sopopo_batch(G, Y, kernel="precomputed")):
        with pytest.raises(ValueError, match="X: the precomputed kernel matrix is not symmetric"):
            fit(bad)
        indefinite = K - 0.5 * np.eye(len(K))           # eigenvalues shifted below 0
        with pytest.raises(ValueError, match="X: the precomputed kernel matrix is indefinite"):
            fit(indefinite)
    # a Gram matrix of repeated points: singular, rounding-level negative eigenvalues
    Xd = np.repeat(X, 2, axis=0)
    Kd = kernel_matrix(Xd, kernel="rbf", gamma=0.5)
    assert np.linalg.eigvalsh(Kd).min() < 1e-12
    model = LabelRanker(kernel="precomputed", random_state=0).fit(Kd, np.repeat(Y, 2, axis=0))
    assert model.result_.success


# ------------------------------------------------------------ statuses and warnings

def test_never_converged_on_a_negative_or_non_finite_gap(monkeypatch):
    from polyrank.sopopo import batch

    X, Y = ranking_problem(7)
    for fake in ((1.0, 2.0), (np.nan, 0.0), (np.inf, 1.0)):
        monkeypatch.setattr(batch._kernels, "objectives", lambda *a, fake=fake: fake)
        res = sopopo_batch(X, Y, 1.0, random_state=0)
        # it stops at its first gap check (with shrinking, the pass of that check
        # depends on the order the pieces are visited in)
        assert res.status == STATUS_NUMERICAL and not res.success and len(res.trace) == 1
        assert res.nit == res.trace.iteration[0]
        assert "scale X" in res.message
        with pytest.warns(ConvergenceWarning, match="numerical|not finite|negative"):
            LabelRanker(random_state=0).fit(X, Y)


def test_stall_and_max_iter_warn():
    X, Y = ranking_problem(8)
    with pytest.warns(ConvergenceWarning, match="max_iter=2 passes done"):
        LabelRanker(tol=1e-12, max_iter=2, random_state=0).fit(X, Y)


def test_verbose_prints_one_line_per_pass(capsys):
    X, Y = ranking_problem(9)
    model = LabelRanker(verbose=1, random_state=0).fit(X, Y)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == model.n_iter_ and lines[0].startswith("LabelRanker iter     1")
    assert "gap" in lines[-1]
    LabelRanker(verbose=0, random_state=0).fit(X, Y)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("params", [dict(C=0.0), dict(C=np.inf), dict(tol=0.0),
                                    dict(max_iter=0), dict(order="random"),
                                    dict(kernel="sigmoid"), dict(gamma=-1.0),
                                    dict(decomposition="pairs"), dict(bias=-1.0),
                                    dict(threshold_label="yes"), dict(verbose=-1)])
def test_parameter_constraints(params):
    X, Y = ranking_problem(10)
    with pytest.raises(InvalidParameterError):
        LabelRanker(**params).fit(X, Y)


def test_readonly_input_is_copied_not_compiled_again():
    X, Y = ranking_problem(11)
    X.flags.writeable = False
    model = LabelRanker(random_state=0).fit(X, Y)
    assert model.result_.status == STATUS_CONVERGED
