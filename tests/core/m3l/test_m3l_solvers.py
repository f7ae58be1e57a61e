"""M3L solvers (m3l-multilabel-zero-shot.txt, Sec. 5-6, Alg. 1-2) against
independent references: Clarabel on the dual D2 (Eq. 25), LIBLINEAR and
LIBSVM through scikit-learn for R = I (Sec. 3.1), brute force for the
2-variable QP (Alg. 2)."""

import numpy as np
import pytest
from conftest import GAP_ROUNDING
from sklearn.svm import SVC, LinearSVC

from polyrank.kernels import kernel_matrix
from polyrank.m3l import (
    _kernels,
    dual_gradient,
    dual_qp,
    m3l_dca,
    m3l_objectives,
    m3l_smo,
    projected_gradient,
)
from polyrank.result import STATUS_CONVERGED

TOL = 1e-6          # agreement with the references (alpha, objectives)


def _problem(seed, N=30, D=4, L=3, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    Y = np.where(X @ rng.normal(size=(D, L)) + noise * rng.normal(size=(N, L)) > 0, 1.0, -1.0)
    A = rng.normal(size=(L, L))
    R = A @ A.T + 0.2 * np.eye(L)           # dense, negative entries likely
    return X, Y, R


def _gram(X, kernel, gamma=0.5):
    return kernel_matrix(X, kernel=kernel, **({"gamma": gamma} if kernel == "rbf" else {}))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_smo_matches_clarabel_for_dense_R(seed, kernel):
    X, Y, R = _problem(seed)
    assert (R < 0).any()
    C = 0.7
    ref = dual_qp(_gram(X, kernel), Y, R, C)
    res = m3l_smo(X, Y, R, C, kernel=kernel, gamma=0.5, tol=1e-9)
    assert res.status == STATUS_CONVERGED
    assert abs(res.dual_objective - ref.dual_objective) <= TOL * abs(ref.dual_objective)
    np.testing.assert_allclose(res.dual["alpha"], ref.x, atol=1e-5)
    # projected gradients below tol at exit, recomputed from scratch
    G = dual_gradient(_gram(X, kernel), Y, R, res.dual["alpha"])
    assert np.abs(projected_gradient(res.dual["alpha"], G, C)).max() < 1e-8
    # the delayed updates (Eq. 34-36) left the maintained gradient exact
    np.testing.assert_allclose(res.dual["G"], G, atol=1e-10)
    assert 0 <= res.gap <= 1e-6 * res.primal_objective


@pytest.mark.parametrize("seed", [0, 3])
def test_dca_matches_clarabel_for_dense_R(seed):
    X, Y, R = _problem(seed, N=40, D=5, L=4)
    C = 0.3
    ref = dual_qp(X @ X.T, Y, R, C)
    res = m3l_dca(X, Y, R, C, tol=1e-9, random_state=seed)
    assert res.status == STATUS_CONVERGED
    assert abs(res.dual_objective - ref.dual_objective) <= TOL * abs(ref.dual_objective)
    np.testing.assert_allclose(res.dual["alpha"], ref.x, atol=1e-5)
    # Z = 2 X'(Y alpha) R (Eq. 23) and the primal equals the dual at the optimum
    np.testing.assert_allclose(res.x, 2 * X.T @ (Y * ref.x) @ R, atol=1e-5)
    assert 0 <= res.gap <= 1e-6 * res.primal_objective
    G = dual_gradient(X @ X.T, Y, R, res.dual["alpha"])
    assert np.abs(projected_gradient(res.dual["alpha"], G, C)).max() < 1e-9


def test_dca_labelwise_and_no_shrinking_reach_the_same_optimum():
    X, Y, R = _problem(0, N=40, D=5, L=4)
    ref = dual_qp(X @ X.T, Y, R, 0.3)
    for kw in (dict(switch_tol=10.0), dict(switch_tol=0.0)):
        res = m3l_dca(X, Y, R, 0.3, tol=1e-9, random_state=1, **kw)
        assert res.status == STATUS_CONVERGED, kw
        assert abs(res.dual_objective - ref.dual_objective) <= TOL * ref.dual_objective, kw
        # label-wise batches from the first epoch on (switch_tol above every
        # gradient), never (switch_tol=0), or after the default switch
        assert res.trace.labelwise[0] == (kw.get("switch_tol") == 10.0)
        assert res.trace.labelwise[-1] == (kw.get("switch_tol") != 0.0)
    # without shrinking every epoch visits all N L variables (slower to converge);
    # a check comes after at most check_every = 10 such epochs
    res = m3l_dca(X, Y, R, 0.3, tol=1e-5, random_state=1, shrinking=False, max_iter=5000)
    assert res.status == STATUS_CONVERGED
    assert res.visits == res.epochs * 40 * 4
    assert np.all(res.trace.visited % (40 * 4) == 0)
    assert np.all(res.trace.visited <= 10 * 40 * 4)
    assert abs(res.dual_objective - ref.dual_objective) <= 1e-5 * ref.dual_objective


def _primal_liblinear(X, y, w, C2):
    return 0.5 * w @ w + C2 * np.maximum(0.0, 1.0 - y * (X @ w)).sum()


def test_identity_R_is_liblinear_one_vs_all_with_penalty_2C():
    X, Y, _ = _problem(7, N=60, D=5, L=3, noise=1.0)
    C = 0.5
    dca = m3l_dca(X, Y, None, C, tol=1e-9, random_state=0)
    smo = m3l_smo(X, Y, None, C, kernel="linear", tol=1e-9)
    Z_smo = X.T @ smo.x
    total = 0.0
    for l in range(Y.shape[1]):
        svc = LinearSVC(loss="hinge", fit_intercept=False, C=2 * C, tol=1e-10,
                        max_iter=1_000_000, random_state=0).fit(X, Y[:, l])
        w = svc.coef_.ravel()
        np.testing.assert_allclose(dca.x[:, l], w, atol=1e-4)
        np.testing.assert_allclose(Z_smo[:, l], w, atol=1e-4)
        total += _primal_liblinear(X, Y[:, l], w, 2 * C)
    assert dca.primal_objective == pytest.approx(total, rel=1e-6)
    assert smo.primal_objective == pytest.approx(total, rel=1e-6)


def test_identity_R_rbf_is_libsvm_one_vs_all_on_odd_symmetric_data():
    # SVC has a free intercept b with y'beta = 0; on data closed under
    # (x, y) -> (-x, -y) the bias-free optimum satisfies y'beta = 0 and b = 0,
    # so LIBSVM solves exactly the M3L sub-problem S_l (Eq. 16-18) there.
    rng = np.random.default_rng(11)
    H = rng.normal(size=(25, 3))
    YH = np.where(H @ rng.normal(size=(3, 2)) + 0.7 * rng.normal(size=(25, 2)) > 0, 1.0, -1.0)
    X = np.vstack([H, -H])
    Y = np.vstack([YH, -YH])
    C, gamma = 0.8, 0.7
    res = m3l_smo(X, Y, None, C, kernel="rbf", gamma=gamma, tol=1e-10)
    F = _gram(X, "rbf", gamma) @ res.x
    Xt = rng.normal(size=(40, 3))
    Ft = kernel_matrix(Xt, X, kernel="rbf", gamma=gamma) @ res.x
    total = 0.0
    for l in range(2):
        svc = SVC(kernel="rbf", gamma=gamma, C=2 * C, tol=1e-10).fit(X, Y[:, l])
        assert abs(svc.intercept_[0]) < 1e-6
        beta = np.zeros(len(X))
        beta[svc.support_] = svc.dual_coef_.ravel()          # y_i beta_i = y_i 2 alpha_i
        np.testing.assert_allclose(2 * Y[:, l] * res.dual["alpha"][:, l], beta, atol=1e-5)
        np.testing.assert_allclose(Ft[:, l], svc.decision_function(Xt), atol=1e-5)
        K = _gram(X, "rbf", gamma)
        total += 0.5 * beta @ K @ beta + 2 * C * np.maximum(0, 1 - Y[:, l] * (K @ beta)).sum()
        np.testing.assert_allclose(F[:, l], K @ beta, atol=1e-5)
    assert res.primal_objective == pytest.approx(total, rel=1e-6)


def test_small_cache_evicts_and_gives_the_same_solution():
    X, Y, R = _problem(2, N=40)
    big = m3l_smo(X, Y, R, 1.0, kernel="rbf", gamma=0.5, tol=1e-8, cache_mb=10.0)
    small = m3l_smo(X, Y, R, 1.0, kernel="rbf", gamma=0.5, tol=1e-8, cache_mb=1e-9)
    assert small.cache_rows == 2 and big.cache_rows == 40
    assert big.cache_misses <= 40 < small.cache_misses
    # the same optimum: two runs differ only in rounding (a generic CPU moved
    # alpha by 1e-8 at tol 1e-8), never in the problem solved
    assert small.dual_objective == pytest.approx(big.dual_objective, rel=1e-10)
    np.testing.assert_allclose(small.dual["alpha"], big.dual["alpha"], atol=1e-6)


def test_trace_dual_increases_and_gap_goes_to_zero():
    X, Y, R = _problem(4, N=60, D=5, L=4)
    for res in (m3l_smo(X, Y, R, 2.0, kernel="rbf", gamma=0.3, tol=1e-8),
                m3l_dca(X, Y, R, 2.0, tol=1e-8, random_state=0)):
        t = res.trace
        assert len(t) == res.nit >= 2
        assert np.all(np.diff(t.dual) >= -GAP_ROUNDING * abs(t.dual[-1]))
        assert np.all(t.gap >= -GAP_ROUNDING * abs(t.primal))           # weak duality
        assert t.gap[-1] < 1e-4 * t.gap[0]
        assert t.max_pg[-1] < 1e-8 <= t.max_pg[0]
        assert res.gap == pytest.approx(t.gap[-1])


def test_objective_identities_match_direct_formulas():
    X, Y, R = _problem(6)
    C = 0.4
    alpha = np.random.default_rng(0).uniform(0, C, size=Y.shape)
    K = X @ X.T
    G = dual_gradient(K, Y, R, alpha)
    P, D = m3l_objectives(alpha, G, C)
    Z = 2 * X.T @ (Y * alpha) @ R
    primal = (0.5 * np.trace(Z.T @ Z @ np.linalg.inv(R))
              + C * np.maximum(0, 2 - 2 * Y * (X @ Z)).sum())
    # Eq. 25: 2 sum alpha - 2 sum_{l,k} R_lk alpha_l' Y_l K Y_k alpha_k
    B = Y * alpha
    dual = 2 * alpha.sum() - 2 * sum(R[l, k] * B[:, l] @ K @ B[:, k]
                                     for l in range(3) for k in range(3))
    assert P == pytest.approx(primal, rel=1e-12)
    assert D == pytest.approx(dual, rel=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_solve_2d_is_the_box_maximiser(seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(2, 2))
    Q = A @ A.T + 0.05 * np.eye(2)
    g = rng.normal(size=2) * 3
    lo = -rng.uniform(0, 2, size=2)
    hi = rng.uniform(0, 2, size=2)
    if seed % 3 == 0:
        lo[0] = 0.0                   # a variable at its lower bound
    x = np.array(_kernels.solve_2d(Q[0, 0], Q[0, 1], Q[1, 1], g[0], g[1],
                                   lo[0], hi[0], lo[1], hi[1]))
    assert np.all(x >= lo - 1e-12) and np.all(x <= hi + 1e-12)

    def h(v):
        return -0.5 * v @ Q @ v + g @ v

    grid = np.stack(np.meshgrid(np.linspace(lo[0], hi[0], 201),
                                np.linspace(lo[1], hi[1], 201)), -1).reshape(-1, 2)
    best = np.max(-0.5 * np.einsum("ni,ij,nj->n", grid, Q, grid) + grid @ g)
    assert h(x) >= best - 1e-12
    # KKT: the projected gradient of h vanishes at x
    grad = g - Q @ x
    pg = np.where(x <= lo, np.maximum(grad, 0), np.where(x >= hi, np.minimum(grad, 0), grad))
    assert np.abs(pg).max() < 1e-9


def test_solve_1d_cases():
    assert _kernels.solve_1d(2.0, 1.0, -1.0, 1.0) == 0.5
    assert _kernels.solve_1d(2.0, 5.0, -1.0, 1.0) == 1.0
    assert _kernels.solve_1d(2.0, -5.0, -1.0, 1.0) == -1.0
    assert _kernels.solve_1d(0.0, 1.0, -1.0, 3.0) == 3.0     # zero kernel diagonal


def test_zero_rows_and_constant_labels_are_handled():
    X, Y, R = _problem(10, N=25)
    X[3] = 0.0                        # K_pp = 0 for the linear kernel
    Y[:, 1] = 1.0                     # a label that is always on
    ref = dual_qp(X @ X.T, Y, R, 0.5)
    for res in (m3l_smo(X, Y, R, 0.5, kernel="linear", tol=1e-9),
                m3l_dca(X, Y, R, 0.5, tol=1e-9, random_state=0)):
        assert res.status == STATUS_CONVERGED
        assert res.dual_objective == pytest.approx(ref.dual_objective, rel=TOL)
        assert res.dual["alpha"][3].tolist() == [0.5] * 3   # no margin possible: at C


@pytest.mark.parametrize("bad, match", [
    (dict(R=np.array([[1.0, 0.2, 0], [0.3, 1, 0], [0, 0, 1]])), "symmetric"),
    (dict(R=np.array([[1.0, 2, 0], [2, 1, 0], [0, 0, 1]])), "positive-definite"),
    (dict(R=np.eye(2)), r"shape \(3, 3\)"),
    (dict(R=np.full((3, 3), np.nan)), "NaN"),
    (dict(C=0.0), "C"),
    (dict(tol=-1.0), "tol"),
    (dict(cache_mb=0.0), "cache_mb"),
    (dict(kernel="sigmoid"), "kernel"),
])
def test_hostile_solver_input(bad, match):
    X, Y, _ = _problem(0)
    kw = dict(R=np.eye(3), C=1.0)
    kw.update(bad)
    R, C = kw.pop("R"), kw.pop("C")
    if set(kw) <= {"tol"}:
        with pytest.raises(ValueError, match=match):
            m3l_dca(X, Y, R, C, **kw)
    with pytest.raises(ValueError, match=match):
        m3l_smo(X, Y, R, C, **kw)


def test_hostile_data():
    X, Y, R = _problem(0)
    Xn = X.copy()
    Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match="X"):
        m3l_dca(Xn, Y, R)
    with pytest.raises(ValueError, match="Y"):
        m3l_smo(X, Y[:-1], R)
    with pytest.raises(ValueError, match="Y"):
        m3l_smo(X, np.where(Y > 0, 2.0, 0.0), R)
    with pytest.raises(TypeError, match="X"):
        m3l_dca(np.array([["a"]]), Y, R)
