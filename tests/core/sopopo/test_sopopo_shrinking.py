"""The shrinking variant of the SOPOPO batch solver (``shrinking=True``, the
default): same optimum as the plain procedure of Fig. 5 and as the Clarabel QP
of Eq. 38, exact full duality gap at the stop, KKT conditions of every piece,
and the callback contract."""

from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import label_ranking_problem

from polyrank import LabelRanker
from polyrank.kernels import kernel_matrix
from polyrank.result import STATUS_CONVERGED, STATUS_MAX_ITER
from polyrank.sopopo import _kernels, build_pieces, sopopo_batch
from polyrank.sopopo.reference import batch_reduced_qp

DECOMPOSITIONS = ["all_pairs", "adjacent_layers", "top_vs_rest"]
TIGHT = dict(tol=1e-10, max_iter=100_000, random_state=0)


#: graded label scores with ties and no constant row
ranking_problem = partial(label_ranking_problem, m=40, k=6)


def qp_reference(X, Y, decomposition, C, K=None, normalize=False, sample_weight=None):
    ps = build_pieces(Y, decomposition, normalize, C, sample_weight)
    return batch_reduced_qp(X, Y, [ps.piece(p) for p in range(ps.n_pieces)], K=K)


def full_objectives(res, X, Y, K=None):
    """Primal (Eq. 24) and dual (Eq. 30) recomputed from the returned solution
    alone (W or the dual coefficients, alpha, beta), not from the solver's
    running state."""
    ps = res.dual["pieces"]
    if res.coef_form == "primal":
        F = X @ res.x.T
        sqw = float(np.sum(res.x * res.x))
    else:
        F = K @ res.x
        sqw = float(np.sum(res.x * F))
    pieces = _kernels.PieceArrays(ps.example, ps.C, ps.A_ptr, ps.A_idx, ps.B_ptr, ps.B_idx,
                                  res.dual["alpha"], res.dual["beta"])
    return _kernels.objectives(np.ascontiguousarray(F), Y, pieces, sqw)


def coefficients_from_duals(res, m, k):
    """c[i, r] = sum over the pieces of example i of alpha_r - beta_r (Eq. 15)."""
    ps = res.dual["pieces"]
    c = np.zeros((m, k))
    for p in range(ps.n_pieces):
        i, A, B, _ = ps.piece(p)
        c[i, A] += res.dual["alpha"][ps.A_ptr[p]:ps.A_ptr[p + 1]]
        c[i, B] -= res.dual["beta"][ps.B_ptr[p]:ps.B_ptr[p + 1]]
    return c


def max_kkt_violation(res, F, Y):
    """Largest violation of the optimality conditions of the soft projection of
    any piece (Eq. 23): the labels of a side with positive dual variables share
    the largest margin u_a = y_a - f_a (v_b = f_b - y_b), and U + V is
    <= 0 if the piece's total s = 0, = 0 if 0 < s < C_p, >= 0 if s = C_p."""
    ps = res.dual["pieces"]
    alpha, beta = res.dual["alpha"], res.dual["beta"]
    worst = 0.0
    for p in range(ps.n_pieces):
        i, A, B, Cp = ps.piece(p)
        a = alpha[ps.A_ptr[p]:ps.A_ptr[p + 1]]
        b = beta[ps.B_ptr[p]:ps.B_ptr[p + 1]]
        assert a.min() >= 0 and b.min() >= 0
        s = a.sum()
        assert s == pytest.approx(b.sum(), abs=1e-12 * max(1.0, Cp))
        assert s <= Cp * (1 + 1e-12)
        u = Y[i, A] - F[i, A]
        v = F[i, B] - Y[i, B]
        U, V = u.max(), v.max()
        if (a > 0).any():
            worst = max(worst, U - u[a > 0].min())
        if (b > 0).any():
            worst = max(worst, V - v[b > 0].min())
        if s < Cp * (1 - 1e-9):
            worst = max(worst, U + V)
        if s > 1e-12 * max(Cp, 1.0):
            worst = max(worst, -(U + V))
    return worst


@pytest.mark.parametrize("decomposition", DECOMPOSITIONS)
@pytest.mark.parametrize("order", ["shuffle", "cyclic"])
def test_shrinking_reaches_the_qp_optimum(decomposition, order):
    X, Y = ranking_problem(1)
    C = 0.3
    ref = qp_reference(X, Y, decomposition, C)
    res = sopopo_batch(X, Y, C, decomposition=decomposition, order=order, **TIGHT)
    assert res.status == STATUS_CONVERGED and res.success
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=1e-8)
    np.testing.assert_allclose(res.x, ref.W, atol=1e-4 * np.abs(ref.W).max())
    # the stop is on the exact gap of the full problem, recomputed here
    P, D = full_objectives(res, X, Y)
    assert P == pytest.approx(res.primal_objective, rel=1e-12)
    assert D == pytest.approx(res.dual_objective, rel=1e-12)
    assert P - D <= 1e-10 * P
    # W is the sum of the pieces' contributions (Eq. 15)
    c = coefficients_from_duals(res, *Y.shape)
    np.testing.assert_allclose(c.T @ X, res.x, atol=1e-10)
    assert max_kkt_violation(res, X @ res.x.T, Y) <= 1e-4
    # dual ascent: never decreases between the checks
    d = res.trace.dual
    assert np.all(np.diff(d) >= -1e-10 * abs(d).max())


@pytest.mark.parametrize("decomposition", DECOMPOSITIONS)
def test_shrinking_agrees_with_the_plain_solver(decomposition):
    X, Y = ranking_problem(2, m=60)
    plain = sopopo_batch(X, Y, 1.0, decomposition=decomposition, shrinking=False, **TIGHT)
    shrunk = sopopo_batch(X, Y, 1.0, decomposition=decomposition, **TIGHT)
    assert plain.success and shrunk.success
    assert shrunk.primal_objective == pytest.approx(plain.primal_objective, rel=1e-9)
    assert shrunk.dual_objective == pytest.approx(plain.dual_objective, rel=1e-9)
    np.testing.assert_allclose(shrunk.x, plain.x, atol=1e-4 * np.abs(plain.x).max())
    # the plain solver records every pass; the shrinking one only its checks
    assert len(plain.trace) == plain.nit
    assert len(shrunk.trace) <= shrunk.nit and shrunk.trace.iteration[-1] == shrunk.nit
    assert np.all(np.diff(shrunk.trace.iteration) > 0)


@pytest.mark.parametrize("kernel, params", [("rbf", dict(gamma=0.5)),
                                            ("poly", dict(gamma=0.3, degree=2, coef0=1.0))])
@pytest.mark.parametrize("decomposition", DECOMPOSITIONS)
def test_shrinking_kernel_form_matches_the_qp(kernel, params, decomposition):
    X, Y = ranking_problem(3, m=30)
    K = kernel_matrix(X, kernel=kernel, **params)
    ref = qp_reference(None, Y, decomposition, 0.5, K=K)
    res = sopopo_batch(X, Y, 0.5, decomposition=decomposition, kernel=kernel, **TIGHT,
                       **params)
    assert res.coef_form == "dual" and res.success
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=1e-8)
    pre = sopopo_batch(K, Y, 0.5, decomposition=decomposition, kernel="precomputed",
                       **TIGHT)
    assert pre.dual_objective == pytest.approx(ref.dual_objective, rel=1e-8)
    P, D = full_objectives(pre, None, Y, K=K)
    assert P - D <= 1e-10 * P
    np.testing.assert_allclose(coefficients_from_duals(pre, *Y.shape), pre.x, atol=1e-12)
    assert max_kkt_violation(pre, K @ pre.x, Y) <= 1e-4


def test_shrinking_on_sparse_input_equals_dense():
    X, Y = ranking_problem(4, m=50, n=8)
    X[np.abs(X) < 0.8] = 0.0
    X[3] = 0.0                     # a zero row: its pieces go to their bound at once
    dense = sopopo_batch(X, Y, 0.7, decomposition="all_pairs", **TIGHT)
    assert dense.success
    ref = qp_reference(X, Y, "all_pairs", 0.7)
    assert dense.dual_objective == pytest.approx(ref.dual_objective, rel=1e-8)
    for fmt in (sp.csr_matrix, sp.csc_matrix):
        sparse = sopopo_batch(fmt(X), Y, 0.7, decomposition="all_pairs", **TIGHT)
        assert sparse.success
        assert sparse.dual_objective == pytest.approx(dense.dual_objective, rel=1e-9)
        np.testing.assert_allclose(sparse.x, dense.x, atol=1e-4 * np.abs(dense.x).max())


def test_shrinking_with_sample_weights_and_normalize_matches_the_qp():
    X, Y = ranking_problem(5)
    w = np.random.default_rng(5).uniform(0, 3, size=len(X))
    w[[2, 7]] = 0.0
    ref = qp_reference(X, Y, "all_pairs", 0.8, normalize=True, sample_weight=w)
    res = sopopo_batch(X, Y, 0.8, decomposition="all_pairs", normalize=True,
                       sample_weight=w, **TIGHT)
    assert res.success
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=1e-8)


@pytest.mark.slow
def test_crammer_singer_with_many_classes_matches_the_plain_solver():
    """One-hot targets with top_vs_rest (Crammer-Singer): most labels of a
    piece are shrunk, pieces at their bound leave the active set."""
    rng = np.random.default_rng(6)
    m, n, k = 300, 5, 12
    X = rng.normal(size=(m, n))
    y = np.argmax(X @ rng.normal(size=(k, n)).T + 1.5 * rng.normal(size=(m, k)), axis=1)
    Y = np.eye(k)[y]
    plain = sopopo_batch(X, Y, 1.0, decomposition="top_vs_rest", shrinking=False, **TIGHT)
    res = sopopo_batch(X, Y, 1.0, decomposition="top_vs_rest", **TIGHT)
    assert res.success
    assert res.dual_objective == pytest.approx(plain.dual_objective, rel=1e-9)
    assert max_kkt_violation(res, X @ res.x.T, Y) <= 1e-4
    # shrinking did remove pieces at some check
    assert res.trace.n_active_pieces.min() < m


def test_a_tolerance_met_on_the_shrunk_set_is_rechecked_on_the_full_set():
    """Stopping is decided on the full gap only: at every tolerance the
    returned gap, recomputed from the solution, meets it."""
    X, Y = ranking_problem(7, m=80)
    for tol in (1e-2, 1e-4, 1e-6):
        res = sopopo_batch(X, Y, 2.0, decomposition="adjacent_layers", tol=tol,
                           max_iter=100_000, random_state=1)
        P, D = full_objectives(res, X, Y)
        assert res.status == STATUS_CONVERGED
        assert P - D <= tol * P
        assert res.gap == pytest.approx(P - D, rel=1e-9, abs=1e-12)


def test_shrinking_trace_holds_the_checks():
    # the generic callback contract: tests/core/test_contracts.py
    X, Y = ranking_problem(8)
    seen = []
    sopopo_batch(X, Y, 1.0, tol=1e-14, max_iter=9, callback=seen.append, random_state=0)
    assert all(i.dual_increase >= 0 and i.n_active_pieces >= 0 for i in seen)
    # without a callback the trace holds the checks only, the last at max_iter
    res = sopopo_batch(X, Y, 1.0, tol=1e-14, max_iter=25, random_state=0)
    assert res.status == STATUS_MAX_ITER and res.trace.iteration[-1] == 25


def test_shrinking_argument_is_checked():
    X, Y = ranking_problem(9)
    with pytest.raises(TypeError, match="shrinking: expected a bool"):
        sopopo_batch(X, Y, shrinking="yes")
    with pytest.raises(ValueError, match="'shrinking' parameter of LabelRanker"):
        LabelRanker(shrinking="yes").fit(X, Y)


def test_label_ranker_shrinking_flag_gives_the_same_model():
    X, Y = ranking_problem(10)
    a = LabelRanker(C=0.5, tol=1e-10, max_iter=100_000, random_state=0).fit(X, Y)
    b = LabelRanker(C=0.5, tol=1e-10, max_iter=100_000, random_state=0,
                    shrinking=False).fit(X, Y)
    assert a.result_.success and b.result_.success
    assert len(b.result_.trace) == b.n_iter_
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-4 * np.abs(b.coef_).max())
    np.testing.assert_allclose(a.intercept_, b.intercept_, atol=1e-4)


def test_zero_instance_in_the_kernel_form_matches_the_qp():
    """phi(x_i) = 0 (a zero row of a linear Gram matrix): the pieces of example
    i take their bound at once; the QP agrees."""
    X, Y = ranking_problem(11, m=30)
    X[5] = 0.0
    K = X @ X.T
    ref = qp_reference(None, Y, "adjacent_layers", 0.6, K=K)
    res = sopopo_batch(K, Y, 0.6, decomposition="adjacent_layers", kernel="precomputed",
                       **TIGHT)
    assert res.success
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=1e-8)
    np.testing.assert_allclose(coefficients_from_duals(res, *Y.shape), res.x, atol=1e-12)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_a_callback_does_not_change_the_shrinking_solve(kernel):
    """The passes evaluated for a callback leave the course of the solve alone:
    same passes, same solution as without a callback."""
    X, Y = ranking_problem(12, m=60)
    calls = []
    a = sopopo_batch(X, Y, 3.0, kernel=kernel, tol=1e-6, max_iter=100_000, random_state=0)
    b = sopopo_batch(X, Y, 3.0, kernel=kernel, tol=1e-6, max_iter=100_000, random_state=0,
                     callback=calls.append)
    assert a.success and b.success and a.nit == b.nit
    np.testing.assert_array_equal(a.x, b.x)
    assert [i.iteration for i in calls] == list(range(1, b.nit + 1)) == list(b.trace.iteration)
    assert len(a.trace) < a.nit


@pytest.mark.parametrize("threshold_label", [False, True])
@pytest.mark.parametrize("normalize", [False, True])
def test_all_pairs_pieces_built_by_arrays_equal_the_decomposition(threshold_label, normalize):
    """build_pieces' array path for "all_pairs" (many labels) gives the pieces
    of decompose(y, "all_pairs") in the same order: compare with the same
    decomposition given as a custom callable (the per-piece path)."""
    from polyrank.sopopo import feedback_graph

    rng = np.random.default_rng(13)
    m, k = 25, 9
    Y = rng.integers(0, 2, size=(m, k)).astype(float)
    if threshold_label:
        Y[3] = 1.0                                   # all relevant: threshold pieces only
        Y = np.hstack([Y, np.full((m, 1), 0.5)])
    else:
        Y[:, 0] = 2.0
        Y[5] = rng.integers(0, 4, size=k)            # graded
        Y[5, 0] = 5.0
    w = rng.uniform(0.5, 2.0, size=m)
    w[7] = 0.0

    def pairs(g):
        return [(np.array([r]), np.array([s])) for r, s in feedback_graph(g)[0]]

    fast = build_pieces(Y, "all_pairs", normalize, 0.7, w, threshold_label=threshold_label)
    slow = build_pieces(Y, pairs, normalize, 0.7, w, threshold_label=threshold_label)
    for name in ("example", "C", "A_ptr", "A_idx", "B_ptr", "B_idx"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name), err_msg=name)
    with pytest.raises(ValueError, match="every example has weight 0"):
        build_pieces(Y, "all_pairs", normalize, 0.7, np.zeros(m),
                     threshold_label=threshold_label)
