"""SC-SDCA and SC-Pegasos (sign-constrained-sdca-pegasos.txt, Alg. 1-4)
against independent references: scikit-learn Ridge(positive=True) and
LinearSVC, Clarabel QPs of the sign-constrained problem, scipy L-BFGS-B with
bounds, brute-force conjugates and coordinate maximisers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import sign_problem
from scipy.optimize import minimize_scalar

from polyrank.qp import solve_qp
from polyrank.result import STATUS_CALLBACK, STATUS_CONVERGED
from polyrank.sign import Loss, r_loss, sc_pegasos, sc_sdca
from polyrank.sign import _kernels as K
from polyrank.sign.reference import primal_objective, reference_lbfgsb, reference_qp

REL = 1e-6          # the one tolerance on objectives against references


def _rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


# ------------------------------------------------- the references of issue 4

def test_square_loss_nonnegative_equals_sklearn_ridge_positive():
    from sklearn.linear_model import Ridge

    X, _, yr, _, _, _ = sign_problem(0, n=80, d=8)
    yr = np.abs(yr) + X @ np.abs(np.arange(8.0))          # some weights want to be > 0
    n = X.shape[0]
    lam = 0.05
    res = sc_sdca(X, yr, "square", lam, np.ones(8), tol=1e-12, max_iter=20000,
                  random_state=0)
    # P(w) * 2n = ||Xw - y||^2 + (lam n) ||w||^2: Ridge's alpha = lam n
    ridge = Ridge(alpha=lam * n, positive=True, fit_intercept=False, tol=1e-12,
                  max_iter=100000).fit(X, yr)
    assert res.status == STATUS_CONVERGED
    assert np.all(res.x >= 0) and np.any(res.x == 0)       # the constraint is active
    p_ridge = primal_objective(X, yr, "square", lam, ridge.coef_)
    assert _rel(res.primal_objective, p_ridge) < REL
    np.testing.assert_allclose(res.x, ridge.coef_, atol=1e-5)


def test_hinge_with_signs_equals_clarabel_qp():
    for seed in range(3):
        X, yb, _, _, c, _ = sign_problem(seed)
        res = sc_sdca(X, yb, "hinge", 0.05, c, tol=1e-10, max_iter=20000, random_state=seed)
        ref = reference_qp(X, yb, "hinge", 0.05, c)
        assert res.status == STATUS_CONVERGED
        assert _rel(res.primal_objective, ref.primal_objective) < REL
        assert np.all(c * res.x >= 0)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_hinge_without_signs_equals_linearsvc():
    from sklearn.svm import LinearSVC

    X, yb, _, _, _, _ = sign_problem(4, n=60)
    n, lam = X.shape[0], 0.02
    res = sc_sdca(X, yb, "hinge", lam, None, tol=1e-10, max_iter=20000, random_state=0)
    # a fixed seed: with tol = 1e-12, liblinear's dual coordinate descent
    # cycles at max_iter for about 1 seed in 10 on this problem (P 4e-3 too high)
    svc = LinearSVC(loss="hinge", C=1.0 / (lam * n), fit_intercept=False, dual=True,
                    tol=1e-12, max_iter=1_000_000, random_state=2).fit(X, yb)
    p_svc = primal_objective(X, yb, "hinge", lam, svc.coef_.ravel())
    assert _rel(res.primal_objective, p_svc) < REL
    np.testing.assert_allclose(res.x, svc.coef_.ravel(), atol=1e-4)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("loss", ["hinge", "smoothed_hinge", "logistic", "square", "absolute"])
def test_every_binary_loss_matches_its_reference(loss, sparse):
    for seed in (10, 11):
        X, yb, yr, _, c, _ = sign_problem(seed, sparse=sparse)
        y = yr if loss in ("square", "absolute") else yb
        res = sc_sdca(X, y, loss, 0.03, c, smoothing=0.1, tol=1e-10, max_iter=50000,
                      random_state=seed)
        assert res.status == STATUS_CONVERGED, res.message
        if loss == "logistic":
            ref = reference_lbfgsb(X, y, loss, 0.03, c, smoothing=0.1)
        else:
            ref = reference_qp(X, y, loss, 0.03, c, smoothing=0.1)
        assert _rel(res.primal_objective, ref.primal_objective) < REL
        # the dual is a certified lower bound of the reference optimum
        assert res.dual_objective <= ref.primal_objective + 1e-9
        assert np.all(c * res.x >= 0)
        if loss in ("smoothed_hinge", "logistic", "square"):
            lb = reference_lbfgsb(X, y, loss, 0.03, c, smoothing=0.1)
            assert _rel(res.primal_objective, lb.primal_objective) < REL


@pytest.mark.parametrize("loss", ["softmax", "max_hinge", "top_k_hinge"])
def test_every_multiclass_loss_matches_its_reference(loss):
    X, _, _, ym, _, C = sign_problem(20, n=45)
    res = sc_sdca(X, ym, loss, 0.05, C, top_k=2, tol=1e-10, max_iter=50000,
                  random_state=0)
    assert res.status == STATUS_CONVERGED, res.message
    ref = (reference_lbfgsb(X, ym, loss, 0.05, C) if loss == "softmax"
           else reference_qp(X, ym, loss, 0.05, C, top_k=2))
    assert _rel(res.primal_objective, ref.primal_objective) < REL
    assert res.x.shape == (6, 3) and np.all(C * res.x >= 0)


def test_top1_hinge_is_the_max_hinge():
    X, _, _, ym, _, C = sign_problem(21, n=30)
    a = sc_sdca(X, ym, "top_k_hinge", 0.05, C, top_k=1, tol=1e-10, max_iter=50000,
                random_state=0)
    b = sc_sdca(X, ym, "max_hinge", 0.05, C, tol=1e-10, max_iter=50000, random_state=0)
    assert _rel(a.primal_objective, b.primal_objective) < REL


# -------------------------------------------- sign constraints, gap, Pegasos

@pytest.mark.parametrize("loss", ["hinge", "logistic", "square", "max_hinge"])
def test_every_iterate_satisfies_the_signs_exactly(loss):
    X, yb, yr, ym, c, C = sign_problem(30)
    y = {"square": yr, "max_hinge": ym}.get(loss, yb)
    s = C if loss == "max_hinge" else c
    seen = []
    for solver, kw in ((sc_sdca, {"max_iter": 30, "tol": 0.0}),
                       (sc_pegasos, {"batch_size": 5, "max_iter": 300})):
        res = solver(X, y, loss, 0.01, s, random_state=0, callback=seen.append, **kw)
        assert np.all(res.trace.sign_violation == 0.0)
        assert np.all(s * res.x >= 0.0)
    assert len(seen) == 30 + 30
    # the constraints are active: the unconstrained solution violates them
    free = sc_sdca(X, y, loss, 0.01, None, max_iter=30, tol=0.0, random_state=0)
    assert np.any(s * free.x < 0)


def test_pegasos_iterates_are_feasible_at_every_step():
    X, yb, _, _, c, _ = sign_problem(31, n=20)
    for T in range(1, 25):
        res = sc_pegasos(X, yb, "hinge", 0.1, c, batch_size=3, max_iter=T, random_state=1)
        assert np.all(c * res.last >= 0) and np.all(c * res.x >= 0)
        assert np.linalg.norm(res.last) <= math.sqrt(1.0 / 0.1) * (1 + 1e-12)


def _gap_scale(loss, y) -> float:
    """max(1, P(0)), what sc_sdca's tol is relative to, from its definition:
    P(0) = 0.5 mean(y^2) (square), mean |y| (absolute), <= 1 otherwise."""
    P0 = {"square": 0.5 * np.mean(np.square(y)), "absolute": np.mean(np.abs(y))}.get(loss, 1.0)
    return max(1.0, float(P0))


@pytest.mark.parametrize("loss", ["hinge", "smoothed_hinge", "logistic", "absolute",
                                  "softmax", "top_k_hinge"])
def test_sdca_duality_gap_goes_to_zero(loss):
    X, yb, yr, ym, c, C = sign_problem(40)
    mc = loss in ("softmax", "top_k_hinge")
    y = ym if mc else (yr if loss == "absolute" else yb)
    res = sc_sdca(X, y, loss, 0.02, C if mc else c, top_k=2, tol=1e-9, max_iter=50000,
                  random_state=0)
    gaps = res.trace.gap
    assert res.status == STATUS_CONVERGED and gaps[-1] <= 1e-9 * _gap_scale(loss, y)
    assert np.all(gaps >= -1e-12)                       # weak duality at every epoch
    assert gaps[0] > 100 * gaps[-1]
    # D(alpha) never decreases much (hinge/abs steps maximise D_t exactly)
    assert np.all(np.diff(res.trace.dual) >= -1e-9)


def test_sdca_averaging_from_t0():
    X, yb, _, _, c, _ = sign_problem(41)
    ref = reference_qp(X, yb, "hinge", 0.05, c)
    res = sc_sdca(X, yb, "hinge", 0.05, c, tol=0.0, average_from=10, max_iter=200,
                  random_state=0)
    assert np.all(c * res.x >= 0) and np.all(res.trace.sign_violation == 0)
    excess = res.primal_objective - ref.primal_objective
    assert -1e-12 <= excess < 1e-3 * ref.primal_objective
    # the averaged iterate differs from the last iterate
    last = sc_sdca(X, yb, "hinge", 0.05, c, tol=0.0, max_iter=200, random_state=0)
    assert not np.array_equal(res.x, last.x)


@pytest.mark.parametrize("layout", ["csr", "dense"])
def test_lazy_running_sum_equals_the_explicit_average_of_alg2_step8(layout):
    from polyrank.sign.data import _csr, prepare_data

    X, yb, _, _, c, _ = sign_problem(42, n=15, d=4, sparse=True)
    data = prepare_data(X, yb, "hinge", c)
    Xc, n, lam = data["X"], 15, 0.1
    sq = np.asarray(Xc.multiply(Xc).sum(axis=1)).ravel()
    perm = np.random.default_rng(0).permutation(n).astype(np.int64)
    Xd = Xc.toarray()
    lo = np.where(c > 0, 0.0, -np.inf)
    hi = np.where(c < 0, 0.0, np.inf)
    w_prev = np.array([0.3, -0.2, 0.1, 0.5])

    def epoch(alpha, wbar, w, wsum, last, order, average, track, z_prev):
        it = K.SdcaIterate(alpha, wbar, w, wsum, last, w_prev, z_prev)
        if layout == "csr":
            rows = K.CsrExamples(*_csr(Xc), data["y"], data["sw"])
            return K.sdca_epoch(rows, K.HINGE, 0.01, lam, sq, 1.0, it, data["c"], order, 0,
                                average, track)
        return K.sdca_epoch_dense(K.DenseExamples(Xd, data["y"], data["sw"]), K.HINGE, 0.01,
                                  lam, sq, 1.0, it, K.SignBox(lo, hi), order, 0, average, track)

    def state():
        return np.zeros(n), np.zeros(4), np.zeros(4), np.zeros(4), np.zeros(4, np.int64)

    alpha, wbar, w, wsum, last = state()
    z_prev = np.full(n, np.nan)
    changed = epoch(alpha, wbar, w, wsum, last, perm, True, True, z_prev)
    K.flush_average(w, wsum, last, n)
    # the fused pass stored the margins of w_prev of every row
    np.testing.assert_allclose(z_prev, Xd @ w_prev, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(K.loss_sum(K.HINGE, z_prev, data["y"], 0.01, np.ones(n)),
                               np.maximum(0, 1 - yb * (Xd @ w_prev)).sum(), rtol=1e-13)
    assert 0 < changed <= n
    a2, wb2, w2, ws2, l2 = state()
    explicit = np.zeros(4)
    for j in range(n):                        # one step at a time, w^(t-1) summed by hand
        explicit += w2
        untouched = np.full(n, 7.0)
        epoch(a2, wb2, w2, ws2, l2, perm[j:j + 1], False, False, untouched)
        assert np.all(untouched == 7.0)
    np.testing.assert_allclose(wsum, explicit, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(w, w2, rtol=1e-14, atol=1e-16)
    np.testing.assert_array_equal(alpha, a2)
    # wbar is X' alpha / (lam n) and w its sign correction (Eq. 11, Eq. 49)
    np.testing.assert_allclose(wbar, Xd.T @ alpha / (lam * n), rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(w, np.where(c * wbar < 0, 0.0, wbar))


@pytest.mark.parametrize("loss", ["hinge", "smoothed_hinge", "logistic", "square",
                                  "absolute"])
def test_dense_and_csr_layouts_give_the_same_iterates(loss):
    X, yb, yr, _, c, _ = sign_problem(61, n=80, sparse=True)
    y = yr if loss in ("square", "absolute") else yb
    a = sc_sdca(X, y, loss, 0.05, c, max_iter=15, tol=0.0, random_state=4, layout="csr")
    b = sc_sdca(X, y, loss, 0.05, c, max_iter=15, tol=0.0, random_state=4,
                layout="dense")
    assert (a.layout, b.layout) == ("csr", "dense")
    # the same steps; only the rounding of the (vectorised) inner products differs
    np.testing.assert_allclose(a.x, b.x, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.dual, b.dual, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.trace.gap, b.trace.gap, rtol=1e-7, atol=1e-12)


def test_auto_layout_and_its_errors():
    X, yb, _, ym, c, C = sign_problem(62, n=40, d=8, sparse=True)
    assert sc_sdca(X, yb, "hinge", 0.1, c, max_iter=2).layout == "dense"   # half non-zero
    Xs = sp.csr_matrix(X.toarray() * (np.random.default_rng(0).random(X.shape) < 0.3))
    assert Xs.nnz < 0.25 * 40 * 8
    assert sc_sdca(Xs, yb, "hinge", 0.1, c, max_iter=2).layout == "csr"
    assert sc_sdca(X, ym, "max_hinge", 0.1, C, max_iter=2).layout == "csr"
    with pytest.raises(ValueError, match="layout: 'dense' is implemented for the binary"):
        sc_sdca(X, ym, "max_hinge", 0.1, C, layout="dense")
    with pytest.raises(ValueError, match="layout: expected 'auto', 'dense' or 'csr'"):
        sc_sdca(X, yb, "hinge", 0.1, c, layout="Dense")


@pytest.mark.parametrize("layout", ["csr", "dense"])
@pytest.mark.parametrize("loss", ["smoothed_hinge", "logistic"])
def test_fused_gap_equals_the_exact_objectives_of_each_epoch(layout, loss):
    """The trace's P of epoch k is summed during epoch k + 1; it must equal
    P and D evaluated from scratch on the state a run stopped at k returns."""
    X, yb, _, _, c, _ = sign_problem(63, n=70)
    lam = 0.03
    long = sc_sdca(X, yb, loss, lam, c, max_iter=12, tol=0.0, random_state=5,
                   layout=layout)
    assert list(long.trace.iteration) == list(range(1, 13))
    for k in (1, 2, 5, 12):
        short = sc_sdca(X, yb, loss, lam, c, max_iter=k, tol=0.0, random_state=5,
                        layout=layout)
        assert short.nit == k
        np.testing.assert_allclose(short.trace.primal, long.trace.primal[:k], rtol=1e-12)
        np.testing.assert_allclose(short.trace.dual, long.trace.dual[:k], rtol=1e-12)
        # from scratch: P(x) by the reference, D(alpha) with wbar = X' alpha / (lam n)
        assert _rel(primal_objective(X, yb, loss, lam, short.x), short.primal_objective) < 1e-12
        wbar = X.T @ short.dual / (lam * X.shape[0])
        np.testing.assert_allclose(short.wbar, wbar, rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(short.x, np.where(c * short.wbar < 0, 0.0, short.wbar))
        b = yb * short.dual
        conj = (-b + 0.5 * 0.01 * b * b if loss == "smoothed_hinge"
                else b * np.log(np.where(b > 0, b, 1)) + (1 - b) * np.log1p(-b))
        D = -0.5 * lam * short.x @ short.x - conj.mean()
        assert abs(D - short.dual_objective) < 1e-12


def test_stopped_and_converged_runs_return_the_recorded_epoch():
    X, yb, _, _, c, _ = sign_problem(64, n=60)

    def stop_at_4(info):
        if info.iteration == 4:
            raise StopIteration

    stopped = sc_sdca(X, yb, "hinge", 0.05, c, tol=0.0, callback=stop_at_4, random_state=6)
    four = sc_sdca(X, yb, "hinge", 0.05, c, tol=0.0, max_iter=4, random_state=6)
    assert stopped.status == STATUS_CALLBACK and stopped.nit == 4 == len(stopped.trace)
    np.testing.assert_array_equal(stopped.x, four.x)
    np.testing.assert_array_equal(stopped.dual, four.dual)
    conv = sc_sdca(X, yb, "hinge", 0.05, c, tol=1e-8, random_state=6)
    assert conv.status == STATUS_CONVERGED and conv.gap <= 1e-8 < conv.trace.gap[-2]
    again = sc_sdca(X, yb, "hinge", 0.05, c, tol=0.0, max_iter=conv.nit, random_state=6)
    np.testing.assert_array_equal(conv.x, again.x)
    assert conv.primal_objective == again.primal_objective


def test_shuffle_draws_every_permutation_uniformly():
    from itertools import permutations

    rng = np.random.default_rng(0)
    perm = np.arange(3, dtype=np.int64)
    counts = dict.fromkeys(permutations(range(3)), 0)
    trials = 60000
    for _ in range(trials):
        K.shuffle(perm, rng.random(3))
        counts[tuple(perm)] += 1
    expected = trials / 6
    # chi-square with 5 degrees of freedom; P(chi2 > 25) < 2e-4
    chi2 = sum((v - expected) ** 2 / expected for v in counts.values())
    assert chi2 < 25
    big = np.arange(1000, dtype=np.int64)
    K.shuffle(big, rng.random(1000))
    assert sorted(big) == list(range(1000)) and not np.array_equal(big, np.arange(1000))


@pytest.mark.parametrize("batch_size", [1, 10])
def test_pegasos_approaches_the_optimum(batch_size):
    X, yb, _, _, c, _ = sign_problem(50, n=100)
    lam = 0.1
    ref = reference_qp(X, yb, "hinge", lam, c)
    res = sc_pegasos(X, yb, "hinge", lam, c, batch_size=batch_size, max_iter=20000,
                     random_state=0)
    # Theorem 1: E[P(w~)] - P* <= (sqrt(r lam) + L R)^2 (1 + log T) / (lam T)
    R = np.linalg.norm(X, axis=1).max()
    bound = (math.sqrt(lam) + R) ** 2 * (1 + math.log(20000)) / (lam * 20000)
    excess = res.primal_objective - ref.primal_objective
    assert -1e-9 <= excess <= bound
    assert excess < 1e-2 * ref.primal_objective
    # the certified gap is valid: P(w~) - D(alpha(w~)) >= P(w~) - P*
    assert res.gap >= excess - 1e-9


def test_pegasos_smooth_loss_gap_is_a_certificate():
    X, yb, _, _, c, _ = sign_problem(51, n=80)
    res = sc_pegasos(X, yb, "logistic", 0.1, c, batch_size=8, max_iter=5000, random_state=0)
    ref = reference_lbfgsb(X, yb, "logistic", 0.1, c)
    assert res.dual_objective <= ref.primal_objective + 1e-12 <= res.primal_objective + 1e-12
    assert res.gap < 1e-3


def test_dense_and_sparse_give_the_same_iterates():
    X, yb, _, _, c, _ = sign_problem(60, sparse=True)
    a = sc_sdca(X, yb, "smoothed_hinge", 0.05, c, max_iter=5, tol=0.0, random_state=3)
    b = sc_sdca(X.toarray(), yb, "smoothed_hinge", 0.05, c, max_iter=5, tol=0.0,
                random_state=3)
    np.testing.assert_array_equal(a.x, b.x)
    p = sc_pegasos(X, yb, "hinge", 0.05, c, batch_size=4, max_iter=50, random_state=3)
    q = sc_pegasos(X.toarray(), yb, "hinge", 0.05, c, batch_size=4, max_iter=50, random_state=3)
    np.testing.assert_array_equal(p.x, q.x)


# ------------------------------------------------------------- the losses

@pytest.mark.parametrize("name", ["hinge", "smoothed_hinge", "logistic", "square", "absolute"])
def test_loss_conjugate_matches_brute_force_sup(name):
    loss = Loss(name, smoothing=0.3)
    y = 1.0 if name in ("hinge", "smoothed_hinge", "logistic") else 0.7
    lo, hi = (-1.0, 0.0) if name != "absolute" and name != "square" else (-1.0, 1.0)
    if name == "square":
        lo, hi = -2.0, 2.0
    for u in np.linspace(lo, hi, 7) * y:
        # phi*(u) = sup_s u s - phi(s)
        r = minimize_scalar(lambda s, u=u: -(u * s - loss.value([s], [y])[0]),
                            bounds=(-60, 60), method="bounded",
                            options={"xatol": 1e-12})
        assert abs(loss.conjugate([u], [y])[0] - (-r.fun)) < 1e-6
    assert loss.conjugate([5.0], [y])[0] == np.inf or name == "square"


@pytest.mark.parametrize("name", ["hinge", "smoothed_hinge", "logistic", "square", "absolute"])
def test_loss_gradient_matches_finite_differences(name):
    loss = Loss(name, smoothing=0.3)
    rng = np.random.default_rng(0)
    s = rng.normal(size=20) * 2
    y = np.where(rng.random(20) < 0.5, -1.0, 1.0)
    h = 1e-6
    fd = (loss.value(s + h, y) - loss.value(s - h, y)) / (2 * h)
    np.testing.assert_allclose(loss.grad(s, y), fd, atol=1e-5)


def test_r_loss_is_phi_of_zero():
    y = np.array([1.0, -1.0, 1.0])
    for name in ("hinge", "smoothed_hinge", "logistic"):
        assert math.isclose(r_loss(name, y, 0.2), Loss(name, 0.2).value(np.zeros(3), y).mean())
    yr = np.array([0.5, -2.0, 3.0])
    for name in ("square", "absolute"):
        assert math.isclose(r_loss(name, yr), Loss(name).value(np.zeros(3), yr).mean())
    assert math.isclose(r_loss("softmax", [0, 1], n_classes=4), math.log(4))
    assert r_loss("max_hinge", [0, 1], n_classes=4) == 1.0


@pytest.mark.parametrize("name", ["hinge", "smoothed_hinge", "square", "absolute"])
def test_closed_form_sdca_step_maximises_eq15(name):
    loss = Loss(name, smoothing=0.3)
    rng = np.random.default_rng(1)
    for _ in range(20):
        y = float(rng.choice([-1.0, 1.0])) if name in ("hinge", "smoothed_hinge") else rng.normal()
        a = y * rng.random() if name != "square" else rng.normal()
        if name == "absolute":
            a = rng.uniform(-1, 1)
        z, qq = rng.normal() * 2, rng.random() + 0.05

        def neg_dt(d, z=z, qq=qq, a=a, y=y):
            return d * z + 0.5 * qq * d * d + loss.conjugate([-(a + d)], [y])[0]
        step = loss.sdca_step(z, a, y, qq)
        # the domain of phi^*(-(a + d)) as an interval of d; D_t is concave on it
        lo, hi = {"hinge": sorted((-a, y - a)), "smoothed_hinge": sorted((-a, y - a)),
                  "absolute": (-1 - a, 1 - a)}.get(name, (-20.0, 20.0))
        best = minimize_scalar(neg_dt, bounds=(lo, hi), method="bounded",
                               options={"xatol": 1e-12})
        assert neg_dt(step) <= best.fun + 1e-9
        assert neg_dt(step) <= min(neg_dt(lo), neg_dt(hi)) + 1e-12


def test_eq16_logistic_step_never_decreases_the_coordinate_dual():
    loss = Loss("logistic")
    rng = np.random.default_rng(2)
    for _ in range(50):
        y = float(rng.choice([-1.0, 1.0]))
        a, z, qq = y * rng.random(), rng.normal() * 3, rng.random() + 0.01
        s_lb = 1.0 / (1.0 + 0.25 * qq)           # lam n g / (lam n g + R^2), g = 4
        step = loss.sdca_step(z, a, y, qq, s_lb)
        before = loss.conjugate([-a], [y])[0]
        after = step * z + 0.5 * qq * step ** 2 + loss.conjugate([-(a + step)], [y])[0]
        assert after <= before + 1e-12 and 0 <= (a + step) * y <= 1


def test_capped_simplex_projection_equals_clarabel():
    rng = np.random.default_rng(3)
    for m, cap in ((3, 1.0), (5, 0.5), (6, 1 / 3), (4, 0.25)):
        v = rng.normal(size=m) * 2
        out = np.empty(m)
        K.project_capped_simplex(v, cap, out)
        ref = solve_qp(np.eye(m), -v, A_eq=np.ones((1, m)), b_eq=[1.0],
                       G=np.vstack([-np.eye(m), np.eye(m)]),
                       h=np.concatenate([np.zeros(m), np.full(m, cap)]))
        np.testing.assert_allclose(out, ref.x, atol=1e-7)
        assert abs(out.sum() - 1) < 1e-12 and out.min() >= 0 and out.max() <= cap + 1e-15


# ------------------------------------------------------------ hostile input

def test_hostile_inputs_raise_clear_errors():
    X, yb, yr, ym, c, C = sign_problem(80, n=10, d=4)
    with pytest.raises(ValueError, match="signs: expected shape"):
        sc_sdca(X, yb, "hinge", 0.1, [1, 0])
    with pytest.raises(ValueError, match="signs: entries must be -1, 0 or"):
        sc_sdca(X, yb, "hinge", 0.1, [1, 0, 2, 0])
    with pytest.raises(ValueError, match="signs: entries must be"):
        sc_pegasos(X, yb, "hinge", 0.1, [1, 0, np.nan, 0])
    with pytest.raises(ValueError, match="signs: expected shape"):
        sc_sdca(X, ym, "softmax", 0.1, [1, 0, 0, 0])
    for lam in (0.0, -1.0, np.nan):
        with pytest.raises(ValueError, match="lam"):
            sc_sdca(X, yb, "hinge", lam)
    with pytest.raises(TypeError, match="lam"):
        sc_pegasos(X, yb, "hinge", "0.1")
    with pytest.raises(ValueError, match=r"y: the hinge loss needs labels in \{-1, \+1\}"):
        sc_sdca(X, (yb > 0).astype(float), "hinge", 0.1)
    with pytest.raises(ValueError, match="y: the logistic loss"):
        sc_pegasos(X, yr, "logistic", 0.1)
    Xn = np.array(X)
    Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match="X: contains NaN"):
        sc_sdca(Xn, yb, "hinge", 0.1)
    with pytest.raises(ValueError, match="y: contains NaN"):
        sc_sdca(X, np.where(np.arange(10) == 3, np.nan, yr), "square", 0.1)
    with pytest.raises(ValueError, match="y: expected shape"):
        sc_sdca(X, yb[:5], "hinge", 0.1)
    with pytest.raises(ValueError, match="loss: expected one of"):
        sc_sdca(X, yb, "huber", 0.1)
    with pytest.raises(ValueError, match="smoothing"):
        sc_sdca(X, yb, "smoothed_hinge", 0.1, smoothing=2.0)
    with pytest.raises(ValueError, match="batch_size"):
        sc_pegasos(X, yb, "hinge", 0.1, batch_size=11)
    with pytest.raises(ValueError, match="top_k"):
        sc_sdca(X, ym, "top_k_hinge", 0.1, top_k=4)
    with pytest.raises(ValueError, match="y: the softmax loss needs class indices"):
        sc_sdca(X, ym + 0.5, "softmax", 0.1)
    with pytest.raises(TypeError, match="X: expected real numbers"):
        sc_sdca(np.array([["a"] * 4] * 10), yb, "hinge", 0.1)


@pytest.mark.parametrize("loss", ["hinge", "smoothed_hinge", "logistic", "square", "absolute",
                                  "softmax", "max_hinge", "top_k_hinge"])
def test_zero_rows_do_not_stall_the_gap(loss):
    """x_i = 0 makes ||x_i||^2 / (lam n) = 0 in the coordinate step: the step
    must still maximise over alpha_i (the loss conjugate alone)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    X[[3, 7]] = 0.0
    y = {"square": rng.normal(size=30), "absolute": rng.normal(size=30)}.get(
        loss, np.where(rng.random(30) < 0.5, 1.0, -1.0))
    if loss in ("softmax", "max_hinge", "top_k_hinge"):
        y = rng.integers(0, 3, size=30)
    res = sc_sdca(X, y, loss, 0.1, None, top_k=2, tol=1e-9, max_iter=20000, random_state=0)
    assert res.status == STATUS_CONVERGED and 0 <= res.gap <= 1e-9


# ------------------------------------------------------------- shrinking

@pytest.mark.parametrize("loss", ["hinge", "smoothed_hinge", "absolute", "logistic", "square"])
@pytest.mark.parametrize("layout", ["csr", "dense"])
def test_shrinking_reaches_the_same_certified_optimum(loss, layout):
    X, yb, yr, _, c, _ = sign_problem(80, n=120)
    y = yr if loss in ("square", "absolute") else yb
    lam = 0.01
    ref = (reference_qp(X, y, loss, lam, c) if loss in ("hinge", "absolute")
           else reference_lbfgsb(X, y, loss, lam, c))
    res = sc_sdca(X, y, loss, lam, c, tol=1e-9, max_iter=20000, shrinking=True,
                  layout=layout, random_state=0)
    assert res.status == STATUS_CONVERGED and 0 <= res.gap <= 1e-9 * _gap_scale(loss, y)
    assert _rel(res.primal_objective, ref.primal_objective) < REL
    assert np.all(c * res.x >= 0)
    # the certificate is over all rows: P(x) and D(dual) recomputed from scratch
    assert _rel(primal_objective(X, y, loss, lam, res.x), res.primal_objective) < 1e-12
    steps = res.trace.steps
    assert np.all(np.diff(steps) >= X.shape[0]) and np.all(res.trace.n_active <= X.shape[0])


def test_shrinking_needs_fewer_coordinate_steps_when_duals_sit_at_bounds():
    """Not a timing: counts of coordinate steps to the same duality gap."""
    rng = np.random.default_rng(81)
    X = rng.normal(size=(2000, 10))
    y = np.where(X @ rng.normal(size=10) + 0.3 * rng.normal(size=2000) >= 0, 1.0, -1.0)
    c = np.array([1, -1, 0, 0, 1, 0, 0, -1, 0, 0], float)
    lam = 1.0 / 2000
    kw = dict(smoothing=0.05, tol=1e-7, max_iter=5000, random_state=1)
    plain = sc_sdca(X, y, "smoothed_hinge", lam, c, **kw)
    shrunk = sc_sdca(X, y, "smoothed_hinge", lam, c, shrinking=True, **kw)
    assert plain.status == shrunk.status == STATUS_CONVERGED
    assert abs(plain.primal_objective - shrunk.primal_objective) <= 2e-7
    assert shrunk.trace.steps[-1] < 0.5 * plain.trace.steps[-1]
    assert shrunk.trace.n_active[-1] < 0.2 * 2000     # most rows end at a bound


def test_active_rows_keeps_changed_and_interior_duals():
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0])
    alpha = np.array([0.0, -1.0, 0.5, 0.0, 1.0, 0.0])   # y alpha: 0, 1, .5, 0, 1, 0
    before = np.array([0.0, -1.0, 0.5, -0.2, 1.0, 0.3])
    # at a bound and unchanged: rows 0, 1, 4; interior: 2; changed: 3, 5
    one = np.ones(6)
    np.testing.assert_array_equal(K.active_rows(K.SMOOTH_HINGE, alpha, before, y, one),
                                  [2, 3, 5])
    # weights scale the bounds: y alpha = s is the upper bound; weight 0 never stays
    s = np.array([1.0, 2.0, 0.5, 1.0, 1.0, 0.0])
    a_w = alpha * s
    np.testing.assert_array_equal(K.active_rows(K.SMOOTH_HINGE, a_w, a_w.copy(), y, s), [2])
    a = np.array([1.0, -1.0, 0.2])
    np.testing.assert_array_equal(
        K.active_rows(K.ABSOLUTE, a, a.copy(), np.zeros(3), one[:3]), [2])
    # no reachable bound: every row stays
    np.testing.assert_array_equal(
        K.active_rows(K.SQUARE, a, a.copy(), np.zeros(3), one[:3]), [0, 1, 2])


def test_shrinking_rejects_bad_values():
    X, yb, _, ym, c, C = sign_problem(82, n=30)
    with pytest.raises(TypeError, match="shrinking: expected True or False"):
        sc_sdca(X, yb, "hinge", 0.1, c, shrinking="yes")
    with pytest.raises(ValueError, match="shrinking: implemented for the binary"):
        sc_sdca(X, ym, "max_hinge", 0.1, C, shrinking=True)


@pytest.mark.parametrize("k", [1, 2, 3, 7, 9])
def test_topk_indices_is_the_stable_argsort_prefix(k):
    # k scans for the first largest entry replace numba's merge sort: same
    # indices in the same order, ties by lower index
    from polyrank.sign._multiclass_kernels import _topk_indices
    rng = np.random.default_rng(k)
    for _ in range(50):
        v = rng.integers(-3, 4, size=7).astype(float)       # many ties
        np.testing.assert_array_equal(_topk_indices(v, k),
                                      np.argsort(-v, kind="stable")[:k])
