"""Kernel M3L by example-major coordinate ascent on the whole Gram matrix
(``m3l_smo(method="cd")``, issue 16 item 1): the same optimum as the SMO
(Alg. 1, Sec. 5.1 of m3l-multilabel-zero-shot.txt) and as Clarabel on the
dual D2 (Eq. 25), for R = I, diagonal and dense R, with sample weights,
shrinking on and off, and warm starts; the automatic dispatch; the kernel
against a plain coordinate-ascent reference. No timings asserted."""

import numpy as np
import pytest

from polyrank import M3LClassifier
from polyrank.kernels import kernel_matrix
from polyrank.m3l import _kernels, dual_gradient, dual_qp, m3l_smo, projected_gradient
from polyrank.m3l.solver import expansion, gram
from polyrank.result import STATUS_CALLBACK, STATUS_CONVERGED

TOL = 1e-6          # relative agreement of the objectives


def _problem(seed, N=40, D=4, L=5, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    Y = np.where(X @ rng.normal(size=(D, L)) + noise * rng.normal(size=(N, L)) > 0, 1.0, -1.0)
    A = rng.normal(size=(L, L))
    priors = {"identity": None, "diagonal": np.diag(rng.uniform(0.3, 3.0, size=L)),
              "dense": A @ A.T + 0.3 * np.eye(L)}
    return X, Y, priors, rng


def _K(X, kernel):
    params = {"rbf": {"gamma": 0.5}, "poly": {"gamma": 0.5, "degree": 2, "coef0": 1.0},
              "linear": {}}[kernel]
    return kernel_matrix(X, kernel=kernel, **params), params


def _check_optimal(res, K, Y, R, Cv, ref):
    assert res.status == STATUS_CONVERGED and res.solver == "m3l-cd"
    assert abs(res.dual_objective - ref.dual_objective) <= TOL * abs(ref.dual_objective)
    assert abs(res.primal_objective - ref.dual_objective) <= TOL * abs(ref.dual_objective)
    R = np.eye(Y.shape[1]) if R is None else R
    G = dual_gradient(K, Y, R, res.dual["alpha"])
    # the exact check: every projected gradient below tol, G not drifted
    assert np.abs(projected_gradient(res.dual["alpha"], G, Cv)).max() < 1e-8
    np.testing.assert_allclose(res.dual["G"], G, atol=1e-9)
    np.testing.assert_allclose(res.x, 2 * (Y * res.dual["alpha"]) @ R, atol=1e-12)


@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("prior", ["identity", "diagonal", "dense"])
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_cd_matches_clarabel_and_smo(kernel, prior, shrinking):
    X, Y, priors, _ = _problem(1)
    R = priors[prior]
    K, params = _K(X, kernel)
    C = 0.7
    ref = dual_qp(K, Y, np.eye(Y.shape[1]) if R is None else R, C)
    res = m3l_smo(X, Y, R, C, kernel=kernel, tol=1e-9, method="cd", shrinking=shrinking,
                  random_state=0, **params)
    _check_optimal(res, K, Y, R, np.full(len(X), C), ref)
    smo = m3l_smo(X, Y, R, C, kernel=kernel, tol=1e-9, method="smo", **params)
    assert smo.solver == "m3l-smo"
    assert res.dual_objective == pytest.approx(smo.dual_objective, rel=TOL)
    assert res.primal_objective == pytest.approx(smo.primal_objective, rel=TOL)


@pytest.mark.parametrize("seed", range(4))
def test_cd_on_random_problems_and_orders(seed):
    N = 30 + 10 * seed
    X, Y, priors, rng = _problem(10 + seed, N=N, L=3 + seed)
    K, params = _K(X, "rbf")
    C = float(rng.uniform(0.2, 3.0))
    for prior in ("identity", "dense"):
        R = priors[prior]
        ref = dual_qp(K, Y, np.eye(Y.shape[1]) if R is None else R, C)
        for order in range(3):
            res = m3l_smo(X, Y, R, C, kernel="rbf", tol=1e-9, method="cd",
                          random_state=order, **params)
            _check_optimal(res, K, Y, R, np.full(N, C), ref)


@pytest.mark.parametrize("shrinking", [True, False])
def test_cd_sample_weights_match_clarabel(shrinking):
    X, Y, priors, rng = _problem(3, N=35)
    w = rng.uniform(0.0, 2.5, size=len(X))
    w[:3] = 0.0                                  # removed examples
    K, params = _K(X, "rbf")
    for prior in ("identity", "dense"):
        R = priors[prior]
        Rm = np.eye(Y.shape[1]) if R is None else R
        ref = dual_qp(K, Y, Rm, 0.8, sample_weight=w)
        res = m3l_smo(X, Y, R, 0.8, kernel="rbf", tol=1e-9, method="cd", shrinking=shrinking,
                      sample_weight=w, random_state=1, **params)
        _check_optimal(res, K, Y, R, 0.8 * w, ref)
        assert np.all(res.dual["alpha"][:3] == 0.0)
        assert np.all(res.dual["alpha"] <= 0.8 * w[:, None])


def test_cd_integer_weights_equal_repeated_rows():
    X, Y, _, rng = _problem(4, N=25)
    w = rng.integers(0, 4, size=len(X))
    a = m3l_smo(X, Y, None, 0.9, kernel="rbf", gamma=0.5, tol=1e-10, method="cd",
                sample_weight=w, random_state=0)
    b = m3l_smo(np.repeat(X, w, axis=0), np.repeat(Y, w, axis=0), None, 0.9, kernel="rbf",
                gamma=0.5, tol=1e-10, method="cd", random_state=0)
    assert a.primal_objective == pytest.approx(b.primal_objective, rel=1e-8)
    assert a.dual_objective == pytest.approx(b.dual_objective, rel=1e-8)


@pytest.mark.parametrize("prior", ["identity", "dense"])
def test_cd_warm_start_reaches_the_same_optimum(prior):
    X, Y, priors, _ = _problem(5, N=50)
    R = priors[prior]
    K, params = _K(X, "rbf")
    cold = m3l_smo(X, Y, R, 1.0, kernel="rbf", tol=1e-9, method="cd", random_state=0, **params)
    # from the solution itself: converged after one epoch, nothing to move
    again = m3l_smo(X, Y, R, 1.0, kernel="rbf", tol=1e-9, method="cd",
                    alpha0=cold.dual["alpha"], random_state=0, **params)
    assert again.success and again.nit == 1
    assert again.dual_objective == pytest.approx(cold.dual_objective, rel=1e-12)
    # from the solution of a nearby C (clipped into the new box) and from the SMO's
    near = m3l_smo(X, Y, R, 1.3, kernel="rbf", tol=1e-9, method="cd", random_state=0,
                   **params)
    warm = m3l_smo(X, Y, R, 1.0, kernel="rbf", tol=1e-9, method="cd",
                   alpha0=np.minimum(near.dual["alpha"], 1.0), random_state=0, **params)
    ref = dual_qp(K, Y, np.eye(Y.shape[1]) if R is None else R, 1.0)
    _check_optimal(warm, K, Y, R, np.ones(len(X)), ref)
    smo = m3l_smo(X, Y, R, 1.0, kernel="rbf", tol=1e-3, method="smo", **params)
    warm = m3l_smo(X, Y, R, 1.0, kernel="rbf", tol=1e-9, method="cd",
                   alpha0=smo.dual["alpha"], random_state=0, **params)
    _check_optimal(warm, K, Y, R, np.ones(len(X)), ref)


def test_auto_dispatch_and_estimator():
    X, Y, priors, _ = _problem(6)
    # R diagonal and the Gram matrix in the cache: cd; dense R or a small cache: smo
    assert m3l_smo(X, Y, None, 1.0, kernel="rbf", gamma=0.5).solver == "m3l-cd"
    assert m3l_smo(X, Y, priors["diagonal"], 1.0, kernel="rbf", gamma=0.5).solver == "m3l-cd"
    assert m3l_smo(X, Y, priors["dense"], 1.0, kernel="rbf", gamma=0.5).solver == "m3l-smo"
    assert m3l_smo(X, Y, None, 1.0, kernel="rbf", gamma=0.5,
                   cache_mb=1e-4).solver == "m3l-smo"
    with pytest.raises(ValueError, match="method: 'cd' needs the whole Gram matrix"):
        m3l_smo(X, Y, None, 1.0, kernel="rbf", gamma=0.5, cache_mb=1e-4, method="cd")
    with pytest.raises(ValueError, match="method: expected one of"):
        m3l_smo(X, Y, None, 1.0, method="newton")
    with pytest.raises(TypeError, match="shrinking"):
        m3l_smo(X, Y, None, 1.0, method="cd", shrinking="yes")
    est = M3LClassifier(C=1.0, kernel="rbf", gamma=0.5, tol=1e-9, random_state=0).fit(X, Y)
    assert est.result_.solver == "m3l-cd" and est.result_.success
    # the estimator's bias feature (1) with the rbf kernel: the kernel offset bias^2
    smo = m3l_smo(X, Y, None, 1.0, kernel="rbf", gamma=0.5, tol=1e-9, method="smo",
                  offset=1.0)
    assert est.result_.dual_objective == pytest.approx(smo.dual_objective, rel=TOL)


def test_cd_trace_and_callback_contract():
    X, Y, priors, _ = _problem(7, N=60)
    res = m3l_smo(X, Y, None, 2.0, kernel="rbf", gamma=0.3, tol=1e-8, method="cd",
                  random_state=0)
    t = res.trace
    assert len(t) == res.nit >= 2 and res.epochs == res.nit
    # every step is an ascent step (over-relaxation below 2): the dual never falls
    assert np.all(np.diff(t.dual) >= -1e-9 * abs(t.dual[-1]))
    assert np.all(t.gap >= -1e-9 * abs(t.primal))
    assert t.max_pg[-1] < 1e-8 <= t.max_pg[0]
    assert res.gap == pytest.approx(t.gap[-1])
    assert res.cache_misses == 60 and t.cache_hits[-1] == t.rounds[-1] <= t.steps[-1]
    seen = []

    def cb(info):
        seen.append(info)
        if info.iteration == 3:
            raise StopIteration

    res = m3l_smo(X, Y, None, 2.0, kernel="rbf", gamma=0.3, tol=1e-12, method="cd",
                  callback=cb, random_state=0)
    assert res.status == STATUS_CALLBACK and res.nit == 3 and not res.success
    assert {"max_pg", "steps", "rounds", "cache_hits", "cache_misses"} <= set(seen[0].extras)
    res = m3l_smo(X, Y, None, 2.0, kernel="rbf", gamma=0.3, tol=1e-12, method="cd",
                  max_iter=2, random_state=0)
    assert res.nit == 2 and not res.success and "max_iter" in res.message


def test_cd_is_reproducible_with_a_seed():
    X, Y, _, _ = _problem(8)
    a = m3l_smo(X, Y, None, 1.0, kernel="rbf", gamma=0.5, tol=1e-6, method="cd",
                random_state=3)
    b = m3l_smo(X, Y, None, 1.0, kernel="rbf", gamma=0.5, tol=1e-6, method="cd",
                random_state=3)
    np.testing.assert_array_equal(a.dual["alpha"], b.dual["alpha"])


def _pg(K, Y, R, Cv, alpha, i, l):
    g = 2.0 - 2.0 * Y[i, l] * (2.0 * K[i] @ (Y * alpha) @ R[:, l])
    return g, projected_gradient(np.array([alpha[i, l]]), np.array([g]), Cv[i])[0]


def _plain_epoch(K, Y, R, Cv, alpha, order, omega, skip, skip_example):
    """Exact coordinate ascent over ``order`` (examples), every label of an
    example in turn, the gradient recomputed from scratch at every visit;
    an example moves only if one of its projected gradients exceeds
    ``skip_example``, a variable only if its own exceeds ``skip``."""
    N, L = Y.shape
    for i in order:
        if max(abs(_pg(K, Y, R, Cv, alpha, i, l)[1]) for l in range(L)) <= skip_example:
            continue
        for l in range(L):
            g, pg = _pg(K, Y, R, Cv, alpha, i, l)
            a = alpha[i, l]
            if abs(pg) <= skip:
                continue
            step = np.clip(g / (4.0 * R[l, l] * K[i, i]), -a, Cv[i] - a)
            alpha[i, l] = np.clip(a + omega * step, 0.0, Cv[i])
    return alpha


@pytest.mark.parametrize("prior", ["identity", "dense"])
@pytest.mark.parametrize("omega, skip, skip_example", [(1.0, 0.0, 0.0), (1.3, 0.05, 0.1),
                                                      (1.5, 0.1, 0.0)])
def test_cd_epoch_is_plain_coordinate_ascent(prior, omega, skip, skip_example):
    X, Y, priors, rng = _problem(9, N=20, L=4)
    R = np.eye(4) if priors[prior] is None else priors[prior]
    K = kernel_matrix(X, kernel="rbf", gamma=0.5)
    Cv = rng.uniform(0.5, 1.5, size=20)
    alpha = rng.uniform(0, 1, size=(20, 4)) * Cv[:, None]
    alpha[rng.random((20, 4)) < 0.3] = 0.0
    A = alpha.copy()
    Ut = (Y * A).T @ K
    active = np.arange(20, dtype=np.int64)
    n_active = np.array([20])
    lb = np.full(4, -np.inf)
    ub = np.full(4, np.inf)
    _kernels.cd_epoch(_kernels.GramProblem(K, np.diag(K).copy(), Y, R, Cv),
                      _kernels.CdIterate(A, Ut, active, n_active, lb, ub),
                      prior == "identity", 5, False, omega, skip, skip_example)
    # the kernel permuted `active` into its visiting order
    expected = _plain_epoch(K, Y, R, Cv, alpha.copy(), active, omega, skip, skip_example)
    np.testing.assert_allclose(A, expected, atol=1e-12)
    np.testing.assert_allclose(Ut, (Y * A).T @ K, atol=1e-12)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_gram_is_the_kernel_matrix(kernel):
    X = np.random.default_rng(0).normal(size=(300, 6))     # several blocks
    K, params = _K(X, kernel)
    kind = {"rbf": _kernels.KIND_RBF, "linear": _kernels.KIND_LINEAR,
            "poly": _kernels.KIND_POLY}[kernel]
    G = gram(X, kind, params.get("gamma", 0.0), params.get("coef0", 0.0),
             params.get("degree", 1))
    np.testing.assert_allclose(G, K, rtol=1e-12, atol=1e-12)
    if kernel == "rbf":
        assert np.all(np.diag(G) == 1.0)


# --- float32 storage of the Gram matrix and the expansion (gram_dtype) -------------


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_float32_gram_is_the_float64_gram_rounded_once(kernel):
    X = np.random.default_rng(1).normal(size=(300, 6))
    _, params = _K(X, kernel)
    kind = {"rbf": _kernels.KIND_RBF, "linear": _kernels.KIND_LINEAR,
            "poly": _kernels.KIND_POLY}[kernel]
    args = (X, kind, params.get("gamma", 0.0), params.get("coef0", 0.0),
            params.get("degree", 1))
    G64 = gram(*args)
    G32 = gram(*args, np.float32)
    assert G32.dtype == np.float32
    np.testing.assert_array_equal(G32, G64.astype(np.float32))
    # symmetric to the bit, as the kernel is
    np.testing.assert_array_equal(G32, G32.T)
    np.testing.assert_array_equal(G64, G64.T)


def test_expansion_accumulates_in_float64():
    rng = np.random.default_rng(2)
    K32 = rng.random((300, 300)).astype(np.float32)     # several blocks
    Bt = rng.normal(size=(4, 300))
    exact = Bt @ K32.astype(np.float64)
    np.testing.assert_allclose(expansion(K32, Bt), exact, rtol=1e-13, atol=1e-13)
    # float32 arithmetic would be far off: the test can tell the two apart
    assert np.abs((Bt.astype(np.float32) @ K32) - exact).max() > 1e-6
    K64 = K32.astype(np.float64)
    np.testing.assert_array_equal(expansion(K64, Bt), Bt @ K64)


@pytest.mark.parametrize("prior", ["identity", "dense"])
@pytest.mark.parametrize("shrinking", [True, False])
def test_float32_cd_is_exact_for_the_rounded_gram(prior, shrinking):
    X, Y, priors, _ = _problem(11, N=120, L=6)
    R = priors[prior]
    Rm = np.eye(Y.shape[1]) if R is None else R
    K, params = _K(X, "rbf")
    K32 = gram(X, _kernels.KIND_RBF, 0.5, 0.0, 1, np.float32).astype(np.float64)
    C, tol = 0.8, 1e-4
    res = m3l_smo(X, Y, R, C, kernel="rbf", tol=tol, method="cd", shrinking=shrinking,
                  gram_dtype="float32", random_state=0, **params)
    assert res.status == STATUS_CONVERGED and res.gram_dtype == "float32"
    alpha = res.dual["alpha"]
    # G and the objectives are exact for the stored (rounded) Gram matrix ...
    G32 = dual_gradient(K32, Y, Rm, alpha)
    np.testing.assert_allclose(res.dual["G"], G32, atol=1e-10)
    assert np.abs(projected_gradient(alpha, G32, np.full(len(X), C))).max() < tol
    # ... and within rounding of the kernel's own: the stopping rule holds for K too
    G = dual_gradient(K, Y, Rm, alpha)
    assert np.abs(G - G32).max() < 1e-5
    assert np.abs(projected_gradient(alpha, G, np.full(len(X), C))).max() < tol + 1e-5
    # the optimum of the exact problem lies inside the reported duality gap
    ref = dual_qp(K, Y, Rm, C)
    slack = 1e-6 * abs(ref.dual_objective)
    assert res.dual_objective - slack <= ref.dual_objective <= res.primal_objective + slack


def test_gram_dtype_auto_follows_tol_and_the_cache():
    X, Y, _, _ = _problem(12, N=60)
    kw = dict(kernel="rbf", gamma=0.5, random_state=0)
    assert m3l_smo(X, Y, None, 1.0, tol=1e-3, **kw).gram_dtype == "float32"
    assert m3l_smo(X, Y, None, 1.0, tol=1e-4, **kw).gram_dtype == "float32"
    assert m3l_smo(X, Y, None, 1.0, tol=1e-5, **kw).gram_dtype == "float64"
    assert m3l_smo(X, Y, None, 1.0, tol=1e-3, gram_dtype="float64",
                   **kw).gram_dtype == "float64"
    # the same solve either way, to the accuracy asked for
    a = m3l_smo(X, Y, None, 1.0, tol=1e-4, gram_dtype="float32", **kw)
    b = m3l_smo(X, Y, None, 1.0, tol=1e-4, gram_dtype="float64", **kw)
    assert a.dual_objective == pytest.approx(b.dual_objective, rel=1e-5)
    # a cache that holds the float32 Gram matrix (4 N^2 bytes) but not the float64 one
    mb = 6.0 * 60 * 60 / 1e6
    assert m3l_smo(X, Y, None, 1.0, tol=1e-3, cache_mb=mb, **kw).solver == "m3l-cd"
    assert m3l_smo(X, Y, None, 1.0, tol=1e-3, cache_mb=mb, gram_dtype="float64",
                   **kw).solver == "m3l-smo"
    with pytest.raises(ValueError, match=r"float64 for N = 60"):
        m3l_smo(X, Y, None, 1.0, tol=1e-3, cache_mb=mb, gram_dtype="float64",
                method="cd", **kw)
    with pytest.raises(ValueError, match="gram_dtype: expected one of"):
        m3l_smo(X, Y, None, 1.0, gram_dtype="float16", **kw)
    with pytest.raises(TypeError, match="gram_dtype: expected a str"):
        m3l_smo(X, Y, None, 1.0, gram_dtype=np.float32, **kw)


def test_float32_cd_warm_start():
    X, Y, priors, _ = _problem(13, N=80)
    kw = dict(kernel="rbf", gamma=0.5, tol=1e-4, gram_dtype="float32", method="cd")
    cold = m3l_smo(X, Y, None, 1.0, random_state=0, **kw)
    again = m3l_smo(X, Y, None, 1.0, alpha0=cold.dual["alpha"], random_state=1, **kw)
    assert again.success and again.nit == 1
    assert again.dual_objective == pytest.approx(cold.dual_objective, rel=1e-12)


def test_estimator_gram_dtype():
    X, Y, _, _ = _problem(14, N=60)
    Y01 = (Y > 0).astype(int)
    auto = M3LClassifier(kernel="rbf", gamma=0.5, random_state=0).fit(X, Y01)
    exact = M3LClassifier(kernel="rbf", gamma=0.5, random_state=0,
                          gram_dtype="float64").fit(X, Y01)
    assert auto.result_.gram_dtype == "float32" and exact.result_.gram_dtype == "float64"
    assert auto.result_.success and exact.result_.success
    assert auto.result_.dual_objective == pytest.approx(exact.result_.dual_objective, rel=1e-3)
    with pytest.raises(ValueError, match="gram_dtype"):
        M3LClassifier(kernel="rbf", gram_dtype="half").fit(X, Y01)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_gradient_by_rows_is_the_exact_gradient(kernel, monkeypatch):
    from polyrank.m3l import gram as gram_module
    from polyrank.m3l import solver
    X, Y, priors, rng = _problem(15, N=70, L=4)
    K, params = _K(X, kernel)
    alpha = rng.uniform(0, 1, size=Y.shape) * (rng.random(Y.shape) < 0.6)
    R = priors["dense"]
    args = (X, kernel, params, Y, R, alpha)
    np.testing.assert_allclose(solver.gradient_by_rows(*args), dual_gradient(K, Y, R, alpha),
                               rtol=1e-12, atol=1e-12)
    monkeypatch.setattr(gram_module, "_GRAM_BLOCK", 16)     # several blocks, a ragged last one
    np.testing.assert_allclose(solver.gradient_by_rows(*args), dual_gradient(K, Y, R, alpha),
                               rtol=1e-12, atol=1e-12)
