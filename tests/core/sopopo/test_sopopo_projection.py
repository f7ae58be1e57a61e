"""A single soft projection (Sec. 3 of sopopo-label-ranking.txt) against
independent references: Clarabel on Eq. 7 and Eq. 19, bisection for g."""

import numpy as np
import pytest

from polyrank.sopopo import g, knots, margins, soft_project, solve_reduced
from polyrank.sopopo.reference import reduced_qp, soft_project_qp

RTOL = 1e-7


def random_problem(rng, k=None):
    """A random soft-projection problem with ties in mu and nu, tiny or
    ordinary x, and C spanning 1e-3..1e3."""
    k = int(rng.integers(2, 41)) if k is None else k
    n = int(rng.integers(1, 6))
    labels = rng.permutation(k)
    p = int(rng.integers(1, k))
    q = int(rng.integers(1, k - p + 1))
    A, B = labels[:p], labels[p:p + q]
    y = rng.normal(size=k)
    # integer-valued targets create ties; make y consistent with A x B
    y = np.round(y * 2) / 2
    y[A] = np.abs(y[A]) + 1.0 + np.round(rng.random(p))
    y[B] = -np.abs(y[B]) + np.round(rng.random(q)) * 0.5
    U = rng.normal(size=(k, n))
    if rng.random() < 0.5:                       # ties in u.x: repeated prototypes
        U[labels[1::2]] = U[labels[0]]
    scale = 10.0 ** rng.choice([-4, -2, 0, 0, 1])
    x = rng.normal(size=n) * scale
    C = 10.0 ** rng.uniform(-3, 3)
    return x, y, U, A, B, C


def simplex_g(z, mu):
    """g(z; mu) by bisection on theta in alpha = (mu - theta)_+ (no knots)."""
    if z == 0:
        return 0.5 * float(mu @ mu)
    lo, hi = mu.min() - z, mu.max()
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.maximum(mu - mid, 0).sum() > z:
            lo = mid
        else:
            hi = mid
    a = np.maximum(mu - 0.5 * (lo + hi), 0)
    return 0.5 * float(np.sum((a - mu) ** 2))


def test_soft_project_matches_clarabel_on_eq7():
    rng = np.random.default_rng(2006)
    worst = 0.0
    for trial in range(220):
        x, y, U, A, B, C = random_problem(rng)
        ours = soft_project(x, y, U, A, B, C)
        ref = soft_project_qp(x, y, U, A, B, C)
        scale = max(1.0, abs(ref.objective))
        rel = abs(ours.objective - ref.objective) / scale
        worst = max(worst, rel)
        assert rel <= RTOL, (trial, ours.objective, ref.objective)
        # constraints of Eq. 7 hold with our slack; W only moves rows in A u B
        f = ours.W @ x
        margins_ab = (f[A][:, None] - f[B][None, :]) - (y[A][:, None] - y[B][None, :])
        assert np.all(margins_ab >= -ours.xi - 1e-9 * max(1.0, np.abs(y).max()))
        rest = np.setdiff1d(np.arange(len(y)), np.concatenate([A, B]))
        np.testing.assert_array_equal(ours.W[rest], U[rest])
        # Eq. 17: sum alpha = sum beta = z <= C, alpha, beta >= 0
        assert ours.alpha.min() >= 0 and ours.beta.min() >= 0
        # rounding: alpha = mu - theta cancels digits when |mu| >> z (tiny x)
        mu, nu = margins(x, y, U, A, B)
        eps = 1e-14 * len(y) * max(np.abs(mu).max(), np.abs(nu).max(), C)
        np.testing.assert_allclose(ours.alpha.sum(), ours.z, rtol=1e-12, atol=eps)
        np.testing.assert_allclose(ours.beta.sum(), ours.z, rtol=1e-12, atol=eps)
        assert ours.z <= C * (1 + 1e-12)
        # strong duality of our own primal and dual (Eq. 7 vs Eq. 16)
        assert abs(ours.objective - ours.dual_objective) <= 1e-8 * scale
    assert worst < RTOL


def test_solve_reduced_matches_clarabel_on_eq19():
    rng = np.random.default_rng(19)
    for _ in range(100):
        p, q = rng.integers(1, 25, size=2)
        mu = np.round(rng.normal(size=p) * 3) / 3      # ties
        nu = np.round(rng.normal(size=q) * 3) / 3
        C = 10.0 ** rng.uniform(-3, 3)
        ours = solve_reduced(mu, nu, C)
        ref = reduced_qp(mu, nu, C)
        assert ours.objective <= ref.primal_objective + 1e-9 * max(1, abs(ref.primal_objective))
        assert ours.objective >= ref.primal_objective - 1e-6 * max(1, abs(ref.primal_objective))


def test_reduced_kkt_conditions():
    """alpha = (mu - theta_a)_+, beta = (nu - theta_b)_+ (Eq. 23) and
    d/dz [g(z; mu) + g(z; nu)] = -(theta_a + theta_b) is 0 inside (0, C),
    <= 0 at z = C and >= 0 at z = 0."""
    rng = np.random.default_rng(3)
    seen = set()
    for _ in range(500):
        mu = rng.normal(size=rng.integers(1, 12))
        nu = rng.normal(size=rng.integers(1, 12))
        C = 10.0 ** rng.uniform(-2, 1.5)
        s = solve_reduced(mu, nu, C)
        np.testing.assert_allclose(s.alpha, np.maximum(mu - s.theta_alpha, 0), atol=1e-12)
        np.testing.assert_allclose(s.beta, np.maximum(nu - s.theta_beta, 0), atol=1e-12)
        slope = -(s.theta_alpha + s.theta_beta)
        if s.z == 0:
            seen.add("zero")
            assert mu.max() + nu.max() <= 0
        elif s.z == C:
            seen.add("C")
            assert slope <= 1e-10
        else:
            seen.add("interior")
            assert abs(slope) <= 1e-9 * max(1, abs(s.theta_alpha))
            assert s.interval[0] - 1e-12 <= s.z <= s.interval[1] + 1e-12
    assert seen == {"zero", "C", "interior"}


def test_paper_fig4_example():
    """y = (1..6), u.x = (2,3,5,1,6,4), A = {4,5,6}, B = {1,2,3} (Fig. 4):
    the minimum lies just below 5, between the 2nd and 3rd knots."""
    U = np.array([[2.0], [3.0], [5.0], [1.0], [6.0], [4.0]])
    res = soft_project([1.0], np.arange(1.0, 7.0), U, [3, 4, 5], [0, 1, 2], C=10.0)
    mu, nu = margins([1.0], np.arange(1.0, 7.0), U, [3, 4, 5], [0, 1, 2])
    union = np.sort(np.concatenate([knots(mu), knots(nu)]))
    distinct = np.unique(union)
    assert distinct[1] < res.z < distinct[2] and 4.5 < res.z < 5
    grid = np.linspace(0, 10, 200001)
    brute = grid[np.argmin(g(grid, mu) + g(grid, nu))]
    assert abs(brute - res.z) < 1e-4


def test_knots_formula_and_order_invariance():
    rng = np.random.default_rng(4)
    for _ in range(50):
        mu = np.round(rng.normal(size=rng.integers(1, 15)), 1)
        d = np.sort(mu)[::-1]
        expected = np.cumsum(d) - np.arange(1, d.size + 1) * d
        np.testing.assert_allclose(knots(mu), expected, atol=1e-12)
        np.testing.assert_array_equal(knots(mu), knots(rng.permutation(mu)))
        z = knots(mu)
        assert z[0] == 0 and np.all(np.diff(z) >= 0)


@pytest.mark.slow
def test_g_equals_bisection_reference_and_is_convex_c1():
    rng = np.random.default_rng(5)
    for _ in range(30):
        mu = np.round(rng.normal(size=rng.integers(1, 10)) * 2) / 2
        z_max = knots(mu)[-1] + 2.0
        zs = np.linspace(0, z_max, 301)
        vals = g(zs, mu)
        ref = np.array([simplex_g(z, mu) for z in zs])
        np.testing.assert_allclose(vals, ref, rtol=1e-9, atol=1e-9)
        # convex: second differences >= 0
        assert np.all(np.diff(vals, 2) >= -1e-9)
        # continuous with continuous derivative across every knot (Thm. 4)
        h = 1e-6
        for zk in knots(mu)[1:]:
            if zk < 2 * h:
                continue
            left, right = g(zk - h, mu), g(zk + h, mu)
            assert abs(left - right) < 1e-5
            dl = (g(zk, mu) - g(zk - h, mu)) / h
            dr = (g(zk + h, mu) - g(zk, mu)) / h
            assert abs(dl - dr) < 1e-4


def test_g_scalar_and_errors():
    assert g(0.0, [1.0, 2.0]) == pytest.approx(2.5)
    assert isinstance(g(1.0, [1.0, 2.0]), float)
    with pytest.raises(ValueError, match="z"):
        g(-1.0, [1.0])
    with pytest.raises(ValueError, match="mu"):
        g(1.0, [])
    with pytest.raises(ValueError, match="mu"):
        knots([1.0, np.nan])


# ---------------------------------------------------------------- hostile input

def fig4():
    U = np.array([[2.0], [3.0], [5.0], [1.0], [6.0], [4.0]])
    return np.array([1.0]), np.arange(1.0, 7.0), U, [3, 4, 5], [0, 1, 2], 10.0


def test_zero_instance_returns_U():
    x, y, U, A, B, C = fig4()
    res = soft_project(np.zeros(1), y, U, A, B, C)
    np.testing.assert_array_equal(res.W, U)
    assert res.z == 0 and np.all(res.alpha == 0) and np.all(res.beta == 0)
    assert res.xi == pytest.approx(6.0 - 1.0)
    assert np.isfinite(res.objective)
    with pytest.raises(ValueError, match="x: is the zero vector"):
        margins(np.zeros(1), y, U, A, B)


@pytest.mark.parametrize("change, match", [
    (dict(A=[]), "A: must not be empty"),
    (dict(B=[]), "B: must not be empty"),
    (dict(A=[3, 4, 2], B=[0, 1, 2]), "A, B: must be disjoint"),
    (dict(C=0.0), "C: must be > 0"),
    (dict(C=-1.0), "C: must be > 0"),
    (dict(C=np.inf), "C: must be finite"),
    (dict(x=np.array([np.nan])), "x: contains NaN"),
    (dict(y=np.array([1, 2, 3, 4, np.inf, 6.0])), "y: contains NaN"),
    (dict(A=[0, 1, 2], B=[3, 4, 5]), "y: inconsistent with the edges"),
    (dict(U=np.zeros((6, 2))), r"U, x: U has shape \(6, 2\) but x has 1 entries"),
    (dict(U=np.zeros((5, 1))), r"y, U: y has 6 entries but U has 5 rows"),
    (dict(y=np.arange(1.0, 6.0)), r"y, U: y has 5 entries but U has 6 rows"),
    (dict(A=[3, 4, 9]), r"A: label indices must lie in \[0, 6\)"),
    (dict(A=[3, 3]), "A: contains duplicate labels"),
    (dict(x=np.ones((1, 1))), "x: expected a 1-d array"),
    # ||x||^2 overflows float64 (it gave W = U and a NaN dual without a word)
    (dict(x=np.array([1e200])), r"x: entry 1e\+200 at index 0 is too large.*scale x"),
    (dict(y=np.array([1, 2, 3, 4, 5, 1e300])), r"y: entry 1e\+300 at index 5 is too large"),
])
def test_hostile_input_raises_value_error(change, match):
    x, y, U, A, B, C = fig4()
    args = dict(x=x, y=y, U=U, A=A, B=B, C=C)
    args.update(change)
    with pytest.raises(ValueError, match=match):
        soft_project(**args)


def test_magnitude_bound_is_check_magnitudes_exactly():
    """The one-dot-product check of soft_project refuses exactly what
    check_magnitude refuses: an entry above sqrt(float64 max / (4 n)) (x)
    or sqrt(float64 max / 4) (y), and nothing else, also when the squared
    norm overflows while every entry is within the bound (the full check
    then decides)."""
    x, y, U, A, B, C = fig4()
    limit_y = np.sqrt(np.finfo(np.float64).max / 4.0)
    n = 4
    limit_x = np.sqrt(np.finfo(np.float64).max / (4.0 * n))
    Un = np.zeros((6, n))
    # every entry at 0.99 of the bound: ||x||^2 > float64 max / (4 n), still accepted
    xb = np.full(n, 0.99 * limit_x)
    assert float(xb @ xb) > np.finfo(np.float64).max / (4.0 * n)
    soft_project(xb, y, Un, A, B, C)
    xb[2] = 1.01 * limit_x
    with pytest.raises(ValueError, match=r"^x: entry .* at index 2 is too large"):
        soft_project(xb, y, Un, A, B, C)
    yb = y.copy()
    yb[3:] = 0.99 * limit_y          # y_a on A: the edges stay consistent
    soft_project(x, yb, U, A, B, C)
    yb[5] = 1.01 * limit_y
    with pytest.raises(ValueError, match=r"^y: entry .* at index 5 is too large"):
        soft_project(x, yb, U, A, B, C)


def test_trusted_path_equals_public_call():
    """_soft_project (the path without conversions and magnitude checks)
    returns what soft_project returns, bit for bit."""
    from polyrank.sopopo.projection import _soft_project
    rng = np.random.default_rng(5)
    for k in (6, 300):
        x = rng.normal(size=7)
        U = rng.normal(size=(k, 7))
        y = np.r_[np.ones(k // 2), np.zeros(k - k // 2)]
        A = np.arange(k // 2, dtype=np.int64)
        B = np.arange(k // 2, k, dtype=np.int64)
        a = soft_project(x, y, U, A, B, 0.5)
        b = _soft_project(x, y, U, A, B, 0.5)
        np.testing.assert_array_equal(a.W, b.W)
        np.testing.assert_array_equal(a.alpha, b.alpha)
        assert (a.z, a.xi, a.objective) == (b.z, b.xi, b.objective)


def test_wrong_types_raise_type_error():
    x, y, U, A, B, C = fig4()
    with pytest.raises(TypeError, match="A: expected integer"):
        soft_project(x, y, U, [3.0, 4.0], B, C)
    with pytest.raises(TypeError, match="C: expected a real number"):
        soft_project(x, y, U, A, B, "1")
    with pytest.raises(TypeError, match="x: expected real numbers"):
        soft_project(["a"], y, U, A, B, C)


def test_inputs_not_modified():
    x, y, U, A, B, C = fig4()
    U0 = U.copy()
    soft_project(x, y, U, A, B, C)
    np.testing.assert_array_equal(U, U0)
