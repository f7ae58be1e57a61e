"""Tests of the Clarabel adapter (polyrank.qp) and the QP references of
polyrank.sopopo.reference against closed forms, brute force and strong
duality (sopopo-label-ranking.txt, Eq. 6, 7, 16-19, 38), and of the SOPOPO
core (polyrank.sopopo) against those references."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from polyrank.qp import solve_qp
from polyrank.sopopo.reference import batch_reduced_qp, reduced_qp, soft_project_qp


# ------------------------------------------------------------ helpers
def project_scaled_simplex(v, z):
    """Euclidean projection of v onto {a >= 0, sum(a) = z} (z >= 0), by the
    classical sort-and-threshold rule; written independently of the package."""
    v = np.asarray(v, dtype=float)
    if z == 0:
        return np.zeros_like(v)
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - z
    j = np.arange(1, v.size + 1)
    rho = j[u - css / j > 0][-1]
    theta = css[rho - 1] / rho
    return np.maximum(v - theta, 0.0)


def g_half(z, v):
    """g(z; v) = min 1/2 ||a - v||^2 s.t. sum(a) = z, a >= 0 (Eq. 20)."""
    a = project_scaled_simplex(v, z)
    return 0.5 * np.sum((a - v) ** 2)


def primal_eq6_qp(X, Y, pieces):
    """Eq. 6 / Eq. 24 with explicit W (k*n) and one xi per piece:
    min 1/2 ||W||^2 + sum_p C_p xi_p  s.t.  for every piece p = (i, A, B, C_p)
    and edge (a, b) in A x B: w_a.x_i - w_b.x_i >= Y_ia - Y_ib - xi_p,
    xi_p >= 0. Returns (objective, W)."""
    m, n = X.shape
    k = Y.shape[1]
    npc = len(pieces)
    nw = k * n
    nvar = nw + npc
    P = sp.diags(np.r_[np.ones(nw), np.zeros(npc)], format="csc")
    q = np.r_[np.zeros(nw), [pc[3] for pc in pieces]]
    rows = []
    h = []
    for p, (i, A, B, _) in enumerate(pieces):
        for a in A:
            for b in B:
                row = np.zeros(nvar)
                row[a * n:(a + 1) * n] = -X[i]
                row[b * n:(b + 1) * n] = X[i]
                row[nw + p] = -1.0
                rows.append(row)
                h.append(-(Y[i, a] - Y[i, b]))
    for p in range(npc):
        row = np.zeros(nvar)
        row[nw + p] = -1.0
        rows.append(row)
        h.append(0.0)
    res = solve_qp(P, q, G=np.array(rows), h=np.array(h))
    return res.primal_objective, res.x[:nw].reshape(k, n)


def random_soft_problem(rng, consistent=True):
    k = int(rng.integers(3, 9))
    n = int(rng.integers(1, 6))
    p = int(rng.integers(1, k - 1))
    q = int(rng.integers(1, k - p + 1))
    perm = rng.permutation(k)
    A, B = perm[:p], perm[p:p + q]
    y = rng.normal(size=k)
    if consistent:                       # y_a > y_b on every edge
        y[A] = 1.0 + rng.uniform(0, 2, size=p)
        y[B] = -rng.uniform(0, 2, size=q)
    x = rng.normal(size=n)
    U = rng.normal(size=(k, n))
    C = float(rng.choice([0.05, 0.3, 1.0, 5.0, 100.0]))
    return x, y, U, A, B, C


# ------------------------------------------------------------ solve_qp
@pytest.mark.parametrize("seed", range(5))
def test_solve_qp_simplex_projection(seed):
    rng = np.random.default_rng(seed)
    n = 7
    y = rng.normal(scale=2.0, size=n)
    res = solve_qp(np.eye(n), -y, A_eq=np.ones((1, n)), b_eq=np.array([1.0]),
                   G=-np.eye(n), h=np.zeros(n))
    expect = project_scaled_simplex(y, 1.0)
    assert res.success and res.status in ("Solved", "AlmostSolved")
    assert res.solver == "clarabel"
    np.testing.assert_allclose(res.x, expect, atol=1e-8)
    assert res.primal_objective == pytest.approx(
        0.5 * expect @ expect - y @ expect, abs=1e-8)
    # KKT stationarity with the returned multipliers
    grad = res.x - y + np.ones(n) * res.dual["eq"][0] - res.dual["ineq"]
    np.testing.assert_allclose(grad, 0.0, atol=1e-7)
    assert np.all(res.dual["ineq"] >= -1e-9)


def test_solve_qp_equality_constrained_least_squares():
    rng = np.random.default_rng(10)
    n, p = 6, 2
    D = rng.normal(size=(9, n))
    e = rng.normal(size=9)
    F = rng.normal(size=(p, n))
    g = rng.normal(size=p)
    # KKT system of min 1/2||Dx - e||^2 s.t. Fx = g
    kkt = np.block([[D.T @ D, F.T], [F, np.zeros((p, p))]])
    x_exact = np.linalg.solve(kkt, np.r_[D.T @ e, g])[:n]
    res = solve_qp(sp.csc_matrix(D.T @ D), -D.T @ e, A_eq=F, b_eq=g)
    np.testing.assert_allclose(res.x, x_exact, atol=1e-8)
    assert res.nit >= 0 and res.solve_time_s >= 0   # no inequalities: 0 steps


def test_solve_qp_errors():
    P, q = np.eye(2), np.zeros(2)
    with pytest.raises(ValueError, match="P"):
        solve_qp(np.eye(3), q)
    with pytest.raises(ValueError, match="q"):
        solve_qp(P, np.zeros((2, 1)))
    with pytest.raises(ValueError, match="q"):
        solve_qp(P, np.array([0.0, np.nan]))
    with pytest.raises(ValueError, match="P"):
        solve_qp(np.array([[1.0, np.inf], [np.inf, 1.0]]), q)
    with pytest.raises(ValueError, match="P"):
        solve_qp(np.array([[1.0, 1.0], [0.0, 1.0]]), q)     # not symmetric
    with pytest.raises(ValueError, match="A_eq"):
        solve_qp(P, q, A_eq=np.ones((1, 3)), b_eq=np.ones(1))
    with pytest.raises(ValueError, match="b_eq"):
        solve_qp(P, q, A_eq=np.ones((1, 2)), b_eq=np.ones(2))
    with pytest.raises(ValueError, match="G"):
        solve_qp(P, q, G=np.ones((2, 3)), h=np.ones(2))
    with pytest.raises(ValueError, match="h"):
        solve_qp(P, q, G=np.ones((2, 2)), h=np.ones(3))
    with pytest.raises(ValueError, match="G, h"):
        solve_qp(P, q, G=np.ones((2, 2)))
    with pytest.raises(RuntimeError, match="Infeasible"):
        solve_qp(P, q, G=np.array([[1.0, 0.0], [-1.0, 0.0]]),
                 h=np.array([-1.0, -1.0]))          # x0 <= -1 and x0 >= 1


@pytest.mark.parametrize("sparse_input", [False, True])
def test_solve_qp_large_matrices_take_the_scipy_path(monkeypatch, sparse_input):
    """Above ``_LARGE`` stored entries P and G are converted, checked for
    symmetry and stacked by scipy.sparse: the same QP, the same solution as
    the raw-index path, and an asymmetric P is still refused."""
    import polyrank.qp as qp

    rng = np.random.default_rng(11)
    n = 350                                  # 122,500 entries > _LARGE
    B = rng.normal(size=(n, n))
    P = B @ B.T / n + np.eye(n)
    q = rng.normal(size=n)
    G = np.vstack([np.eye(n), -np.eye(n)])
    h = np.full(2 * n, 0.5)
    A = np.ones((1, n))
    conv = sp.csc_matrix if sparse_input else np.asarray
    assert P.size > qp._LARGE
    big = solve_qp(conv(P), q, A_eq=conv(A), b_eq=[1.0], G=conv(G), h=h)
    monkeypatch.setattr(qp, "_LARGE", 10**12)
    small = solve_qp(conv(P), q, A_eq=conv(A), b_eq=[1.0], G=conv(G), h=h)
    np.testing.assert_allclose(big.x, small.x, atol=1e-8)
    assert big.primal_objective == pytest.approx(small.primal_objective, rel=1e-10)
    assert np.all(np.abs(big.x) <= 0.5 + 1e-8) and big.x.sum() == pytest.approx(1.0)
    monkeypatch.undo()
    P_bad = P.copy()
    P_bad[0, 1] += 1e-3
    with pytest.raises(ValueError, match="P: expected a symmetric matrix"):
        solve_qp(conv(P_bad), q)


# ------------------------------------------------------------ Eq. 19, Fig. 4
@pytest.mark.slow
def test_reduced_qp_fig4_bruteforce():
    mu, nu, C = np.array([3.0, -1.0, 2.0]), np.array([1.0, 1.0, 2.0]), 10.0
    res = reduced_qp(mu, nu, C)
    grid = np.linspace(0.0, C, 100_001)                  # spacing 1e-4
    vals = np.array([g_half(z, mu) + g_half(z, nu) for z in grid])
    z_grid = grid[np.argmin(vals)]
    assert abs(res.z - z_grid) <= 1e-4
    assert res.objective == pytest.approx(vals.min(), abs=1e-8)
    # by hand (Thm. 4): on [1, 7) mu's piece is 1/2 (5 - z)^2 / 2, nu's is
    # 1/2 (4 - z)^2 / 3; the derivative vanishes at z = 23/5, "just below 5"
    assert res.z == pytest.approx(23 / 5, abs=1e-8)
    assert res.beta.sum() == pytest.approx(res.z, abs=1e-8)
    np.testing.assert_allclose(res.alpha, project_scaled_simplex(mu, res.z),
                               atol=1e-8)
    np.testing.assert_allclose(res.beta, project_scaled_simplex(nu, res.z),
                               atol=1e-8)


def test_reduced_qp_bound_and_zero():
    mu, nu = np.array([3.0, -1.0, 2.0]), np.array([1.0, 1.0, 2.0])
    assert reduced_qp(mu, nu, 3.0).z == pytest.approx(3.0, abs=1e-8)
    # mu_1 + nu_1 <= 0: the minimum is at z = 0 (Sec. 3.4)
    res = reduced_qp(np.array([1.0, -2.0]), np.array([-1.5, -3.0]), 5.0)
    assert res.z == pytest.approx(0.0, abs=1e-8)
    assert res.objective == pytest.approx(0.5 * (1 + 4 + 2.25 + 9), abs=1e-8)


@pytest.mark.parametrize("seed", range(10))
def test_reduced_qp_random_bruteforce(seed):
    rng = np.random.default_rng(100 + seed)
    mu = rng.normal(size=int(rng.integers(1, 6)))
    nu = rng.normal(size=int(rng.integers(1, 6)))
    C = float(rng.uniform(0.1, 4.0))
    res = reduced_qp(mu, nu, C)
    grid = np.linspace(0.0, C, 20_001)
    vals = np.array([g_half(z, mu) + g_half(z, nu) for z in grid])
    assert abs(res.z - grid[np.argmin(vals)]) <= 2 * C / 20_000
    assert res.objective <= vals.min() + 1e-9
    assert res.objective == pytest.approx(g_half(res.z, mu) + g_half(res.z, nu),
                                          abs=1e-8)


def test_reduced_qp_errors():
    with pytest.raises(ValueError, match="mu"):
        reduced_qp([], [1.0], 1.0)
    with pytest.raises(ValueError, match="nu"):
        reduced_qp([1.0], [np.nan], 1.0)
    with pytest.raises(ValueError, match="C"):
        reduced_qp([1.0], [1.0], -1.0)


# ------------------------------------------------------------ Eq. 7 vs Eq. 19
@pytest.mark.parametrize("seed", range(12))
def test_soft_project_strong_duality(seed):
    """Eq. 16 in mu, nu: D(alpha, beta) = ||x||^2 (1/2||mu||^2 + 1/2||nu||^2
    - [1/2||alpha - mu||^2 + 1/2||beta - nu||^2]); strong duality (Sec. 3.1)
    and Appendix A give  min Eq. 7 = max Eq. 18 = ||x||^2 (1/2||mu||^2 +
    1/2||nu||^2 - min Eq. 19)."""
    rng = np.random.default_rng(seed)
    x, y, U, A, B, C = random_soft_problem(rng, consistent=seed % 3 != 0)
    sq = x @ x
    mu = (y[A] - U[A] @ x) / sq
    nu = (U[B] @ x - y[B]) / sq
    prim = soft_project_qp(x, y, U, A, B, C)
    red = reduced_qp(mu, nu, C)
    dual_value = sq * (0.5 * mu @ mu + 0.5 * nu @ nu - red.objective)
    assert prim.objective == pytest.approx(dual_value, rel=1e-7, abs=1e-9)
    # Eq. 15: the primal optimum is u_a + alpha_a x, u_b - beta_b x, u_y
    W = U.copy()
    W[A] += red.alpha[:, None] * x
    W[B] -= red.beta[:, None] * x
    np.testing.assert_allclose(prim.W, W, atol=1e-5)
    others = np.setdiff1d(np.arange(U.shape[0]), np.r_[A, B])
    np.testing.assert_array_equal(prim.W[others], U[others])
    # Eq. 14 from the edge multipliers
    np.testing.assert_allclose(prim.alpha, red.alpha, atol=1e-5)
    np.testing.assert_allclose(prim.beta, red.beta, atol=1e-5)
    assert prim.z == pytest.approx(red.z, abs=1e-5)


def test_soft_project_qp_errors():
    x, y, U = np.ones(2), np.arange(3.0), np.zeros((3, 2))
    with pytest.raises(ValueError, match="U"):
        soft_project_qp(x, y, np.zeros((3, 3)), [0], [1], 1.0)
    with pytest.raises(ValueError, match="A, B"):
        soft_project_qp(x, y, U, [0, 1], [1], 1.0)
    with pytest.raises(ValueError, match="B"):
        soft_project_qp(x, y, U, [0], [3], 1.0)
    with pytest.raises(TypeError, match="A"):
        soft_project_qp(x, y, U, [0.5], [1], 1.0)
    with pytest.raises(ValueError, match="x"):
        soft_project_qp([np.nan, 1.0], y, U, [0], [1], 1.0)


# ------------------------------------------------------------ Eq. 38 vs Eq. 6
def random_batch(rng, m, k, n, multi=False):
    X = rng.normal(size=(m, n))
    Wt = rng.normal(size=(k, n))
    Y = np.zeros((m, k))
    pieces = []
    for i in range(m):
        order = np.argsort(-(Wt @ X[i]))          # Sec. 5 data generation
        A, B = order[:k // 2], order[k // 2:]
        Y[i, A] = 1.0
        Ci = float(rng.choice([0.1, 0.5, 2.0]))
        if multi:                                 # two pieces: split B
            Y[i, B[: len(B) // 2]] = 0.5
            pieces.append((i, A, B[: len(B) // 2], Ci))
            pieces.append((i, np.r_[A, B[: len(B) // 2]], B[len(B) // 2:],
                           0.5 * Ci))
        else:
            pieces.append((i, A, B, Ci))
    return X, Y, pieces


@pytest.mark.parametrize("seed", range(4))
def test_batch_reduced_qp_equals_primal_eq6(seed):
    rng = np.random.default_rng(200 + seed)
    X, Y, pieces = random_batch(rng, m=6, k=5, n=3)
    dual = batch_reduced_qp(X, Y, pieces)
    p_obj, W = primal_eq6_qp(X, Y, pieces)
    assert dual.dual_objective == pytest.approx(p_obj, rel=1e-6)
    np.testing.assert_allclose(dual.W, W, atol=1e-5)
    assert abs(dual.gap) <= 1e-6 * max(1.0, abs(p_obj))
    for a, b, pc in zip(dual.alpha, dual.beta, pieces):
        assert a.shape == (len(pc[1]),) and b.shape == (len(pc[2]),)
        assert np.all(a >= -1e-9) and np.all(b >= -1e-9)
        assert a.sum() == pytest.approx(b.sum(), abs=1e-8)
        assert a.sum() <= pc[3] + 1e-8


def test_batch_reduced_qp_multi_piece_kernel_and_gram():
    rng = np.random.default_rng(300)
    X, Y, pieces = random_batch(rng, m=5, k=6, n=4, multi=True)
    p_obj, W = primal_eq6_qp(X, Y, pieces)
    fact = batch_reduced_qp(X, Y, pieces)
    gram = batch_reduced_qp(X, Y, pieces, formulation="gram")
    kern = batch_reduced_qp(None, Y, pieces, K=X @ X.T)
    for r in (fact, gram, kern):
        assert r.dual_objective == pytest.approx(p_obj, rel=1e-6)
    np.testing.assert_allclose(fact.W, W, atol=1e-5)
    np.testing.assert_allclose(kern.c.T @ X, W, atol=1e-5)
    np.testing.assert_allclose(kern.scores, X @ W.T, atol=1e-5)


def test_batch_reduced_qp_default_C_and_errors():
    X = np.eye(2)
    Y = np.array([[1.0, 0.0], [0.0, 1.0]])
    r1 = batch_reduced_qp(X, Y, [(0, [0], [1]), (1, [1], [0])], C=0.2)
    r2 = batch_reduced_qp(X, Y, [(0, [0], [1], 0.2), (1, [1], [0], 0.2)])
    assert r1.dual_objective == pytest.approx(r2.dual_objective, abs=1e-10)
    with pytest.raises(ValueError, match="C"):
        batch_reduced_qp(X, Y, [(0, [0], [1])])
    with pytest.raises(ValueError, match="example index"):
        batch_reduced_qp(X, Y, [(2, [0], [1])], C=1.0)
    with pytest.raises(ValueError, match="K"):
        batch_reduced_qp(X, Y, [(0, [0], [1])], C=1.0, K=-np.eye(2))
    with pytest.raises(ValueError, match="X"):
        batch_reduced_qp(np.eye(3), Y, [(0, [0], [1])], C=1.0)
    with pytest.raises(ValueError, match="formulation"):
        batch_reduced_qp(X, Y, [(0, [0], [1])], C=1.0, formulation="x")


# ------------------------------------------------------------ the SOPOPO core
# Tolerances: objectives agree to ~1e-10 (Clarabel's tol), but for a strongly
# convex objective the variables are only determined to ~sqrt of the
# objective error: 1e-11 allows ~5e-6 in z, alpha, W on degenerate instances
# (ties, z* at a knot or at 0). Variables are therefore compared at 2e-5.
VAR_TOL = 2e-5


@pytest.mark.parametrize("seed", range(30))
def test_sopopo_soft_project_matches_qp(seed):
    from polyrank.sopopo import soft_project
    rng = np.random.default_rng(1000 + seed)
    x, y, U, A, B, C = random_soft_problem(rng, consistent=True)
    ref = soft_project_qp(x, y, U, A, B, C)
    got = soft_project(x, y, U, A, B, C)
    assert got.objective == pytest.approx(ref.objective, rel=1e-7, abs=1e-9)
    np.testing.assert_allclose(got.W, ref.W, atol=VAR_TOL)
    np.testing.assert_allclose(got.alpha, ref.alpha, atol=VAR_TOL)
    np.testing.assert_allclose(got.beta, ref.beta, atol=VAR_TOL)
    assert got.z == pytest.approx(ref.z, abs=VAR_TOL)


@pytest.mark.parametrize("seed", range(30))
def test_sopopo_solve_reduced_matches_qp(seed):
    from polyrank.sopopo import solve_reduced
    rng = np.random.default_rng(2000 + seed)
    p, q = int(rng.integers(1, 12)), int(rng.integers(1, 12))
    mu = rng.normal(size=p)
    nu = rng.normal(size=q)
    if seed % 3 == 0:                         # ties produce repeated knots
        mu = np.round(2 * mu) / 2
        nu = np.round(2 * nu) / 2
    C = float(rng.choice([0.01, 0.5, 2.0, 50.0]))
    ref = reduced_qp(mu, nu, C)
    got = solve_reduced(mu, nu, C)
    # SOPOPO is exact: its objective can only be lower than the QP's
    assert got.objective == pytest.approx(ref.objective, rel=1e-8, abs=1e-9)
    assert got.objective <= ref.objective + 1e-9
    assert got.z == pytest.approx(ref.z, abs=VAR_TOL)
    np.testing.assert_allclose(got.alpha, ref.alpha, atol=VAR_TOL)
    np.testing.assert_allclose(got.beta, ref.beta, atol=VAR_TOL)


@pytest.mark.parametrize("seed", range(2))
def test_sopopo_batch_matches_eq38_and_eq6(seed):
    """Multilabel 0/1 targets: every decomposition is the single piece
    A x B per example (Sec. 2), so the pieces are known without the
    package's decomposition code."""
    from polyrank.sopopo import sopopo_batch
    rng = np.random.default_rng(3000 + seed)
    m, k, n, C = 10, 5, 3, 0.7
    X = rng.normal(size=(m, n))
    Y = (rng.uniform(size=(m, k)) < 0.5).astype(float)
    Y[:, 0], Y[:, 1] = 1.0, 0.0
    pieces = [(i, np.flatnonzero(Y[i] == 1), np.flatnonzero(Y[i] == 0), C)
              for i in range(m)]
    ref = batch_reduced_qp(X, Y, pieces)
    p_obj, W = primal_eq6_qp(X, Y, pieces)
    assert ref.dual_objective == pytest.approx(p_obj, rel=1e-7)
    res = sopopo_batch(X, Y, C, decomposition="top_vs_rest", tol=1e-10,
                       max_iter=20000, random_state=0)
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=1e-7)
    assert res.primal_objective == pytest.approx(p_obj, rel=1e-7)
