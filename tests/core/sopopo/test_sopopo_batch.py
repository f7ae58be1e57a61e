"""Decompositions (Sec. 2) and the batch procedure (Sec. 4, Fig. 5)."""

import itertools
from functools import partial

import numpy as np
import pytest
from conftest import GAP_ROUNDING, label_ranking_problem
from sklearn.svm import LinearSVC

from polyrank import LabelRanker
from polyrank.kernels import kernel_matrix
from polyrank.result import STATUS_CONVERGED, STATUS_MAX_ITER
from polyrank.sopopo import (
    build_pieces,
    check_decomposition,
    decompose,
    feedback_graph,
    sopopo_batch,
)
from polyrank.sopopo.reference import batch_reduced_qp

FIG1 = np.array([-1.0, 0.0, 2.0, 0.0, -1.0])


# ------------------------------------------------------------ decompositions

def test_feedback_graph_fig1():
    edges, w = feedback_graph(FIG1)
    brute = {(r, s): FIG1[r] - FIG1[s] for r, s in itertools.product(range(5), repeat=2)
             if FIG1[r] > FIG1[s]}
    assert {tuple(e): x for e, x in zip(edges.tolist(), w)} == brute
    assert len(edges) == 8


def test_decompositions_fig2_counts():
    assert len(decompose(FIG1, "all_pairs")) == 8
    ad = decompose(FIG1, "adjacent_layers")
    assert [(p.A.tolist(), p.B.tolist()) for p in ad] == [([2], [1, 3]), ([1, 3], [0, 4])]
    (top,) = decompose(FIG1, "top_vs_rest")
    assert top.A.tolist() == [2] and top.B.tolist() == [0, 1, 3, 4]


def random_y(rng, k):
    return rng.integers(0, rng.integers(2, 5), size=k).astype(float)


@pytest.mark.parametrize("name", ["all_pairs", "adjacent_layers", "top_vs_rest"])
def test_builtin_decompositions_satisfy_sec2(name):
    rng = np.random.default_rng(7)
    for _ in range(100):
        y = random_y(rng, int(rng.integers(2, 9)))
        if np.all(y == y[0]):
            continue
        pieces = decompose(y, name)
        # check_decomposition re-verifies conditions 1-3 independently
        check_decomposition(y, pieces)
        all_edges = {tuple(e) for e in feedback_graph(y)[0].tolist()}
        covered = [tuple(e) for p in pieces for e in p.edges().tolist()]
        assert len(covered) == len(set(covered))              # condition 2
        assert set(covered) <= all_edges                      # condition 1
        if name == "all_pairs":
            assert set(covered) == all_edges


def test_normalize_gives_average_loss_weights():
    pieces = decompose(FIG1, "all_pairs", normalize=True)
    assert sum(p.sigma for p in pieces) == pytest.approx(1.0)
    assert all(p.sigma == pytest.approx(1 / 8) for p in pieces)
    assert all(p.sigma == 1.0 for p in decompose(FIG1, "all_pairs"))


@pytest.mark.parametrize("pieces, match", [
    ([([0], [2])], "condition 1"),                       # y_0 < y_2
    ([([2], [0]), ([2], [0, 4])], "condition 2"),        # edge (2, 0) twice
    ([([2, 1], [1])], "condition 3"),                    # A and B overlap
    ([([], [1])], "condition 3"),                        # empty side
    ([([2], [0], -1.0)], "sigma must be finite and >= 0"),
    ([], "at least one piece"),
])
def test_custom_decomposition_errors_name_the_condition(pieces, match):
    with pytest.raises(ValueError, match=match):
        decompose(FIG1, pieces)


def test_custom_decomposition_accepted():
    pieces = decompose(FIG1, [([2], [1, 3], 2.0), ([1, 3], [0, 4])])
    assert [p.sigma for p in pieces] == [2.0, 1.0]


@pytest.mark.parametrize("y, match", [
    ([1.0, 1.0, 1.0], "all entries are equal"),
    ([1.0, np.nan, 0.0], "y: contains NaN"),
    ([[1.0, 0.0]], "y: expected a 1-d"),
])
def test_hostile_y(y, match):
    with pytest.raises(ValueError, match=match):
        decompose(y, "all_pairs")


def test_unknown_decomposition_name():
    with pytest.raises(ValueError, match="decomposition: expected one of"):
        decompose(FIG1, "pairs")


# ------------------------------------------------------------ batch solver

#: graded label scores with ties and no constant row, low noise
ranking_problem = partial(label_ranking_problem, noise=0.5)


def eq38_reference(X, Y, decomposition, C, K=None, normalize=False):
    ps = build_pieces(Y, decomposition, normalize, C)
    pieces = [ps.piece(p) for p in range(ps.n_pieces)]
    return batch_reduced_qp(X, Y, pieces, K=K)


@pytest.mark.parametrize("decomposition", ["all_pairs", "adjacent_layers", "top_vs_rest"])
@pytest.mark.parametrize("order", ["shuffle", "cyclic", "greedy"])
def test_batch_reaches_the_qp_optimum(decomposition, order):
    X, Y = ranking_problem(1)
    C = 0.3
    ref = eq38_reference(X, Y, decomposition, C)
    res = sopopo_batch(X, Y, C, decomposition=decomposition, order=order,
                       tol=1e-9, max_iter=20000, random_state=0)
    assert res.status == STATUS_CONVERGED and res.success
    assert res.gap <= 1e-9 * res.primal_objective
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=1e-7)
    # dual never decreases from pass to pass (Sec. 4.3)
    d = res.trace.dual
    assert np.all(np.diff(d) >= -1e-10 * abs(d).max())
    # weak duality along the way
    assert np.all(res.trace.gap >= -1e-10 * abs(res.trace.primal).max())


@pytest.mark.parametrize("kernel, params", [
    ("rbf", dict(gamma=0.5)),
    ("poly", dict(gamma=0.3, degree=3, coef0=1.0)),
])
def test_kernel_batch_matches_qp_with_the_same_gram(kernel, params):
    X, Y = ranking_problem(2, m=25)
    K = kernel_matrix(X, kernel=kernel, **params)
    ref = eq38_reference(None, Y, "adjacent_layers", 0.5, K=K)
    res = sopopo_batch(X, Y, 0.5, decomposition="adjacent_layers", kernel=kernel,
                       tol=1e-9, max_iter=20000, random_state=0, **params)
    assert res.coef_form == "dual"
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=1e-7)
    pre = sopopo_batch(K, Y, 0.5, decomposition="adjacent_layers", kernel="precomputed",
                       tol=1e-9, max_iter=20000, random_state=0)
    assert pre.dual_objective == pytest.approx(ref.dual_objective, rel=1e-7)


def test_normalized_weights_match_qp():
    X, Y = ranking_problem(3)
    ref = eq38_reference(X, Y, "all_pairs", 2.0, normalize=True)
    res = sopopo_batch(X, Y, 2.0, decomposition="all_pairs", normalize=True,
                       tol=1e-9, max_iter=20000, random_state=0)
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=1e-7)


def test_linear_primal_and_dual_forms_agree():
    X, Y = ranking_problem(4)
    a = sopopo_batch(X, Y, 1.0, order="cyclic", tol=1e-8, max_iter=20000)
    b = sopopo_batch(X, Y, 1.0, order="greedy", tol=1e-8, max_iter=200)
    assert a.success and b.success
    assert a.coef_form == "primal" and b.coef_form == "dual"
    assert a.dual_objective == pytest.approx(b.dual_objective, rel=2e-8)
    # W is determined to about the square root of the objective's accuracy
    assert np.linalg.norm(b.x.T @ X - a.x) <= 1e-3 * np.linalg.norm(a.x)


def test_every_pass_increases_the_dual():
    # the generic callback contract (StopIteration, callback_every,
    # max_iter): tests/core/test_contracts.py
    X, Y = ranking_problem(5)
    seen = []
    res = sopopo_batch(X, Y, 1.0, tol=1e-12, max_iter=30, callback=seen.append,
                       random_state=0)
    assert len(seen) == len(res.trace) >= 2
    assert all(info.dual_increase >= 0 for info in seen)
    assert np.all(np.diff(res.trace.dual) >= -GAP_ROUNDING * np.abs(res.trace.dual[1:]))


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(C=0.0), ValueError, "C: must be > 0"),
    (dict(order="random"), ValueError, "order: expected one of"),
    (dict(kernel="sigmoid"), ValueError, "kernel: expected one of"),
    (dict(tol=0.0), ValueError, "tol, atol"),
    (dict(max_iter=0), ValueError, "max_iter: must be >= 1"),
    (dict(max_iter=2.5), TypeError, "max_iter: expected an int"),
    (dict(callback=3), TypeError, "callback: expected a callable"),
    (dict(kernel="rbf", gamma=-1.0), ValueError, "gamma: must be > 0"),
])
def test_batch_bad_parameters(kwargs, exc, match):
    X, Y = ranking_problem(6)
    args = dict(C=1.0)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        sopopo_batch(X, Y, **args)


def test_batch_bad_data():
    X, Y = ranking_problem(6)
    with pytest.raises(ValueError, match="Y: expected 30 rows"):
        sopopo_batch(X, Y[:-1])
    with pytest.raises(ValueError, match="Y: rows \\[1\\]"):
        Y2 = Y.copy()
        Y2[1] = 3.0
        sopopo_batch(X, Y2)
    with pytest.raises(ValueError, match="X: contains NaN"):
        X2 = X.copy()
        X2[0, 0] = np.inf
        sopopo_batch(X2, Y)
    with pytest.raises(ValueError, match="precomputed kernel must be square"):
        sopopo_batch(X, Y, kernel="precomputed")
    with pytest.raises(ValueError, match="Y: needs at least 2 labels"):
        sopopo_batch(X, Y[:, :1])


# ------------------------------------------------------------ estimator

def test_crammer_singer_equals_liblinear():
    """One-hot targets with top_vs_rest are the Crammer-Singer multiclass SVM
    without bias (Sec. 2, Related Work)."""
    rng = np.random.default_rng(0)
    m, n, k, C = 200, 5, 4, 0.1
    X = rng.normal(size=(m, n))
    y = np.argmax(X @ rng.normal(size=(k, n)).T + 0.5 * rng.normal(size=(m, k)), axis=1)
    model = LabelRanker(C=C, decomposition="top_vs_rest", tol=1e-10, max_iter=20000,
                        bias=0.0, random_state=0).fit(X, y)
    svc = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C,
                    tol=1e-10, max_iter=1_000_000, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.coef_, svc.coef_, atol=1e-6)
    assert model.result_.success
    # same predictions wherever the top two scores are not tied to ~1e-6
    S = np.sort(model.decision_function(X), axis=1)
    clear = S[:, -1] - S[:, -2] > 1e-5
    assert clear.mean() > 0.95
    np.testing.assert_array_equal(model.predict(X)[clear], svc.predict(X)[clear])
    assert model.target_type_ == "multiclass" and model.classes_.tolist() == [0, 1, 2, 3]


def test_label_ranker_kernels_predict_from_kernel_values():
    X, Y = ranking_problem(8)
    rbf = LabelRanker(C=1.0, kernel="rbf", gamma=0.7, tol=1e-8, random_state=0).fit(X, Y)
    Xt = np.random.default_rng(9).normal(size=(7, X.shape[1]))
    Kt = kernel_matrix(Xt, X, kernel="rbf", gamma=0.7)
    np.testing.assert_allclose(rbf.decision_function(Xt), Kt @ rbf.dual_coef_)
    pre = LabelRanker(C=1.0, kernel="precomputed", tol=1e-8, random_state=0).fit(
        kernel_matrix(X, kernel="rbf", gamma=0.7), Y)
    np.testing.assert_allclose(pre.decision_function(Kt), rbf.decision_function(Xt), atol=1e-6)
    with pytest.raises(ValueError, match="X has 2 features, but LabelRanker is expecting 4"):
        rbf.decision_function(Xt[:, :2])


def test_label_ranker_bias_is_a_constant_feature():
    X, Y = ranking_problem(10)
    b = LabelRanker(C=1.0, bias=2.0, tol=1e-8, max_iter=20000, order="cyclic").fit(X, Y)
    ref = LabelRanker(C=1.0, bias=0.0, tol=1e-8, max_iter=20000, order="cyclic").fit(
        np.hstack([X, np.full((30, 1), 2.0)]), Y)
    assert b.result_.success
    np.testing.assert_allclose(b.coef_, ref.coef_[:, :-1], atol=1e-10)
    np.testing.assert_allclose(b.intercept_, 2.0 * ref.coef_[:, -1], atol=1e-10)
    np.testing.assert_allclose(b.decision_function(X), X @ b.coef_.T + b.intercept_)
    with pytest.raises(ValueError, match="'bias' parameter of LabelRanker"):
        LabelRanker(bias=-1.0).fit(X, Y)
    with pytest.raises(ValueError, match="bias: must be 0 with kernel='precomputed'"):
        LabelRanker(bias=1.0, kernel="precomputed").fit(X @ X.T, Y)


def test_label_ranker_is_a_sklearn_estimator():
    from sklearn.base import clone
    model = LabelRanker(C=0.5, decomposition="adjacent_layers")
    assert clone(model).get_params() == model.get_params()
    X, Y = ranking_problem(11)
    score = LabelRanker(C=0.5).fit(X, Y).score(X, Y)
    assert 0.5 < score <= 1.0


def test_label_ranker_warns_when_max_iter_ends_the_fit():
    from sklearn.exceptions import ConvergenceWarning
    X, Y = ranking_problem(12)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model = LabelRanker(C=1.0, tol=1e-12, max_iter=2).fit(X, Y)
    assert model.result_.status == STATUS_MAX_ITER


def weston_watkins_qp(X, y, k, C):
    """Weston-Watkins multiclass SVM without bias, as an explicit Clarabel QP:
    min 1/2 sum_r ||w_r||^2 + C sum_i sum_{r != y_i} xi_ir
    s.t. w_{y_i}.x_i - w_r.x_i >= 1 - xi_ir, xi_ir >= 0."""
    import scipy.sparse as sp

    from polyrank.qp import solve_qp
    m, n = X.shape
    pairs = [(i, r) for i in range(m) for r in range(k) if r != y[i]]
    nw, ne = k * n, len(pairs)
    P = sp.diags(np.r_[np.ones(nw), np.zeros(ne)], format="csc")
    q = np.r_[np.zeros(nw), np.full(ne, C)]
    G = np.zeros((2 * ne, nw + ne))
    h = np.zeros(2 * ne)
    for e, (i, r) in enumerate(pairs):
        G[e, y[i] * n:(y[i] + 1) * n] = -X[i]          # -(w_y - w_r).x - xi <= -1
        G[e, r * n:(r + 1) * n] = X[i]
        G[e, nw + e] = -1.0
        h[e] = -1.0
        G[ne + e, nw + e] = -1.0                        # -xi <= 0
    res = solve_qp(P, q, G=sp.csc_matrix(G), h=h)
    return res.x[:nw].reshape(k, n), res.primal_objective


def test_all_pairs_on_one_hot_targets_is_weston_watkins():
    """Sec. 2, Related Work: for the one-hot target of class c,
    E = {(c, r)}_{r != c} with sigma = 1 is the multiclass SVM of Weston and
    Watkins (1999)."""
    rng = np.random.default_rng(1999)
    m, n, k, C = 40, 3, 4, 0.5
    X = rng.normal(size=(m, n))
    y = np.argmax(X @ rng.normal(size=(k, n)).T + 0.7 * rng.normal(size=(m, k)), axis=1)
    W_ref, obj = weston_watkins_qp(X, y, k, C)
    model = LabelRanker(C=C, decomposition="all_pairs", tol=1e-10, max_iter=50000,
                        normalize=False, bias=0.0, random_state=0).fit(X, y)
    assert model.result_.success
    assert model.result_.primal_objective == pytest.approx(obj, rel=1e-7)
    np.testing.assert_allclose(model.coef_, W_ref, atol=1e-4)


@pytest.mark.parametrize("normalize", [False, True])
def test_top_vs_rest_builder_matches_decompose(normalize):
    # the whole-array builder of "top_vs_rest" gives the pieces of the
    # per-row loop (a callable decomposition goes through that loop)
    rng = np.random.default_rng(3)
    Gam = rng.integers(0, 3, size=(40, 6)).astype(float)
    Gam[Gam.max(axis=1) == Gam.min(axis=1), 0] += 1.0
    Gam[5] = [2, 2, 0, 1, 2, 0]                      # a top layer of three labels
    w = rng.uniform(0.5, 2.0, 40)
    w[[3, 17]] = 0.0                                   # weight 0 drops the example
    fast = build_pieces(Gam, "top_vs_rest", normalize, 2.0, sample_weight=w)
    loop = build_pieces(Gam, lambda g: [(p.A, p.B) for p in decompose(g, "top_vs_rest")],
                        normalize, 2.0, sample_weight=w)
    for name in ("example", "C", "A_ptr", "A_idx", "B_ptr", "B_idx"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(loop, name), err_msg=name)
    assert fast.n_pieces == 38


@pytest.mark.parametrize("n", [0, 1, 2, 7, 64, 65, 100, 257])
def test_sort_prefix_sorts_only_the_prefix(n):
    # insertion sort up to 64 entries, heapsort beyond (no allocation)
    from polyrank.sopopo._kernels import sort_prefix
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n + 5)
    a[: n // 3] = a[n // 2: n // 2 + n // 3]              # ties
    before = a.copy()
    sort_prefix(a, n)
    np.testing.assert_array_equal(a[:n], np.sort(before[:n]))
    np.testing.assert_array_equal(a[n:], before[n:])


def test_full_passes_counts_the_active_share_of_the_pieces():
    # the work measure of the result: the shrinking variant's passes over a
    # shrunk active set count their share of the pieces; a plain pass counts 1
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    Y = np.eye(4)[np.argmax(X @ rng.normal(size=(4, 5)).T, axis=1)]
    shrunk = sopopo_batch(X, Y, 1.0, decomposition="top_vs_rest", tol=1e-6,
                          max_iter=10_000, random_state=0)
    plain = sopopo_batch(X, Y, 1.0, decomposition="top_vs_rest", tol=1e-6,
                         max_iter=10_000, random_state=0, shrinking=False)
    assert shrunk.success and plain.success
    assert 1.0 <= shrunk.full_passes < shrunk.nit
    assert plain.full_passes == plain.nit
    trace = shrunk.trace.to_pandas()
    assert trace["full_passes"].is_monotonic_increasing
    assert trace["full_passes"].iloc[-1] == pytest.approx(shrunk.full_passes)
