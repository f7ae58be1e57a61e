"""Single-edge pieces (``decomposition="all_pairs"``, issue 15 item 2 "many
labels"): the closed-form soft projection :func:`pair_step` against Fig. 3
(:func:`solve_sorted`) and against Clarabel, the example-by-example shrinking
pass :func:`pass_pairs_shrink` against the general shrinking pass run over the
same order, and the memory of a k = 1000 problem."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from polyrank.sopopo import _kernels, batch, build_pieces, sopopo_batch
from polyrank.sopopo.reference import batch_reduced_qp, reduced_qp

#: the central tolerance of the closed form against the general path
TOL = 1e-10


def continuous_problem(seed, m=25, n=5, k=7):
    """Real-valued targets (no ties): every shrinking decision is far from a
    rounding tie, so the two paths take the same decisions."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    Y = X @ rng.normal(size=(k, n)).T + 0.7 * rng.normal(size=(m, k))
    return X, Y


def multilabel_problem(seed, m=24, n=6, k=12):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    S = X @ rng.normal(size=(k, n)).T + rng.normal(size=(m, k))
    return X, (S > np.median(S, axis=1, keepdims=True)).astype(float)


def both_paths(monkeypatch, *args, **kwargs):
    out = {}
    for mode in ("pairs", "general"):
        monkeypatch.setattr(batch, "_PAIR_KERNEL", mode)
        out[mode] = sopopo_batch(*args, **kwargs)
    return out["pairs"], out["general"]


@pytest.mark.parametrize("seed", range(40))
def test_pair_step_is_fig3_with_one_label_per_side(seed):
    rng = np.random.default_rng(seed)
    mu, nu = rng.normal(scale=2.0, size=2)
    C = [0.0, 1e-3, 0.5, 3.0][seed % 4]
    ao = rng.uniform(0, C) if C > 0 else 0.0
    an, inc2 = _kernels.pair_step(mu, nu, ao, C)
    z, *_ = _kernels.solve_sorted(np.array([mu]), np.array([nu]), C)
    assert an == z                                  # bit for bit
    ref = reduced_qp(np.array([mu]), np.array([nu]), C)
    assert an == pytest.approx(ref.alpha[0], abs=1e-7 * max(1.0, C))
    # 2 x the increase of the reduced dual -1/2 (||a - mu||^2 + ||a - nu||^2)
    old = (ao - mu) ** 2 + (ao - nu) ** 2
    new = (an - mu) ** 2 + (an - nu) ** 2
    assert inc2 == pytest.approx(old - new, abs=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_piece_update_closed_form_equals_the_general_update(seed):
    rng = np.random.default_rng(seed)
    k = 6
    f, y = rng.normal(size=k), rng.normal(size=k)
    a, b = (0, 3) if y[0] > y[3] else (3, 0)
    A, B = np.array([a]), np.array([b])
    sqn, Cp = rng.uniform(0.1, 3.0), [0.05, 1.0, 10.0][seed % 3]
    old = np.array([rng.uniform(0, Cp)])
    out = []
    for update in (_kernels._piece_update, _kernels._piece_update_general):
        anew, bnew = np.empty(1), np.empty(1)
        inc = update(f, y, A, B, sqn, Cp, old, old.copy(), anew, bnew)
        out.append((inc, anew[0], bnew[0]))
    assert out[0] == out[1]                          # bit for bit


def run_passes(mode, X, Y, passes, *, kernel="linear", sample_weight=None, shrink=True,
               seed=0, C=0.7):
    """``passes`` shrinking passes of the single-edge active set with the
    closed form (``mode="pairs"``) or the general kernel over the same order
    (``"general"``), from alpha = 0; returns alpha, beta and the
    coefficients (W, or the dual coefficients of the kernel form)."""
    from polyrank._csr import row_arrays
    from polyrank.kernels import kernel_matrix

    batch._PAIR_KERNEL = mode
    try:
        ps = build_pieces(Y, "all_pairs", False, C, sample_weight)
        m, k = Y.shape
        alpha, beta = np.zeros(ps.n_pieces), np.zeros(ps.n_pieces)
        rng = np.random.default_rng(seed)
        acts = batch._PairActiveSet(ps, m, alpha, beta, 1e-12, k, rng)
        acts.shrink = shrink
        Xd = X.toarray() if sp.issparse(X) else X
        if kernel == "linear":
            W = np.zeros((k, X.shape[1]))
            sq = np.einsum("ij,ij->i", Xd, Xd)
        else:
            K = kernel_matrix(Xd, kernel="rbf", gamma=0.3)
            F, coef = np.zeros((m, k)), np.zeros((m, k))
        for _ in range(passes):
            acts.shuffle(rng)
            if kernel == "linear":
                acts.sweep_linear(_kernels.Instances(*row_arrays(X), sq), Y, W)
            else:
                acts.sweep_kernel(K, Y, F, coef)
        return alpha, beta, (W if kernel == "linear" else coef), acts.n_act.copy()
    finally:
        batch._PAIR_KERNEL = "pairs"


@pytest.mark.parametrize("segment", [16, 1])
@pytest.mark.parametrize("passes", [1, 3, 10])
@pytest.mark.parametrize("form", ["dense", "sparse", "rbf"])
@pytest.mark.parametrize("seed", range(3))
def test_pair_pass_has_the_iterates_of_the_general_pass(monkeypatch, seed, form, passes,
                                                        segment):
    """Same order, every piece kept (shrink off): the closed-form pass gives
    the dual variables and coefficients of the general pass (Fig. 3 per
    piece, scores recomputed from W) after every number of passes, with
    sample weights (one of them 0) and an instance x = 0 (its pieces go to
    their bound at once).  Real-valued targets: the pieces of a row form
    chains (a, c), (c, b), so this covers every graded ranking.  Segments of
    k pieces: an example's 21 pieces in 3 segments, visited apart."""
    monkeypatch.setattr(batch, "_SEGMENT_LABELS", segment)
    X, Y = continuous_problem(seed)
    X[4] = 0.0
    w = np.random.default_rng(seed).uniform(0.0, 2.0, size=X.shape[0])
    w[2] = 0.0
    if form == "sparse":
        X[np.abs(X) < 0.5] = 0.0
        X = sp.csr_matrix(X)
    kw = dict(kernel="rbf" if form == "rbf" else "linear", sample_weight=w, shrink=False,
              seed=seed)
    a1, b1, c1, _ = run_passes("pairs", X, Y, passes, **kw)
    a2, b2, c2, _ = run_passes("general", X, Y, passes, **kw)
    assert np.count_nonzero(a1) > 0
    np.testing.assert_allclose(a1, a2, rtol=0, atol=TOL)
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_allclose(b1, b2, rtol=0, atol=TOL)
    np.testing.assert_allclose(c1, c2, rtol=0, atol=TOL)


@pytest.mark.parametrize("segment", [16, 1])
@pytest.mark.parametrize("passes", [1, 2, 5, 20])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("order", ["shuffle", "cyclic"])
@pytest.mark.parametrize("seed", range(3))
def test_shrinking_pair_path_has_the_iterates_of_the_general_path(monkeypatch, seed, order,
                                                                  kernel, passes, segment):
    """The whole shrinking solve (sopopo_batch's default), with sample
    weights: same dual variables, coefficients, objectives and active sets
    after every number of passes.  One-hot targets (all_pairs is
    Weston-Watkins): the pieces (y, b) of a row share their preferred label,
    so no piece sits exactly at its margin by construction and rounding
    cannot flip a shrinking decision.  (With graded targets the solved pieces
    (a, c), (c, b) put (a, b) at u_a + v_b = 0 exactly; rounding then keeps
    or drops it and the paths part, towards the same optimum: see the next
    test.)"""
    monkeypatch.setattr(batch, "_SEGMENT_LABELS", segment)
    X, _ = continuous_problem(seed, m=40, k=6)
    rng = np.random.default_rng(seed)
    y = np.argmax(X @ rng.normal(size=(6, X.shape[1])).T + rng.normal(size=(40, 6)), axis=1)
    Y = np.eye(6)[y]
    w = rng.uniform(0.2, 2.0, size=X.shape[0])
    kw = dict(kernel=kernel, order=order, tol=1e-14, max_iter=passes, random_state=seed,
              sample_weight=w)
    fast, ref = both_paths(monkeypatch, X, Y, 0.7, **kw)
    np.testing.assert_allclose(fast.dual["alpha"], ref.dual["alpha"], rtol=0, atol=TOL)
    np.testing.assert_array_equal(fast.dual["alpha"], fast.dual["beta"])
    np.testing.assert_allclose(fast.x, ref.x, rtol=0, atol=TOL)
    assert fast.primal_objective == pytest.approx(ref.primal_objective, rel=TOL)
    assert fast.dual_objective == pytest.approx(ref.dual_objective, rel=TOL)
    assert fast.nit == ref.nit
    np.testing.assert_array_equal(fast.trace.n_active_pieces, ref.trace.n_active_pieces)


def test_shrinking_pair_kernel_keeps_the_general_active_set():
    """One pass with shrinking from the same state: the same pieces leave
    the active set (one-hot targets, as above)."""
    X, _ = continuous_problem(5, m=30, k=5)
    y = np.random.default_rng(5).integers(0, 5, size=30)
    Y = np.eye(5)[y]
    out = [run_passes(mode, X, Y, 3, seed=5) for mode in ("pairs", "general")]
    np.testing.assert_array_equal(out[0][3], out[1][3])
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=0, atol=TOL)


@pytest.mark.slow
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_pair_path_reaches_the_general_paths_optimum(monkeypatch, seed, normalize):
    """To a tight tolerance both paths reach the same optimum (the QP's, for
    the small problem; their iterates may part after a rounding tie flips a
    shrinking decision, the optimum does not).  Segments of k pieces: an
    example's 36 pieces in 3 segments."""
    monkeypatch.setattr(batch, "_SEGMENT_LABELS", 1)
    X, Y = multilabel_problem(seed)
    w = np.random.default_rng(seed).uniform(0.5, 2.0, size=X.shape[0])
    kw = dict(tol=1e-10, max_iter=100_000, random_state=seed, sample_weight=w,
              normalize=normalize)
    fast, ref = both_paths(monkeypatch, X, Y, 0.5, **kw)
    assert fast.success and ref.success
    np.testing.assert_allclose(fast.x, ref.x, atol=1e-5)
    assert fast.primal_objective == pytest.approx(ref.primal_objective, rel=1e-9)
    ps = build_pieces(Y, "all_pairs", normalize, 0.5, w)
    qp = batch_reduced_qp(X, Y, [ps.piece(p) for p in range(ps.n_pieces)])
    assert fast.primal_objective == pytest.approx(qp.dual_objective, rel=1e-6)


def test_pair_path_on_sparse_input_equals_dense():
    X, Y = multilabel_problem(1)
    X[np.abs(X) < 0.6] = 0.0
    kw = dict(tol=1e-14, max_iter=5, random_state=0)
    dense = sopopo_batch(X, Y, 1.0, **kw)
    sparse = sopopo_batch(sp.csr_matrix(X), Y, 1.0, **kw)
    np.testing.assert_allclose(sparse.x, dense.x, atol=TOL)
    np.testing.assert_allclose(sparse.dual["alpha"], dense.dual["alpha"], atol=TOL)


def test_pair_path_with_pieces_not_grouped_by_example(monkeypatch):
    """``solve`` takes any PieceSet: pieces of the examples interleaved are
    regrouped by the active set, without changing the solution."""
    from polyrank.sopopo.batch import solve
    from polyrank.sopopo.graph import PieceSet

    X, Y = multilabel_problem(2, m=10, k=6)
    ps = build_pieces(Y, "all_pairs", False, 1.0)
    perm = np.random.default_rng(0).permutation(ps.n_pieces)
    ptr = np.arange(ps.n_pieces + 1)
    mixed = PieceSet(ps.example[perm], ps.C[perm], ptr, ps.A_idx[perm], ptr, ps.B_idx[perm])
    kw = dict(kernel="linear", kernel_params={}, order="shuffle", tol=1e-10, atol=0.0,
              max_iter=100_000, random_state=0, shrinking=True)
    a = solve(X, Y, ps, **kw)
    b = solve(X, Y, mixed, **kw)
    assert a.success and b.success
    np.testing.assert_allclose(a.x, b.x, atol=1e-5)


def test_threshold_label_pieces_take_the_pair_path(monkeypatch):
    """LabelRanker's default (all_pairs plus the threshold label's pair
    pieces) gives only single-edge pieces; the closed form fits the same
    model as the general pass."""
    from polyrank import LabelRanker

    X, Y = multilabel_problem(3, m=40)
    models = {}
    for mode in ("pairs", "general"):
        monkeypatch.setattr(batch, "_PAIR_KERNEL", mode)
        models[mode] = LabelRanker(tol=1e-9, max_iter=100_000, random_state=0).fit(X, Y)
    assert batch._single_edge(models["pairs"].result_.dual["pieces"])
    np.testing.assert_allclose(models["pairs"].decision_function(X),
                               models["general"].decision_function(X), atol=1e-5)


@pytest.mark.slow
def test_many_labels_memory_is_linear_in_the_edges():
    """k = 1000 labels, half of them relevant: 24 x 250,000 = 6e6 single-edge
    pieces.  The pieces and the solver's state take a fixed number of
    numbers per edge (no dense m x |E| or |E| x k array: either would be
    hundreds of GB); tracemalloc sees every numpy allocation."""
    X, Y = multilabel_problem(0, m=24, n=8, k=1000)
    sopopo_batch(X[:2], Y[:2, :10], 1.0, max_iter=1)          # compile outside the trace
    tracemalloc.start()
    try:
        res = sopopo_batch(X, Y, 1.0, max_iter=1, random_state=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    E = res.dual["pieces"].n_pieces
    assert E == 24 * 500 * 500
    assert peak < 80 * E            # bytes: 8 numbers per edge at most
