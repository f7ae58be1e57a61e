"""Kernel M3L with many labels (m3l-multilabel-zero-shot.txt, Sec. 5.1,
Alg. 1; issue 16 item 1): the SMO against Clarabel on the dual D2 (Eq. 25)
for several labels and priors R (dense, diagonal, block-diagonal), against
LIBSVM per label for R = I (Sec. 3.1), its kernel cache filled by BLAS
blocks, its vectorised helpers against plain references, and a quick run
of ``polyrank bench m3l-labels`` (no timings asserted)."""

import numpy as np
import pytest
from scipy.linalg import block_diag
from sklearn.svm import SVC

from polyrank.kernels import kernel_matrix
from polyrank.m3l import _kernels, dual_gradient, dual_qp, m3l_smo, projected_gradient
from polyrank.result import STATUS_CONVERGED
from polyrank_paper import BENCHES
from polyrank_paper.bench.m3l_labels import bench_m3l_labels, labels_problem, svc_primal

TOL = 1e-6          # agreement with Clarabel (relative, dual objective)


def _problem(seed, N=40, D=4, L=6, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    Y = np.where(X @ rng.normal(size=(D, L)) + noise * rng.normal(size=(N, L)) > 0, 1.0, -1.0)
    return X, Y, rng


def _gram(X, kernel):
    params = {"rbf": {"gamma": 0.5}, "poly": {"gamma": 0.5, "degree": 2, "coef0": 1.0},
              "linear": {}}[kernel]
    return kernel_matrix(X, kernel=kernel, **params), params


def _priors(L, rng):
    A = rng.normal(size=(L, L))
    dense = A @ A.T + 0.2 * np.eye(L)
    diag = np.diag(rng.uniform(0.3, 3.0, size=L))
    B = rng.normal(size=(3, 3))
    blocks = block_diag(B @ B.T + 0.3 * np.eye(3), np.diag(rng.uniform(0.5, 2.0, L - 3)))
    return {"dense": dense, "diagonal": diag, "block": blocks}


@pytest.mark.parametrize("prior", ["dense", "diagonal", "block"])
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_many_labels_match_clarabel_and_are_kkt(kernel, prior):
    X, Y, rng = _problem(5)
    R = _priors(Y.shape[1], rng)[prior]
    K, params = _gram(X, kernel)
    C = 0.6
    ref = dual_qp(K, Y, R, C)
    res = m3l_smo(X, Y, R, C, kernel=kernel, tol=1e-9, **params)
    assert res.status == STATUS_CONVERGED
    assert abs(res.dual_objective - ref.dual_objective) <= TOL * abs(ref.dual_objective)
    np.testing.assert_allclose(res.dual["alpha"], ref.x, atol=1e-5)
    # KKT on the exact gradient, and the maintained gradient did not drift
    G = dual_gradient(K, Y, R, res.dual["alpha"])
    assert np.abs(projected_gradient(res.dual["alpha"], G, C)).max() < 1e-8
    np.testing.assert_allclose(res.dual["G"], G, atol=1e-9)
    assert 0 <= res.gap <= 1e-7 * res.primal_objective
    # the decisions of the dual coefficients B = 2 (Y alpha) R (Eq. 23)
    np.testing.assert_allclose(K @ res.x, 2 * K @ (Y * ref.x) @ R, atol=1e-4)


def test_identity_R_with_many_labels_is_libsvm_per_label():
    # odd-symmetric data: SVC's free intercept is 0 at the optimum, so LIBSVM
    # solves each label's bias-free SVM with penalty 2C (Sec. 3.1, Eq. 15-18)
    rng = np.random.default_rng(3)
    H = rng.normal(size=(30, 3))
    YH = np.where(H @ rng.normal(size=(3, 5)) + 0.7 * rng.normal(size=(30, 5)) > 0, 1.0, -1.0)
    X, Y = np.vstack([H, -H]), np.vstack([YH, -YH])
    C, gamma = 0.8, 0.7
    res = m3l_smo(X, Y, None, C, kernel="rbf", gamma=gamma, tol=1e-10)
    K = kernel_matrix(X, kernel="rbf", gamma=gamma)
    Xt = rng.normal(size=(25, 3))
    Ft = kernel_matrix(Xt, X, kernel="rbf", gamma=gamma) @ res.x
    models = []
    for lab in range(Y.shape[1]):
        svc = SVC(kernel="rbf", gamma=gamma, C=2 * C, tol=1e-10).fit(X, Y[:, lab])
        assert abs(svc.intercept_[0]) < 1e-6
        np.testing.assert_allclose(Ft[:, lab], svc.decision_function(Xt), atol=1e-5)
        models.append(svc)
    # svc_primal (the bench's objective of the peer) is M3L's primal here
    assert svc_primal(K, Y, models, 2 * C) == pytest.approx(res.primal_objective, rel=1e-6)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_full_cache_is_filled_once_and_agrees_with_a_small_cache(kernel):
    X, Y, rng = _problem(8, N=50, L=5)
    R = _priors(5, rng)["block"]
    # without shrinking: its decisions follow the last bits of the gradients, so
    # the two caches' paths (and pass counts) part ways (generic CPU: 42 vs 24);
    # tests/core/m3l/test_m3l_smo_shrinking.py checks shrinking against the same optimum
    kw = dict(kernel=kernel, gamma=0.5, tol=1e-9, method="smo", shrinking=False)
    full = m3l_smo(X, Y, R, 1.0, **kw)
    small = m3l_smo(X, Y, R, 1.0, cache_mb=3 * 50 * 8e-6, **kw)
    assert full.cache_rows == 50 and full.cache_misses == 50     # every row once, by BLAS
    assert small.cache_rows == 3 and small.cache_misses > 50     # LRU evictions
    np.testing.assert_allclose(small.dual["alpha"], full.dual["alpha"], atol=1e-9)
    assert small.primal_objective == pytest.approx(full.primal_objective, rel=1e-9)
    # the full cache's rows come from BLAS, the small cache's from numba loops:
    # their last bits differ with the CPU (NUMBA_CPU_NAME=generic: 31 vs 33
    # passes), so the two runs take the same path up to rounding, not bitwise
    assert abs(small.nit - full.nit) <= max(3, 0.1 * full.nit)


@pytest.mark.parametrize("x", [
    [1.0], [0.0, 0.0, 0.0], [-1.0, -1.0], [3.0, 1.0, 3.0],
    list(np.arange(17.0)), list(np.arange(17.0)[::-1]), [0.0] * 9 + [2.0] + [2.0] * 8,
    list(np.random.default_rng(0).normal(size=101)),
])
def test_first_max_is_numpy_argmax(x):
    x = np.asarray(x)
    m, i = _kernels._first_max(x)
    assert m == x.max() and i == int(np.argmax(x))


def test_gains_and_update_match_plain_formulas():
    rng = np.random.default_rng(2)
    N = 37
    K = kernel_matrix(rng.normal(size=(N, 3)), kernel="rbf", gamma=0.3)
    Kdiag = np.diag(K).copy()
    G = rng.normal(size=N)
    Cv = rng.uniform(0.5, 1.5, size=N)
    A = np.where(rng.random(N) < 0.3, 0.0, np.where(rng.random(N) < 0.3, Cv,
                                                     rng.uniform(0, 1, N) * Cv))
    Yl = np.where(rng.random(N) < 0.5, 1.0, -1.0)
    p, Rll = 4, 1.7
    K[p, 9] = K[9, p] = 1.0                  # a singular pair (K_p9^2 = K_pp K_99)
    out = np.empty(N)
    _kernels._gains(_kernels.LabelRows(G, A, Yl, Cv), K[p], Kdiag, Kdiag[p], G[p], Yl[p], Rll,
                    p, out)
    pg = projected_gradient(A[:, None], G[:, None], Cv).ravel()   # (N, 1) with C (N,)
    for j in range(N):
        det = Kdiag[p] * Kdiag[j] - K[p, j] ** 2
        if j == p or pg[j] == 0 or det <= 1e-12 * Kdiag[p] * Kdiag[j]:
            assert out[j] == -1.0
        else:
            h = (G[p] ** 2 * Kdiag[j] + G[j] ** 2 * Kdiag[p]
                 - 2 * G[p] * G[j] * Yl[p] * Yl[j] * K[p, j]) / (8 * Rll * det)
            assert out[j] == pytest.approx(h, rel=1e-12)
    assert out[9] == -1.0
    u = np.zeros(N)
    G2 = G.copy()
    _kernels._update2(_kernels.LabelRows(G2, A, Yl, Cv), K[p], K[9], 0.3, -0.2, 4 * Rll, u,
                      True, out)
    w = 0.3 * K[p] - 0.2 * K[9]
    np.testing.assert_allclose(G2, G - 4 * Rll * Yl * w, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(u, w, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(
        out, np.abs(projected_gradient(A[:, None], G2[:, None], Cv).ravel()))


def test_bench_m3l_labels_quick_run():
    assert "m3l-labels" in BENCHES and "m3l-labels-wide" in BENCHES
    res = bench_m3l_labels(quick=True, N=80, Ls=(3, 5), repeats=1, tol=1e-6, n_features=7)
    assert res.summary.n_features == 7 and "80 x 7" in res.title
    assert res.summary.gamma == pytest.approx(1 / 7)
    assert all(r.svc_gram_s > 0 for r in res.rows)
    assert [r.L for r in res.rows] == [3, 5]
    for r in res.rows:
        assert r.m3l_s > 0 and r.svc_s > 0
        assert r.speedup == pytest.approx(r.svc_s / r.m3l_s)
        assert 0 <= r.hamming_m3l_pct <= 100 and 0 <= r.hamming_svc_pct <= 100
        # SVC's free intercept can only lower the (common) primal objective
        assert r.primal_svc <= r.primal_m3l * (1 + 1e-4)
        assert 0 <= r.m3l_gap_rel < 1e-5
    assert res.summary.speedup_at_40 is None and len(res.notes) >= 4
    assert "Hamming" in res.format_table()


@pytest.mark.slow
def test_labels_problem_and_bench_errors():
    Xtr, Xte, Ytr, Yte = labels_problem(40, 3, seed=1)
    assert Xtr.shape == (40, 50) and Xte.shape == (10, 50) and Ytr.shape == (40, 3)
    np.testing.assert_allclose(Xtr.mean(axis=0), 0, atol=1e-12)
    with pytest.raises(ValueError, match="N"):
        labels_problem(3, 2)
    with pytest.raises(ValueError, match="Ls"):
        bench_m3l_labels(Ls=(0,), N=20)
    with pytest.raises(ValueError, match="C"):
        bench_m3l_labels(C=0.0, N=20, Ls=(2,))
