"""SVOR with implicit constraints (the default model of OrdinalMarginRanker)
against the same QP solved by Clarabel, its KKT conditions, the thresholds
chosen by dynamic programming against brute force, and the warnings that a
trivial model gets (issue 29 item 2)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from polyrank import OrdinalMarginRanker
from polyrank.exceptions import NumericalError, TrivialModelWarning
from polyrank.kernels import kernel_matrix
from polyrank.ordinal import (
    PAPER_C,
    SVOR_LINEAR_C,
    loss_thresholds,
    make_instance,
    make_overlapping,
    predict_labels,
    solve_svor,
)
from polyrank.ordinal.estimator import SVOR_KERNEL_C
from polyrank.ordinal.reference import svor_qp

REL = 1e-7


def _problem(seed, n=60, d=4, counts=(1, 2, 2, 1), signal=1.0):
    return make_overlapping(n, d, signal=signal, counts=counts, seed=seed)


def _signs(labels, l):
    return np.where(labels[:, None] > np.arange(l)[None, :], 1.0, -1.0)


def _check_kkt(res, X, labels, cw):
    """Stationarity of the squared-hinge problem: (w, b) = sum_ij alpha_ij
    s_ij (x_i, -e_j) with alpha_ij = c_i max(0, 1 - s_ij (f_i - b_j)) (the
    residual is half the gradient, which a relative gap of 1e-12 bounds by
    ~1e-4 here)."""
    l = res.thresholds.size
    s = _signs(labels, l)
    r = np.maximum(0.0, 1.0 - s * ((X @ res.x)[:, None] - res.thresholds[None, :]))
    alpha = cw[:, None] * r
    np.testing.assert_allclose(res.dual, alpha, atol=1e-9 * max(1.0, alpha.max()))
    u = (alpha * s).sum(axis=1)
    scale = max(1.0, np.abs(res.x).max())
    np.testing.assert_allclose(X.T @ u, res.x, atol=1e-4 * scale)
    np.testing.assert_allclose(-(alpha * s).sum(axis=0), res.thresholds, atol=1e-4 * scale)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weights", [False, True])
def test_tron_equals_clarabel_with_kkt(seed, weights):
    X, y = _problem(seed)
    sw = np.random.default_rng(seed).integers(0, 4, size=y.size).astype(float) if weights \
        else None
    if weights:                                  # zeros included; every label kept
        sw[[np.flatnonzero(y == k)[0] for k in range(4)]] = 1.0
    res = solve_svor(X, y, c=10.0, sample_weight=sw, tol=1e-12)
    ref = svor_qp(X, y, 10.0, sample_weight=sw)
    assert res.status == "converged" and res.svor_solver == "tron"
    assert res.gap <= 1e-12 * res.primal_objective
    assert res.objective == pytest.approx(ref.objective, rel=1e-9)
    np.testing.assert_allclose(res.scores, ref.scores, atol=1e-5)
    np.testing.assert_allclose(res.thresholds, ref.thresholds, atol=1e-5)
    np.testing.assert_allclose(res.dual, ref.alpha, atol=1e-4 * max(1.0, ref.alpha.max()))
    _check_kkt(res, X, y, 10.0 * (np.ones(y.size) if sw is None else sw))
    # Chu & Keerthi's theorem: the optimal thresholds are ordered
    assert np.all(np.diff(res.thresholds) >= -1e-9)


@pytest.mark.parametrize("n, d", [(60, 4), (40, 120)])
def test_default_c_tron_equals_clarabel_also_wider_than_long(n, d):
    """Issue 30: the linear default c (SVOR_LINEAR_C) by TRON is the QP's
    optimum also with more features than objects (the red wine + random
    features regime), and each Newton step touches X only through products."""
    X, y = make_overlapping(n, d, signal=1.0, counts=(1, 2, 2, 1), seed=4)
    m = OrdinalMarginRanker().fit(X, y)
    assert m.c_ == SVOR_LINEAR_C == 0.02
    ref = svor_qp(X, y, SVOR_LINEAR_C)
    assert m.result_.svor_solver == "tron" and m.result_.status == "converged"
    assert m.result_.objective == pytest.approx(ref.objective, rel=1e-8)
    np.testing.assert_allclose(m.result_.scores, ref.scores, atol=1e-5 * np.ptp(ref.scores))
    _check_kkt(solve_svor(X, y, c=SVOR_LINEAR_C, tol=1e-12), X, y,
               SVOR_LINEAR_C * np.ones(n))
    explicit = OrdinalMarginRanker(c=SVOR_LINEAR_C).fit(X, y)
    np.testing.assert_array_equal(explicit.coef_, m.coef_)
    np.testing.assert_array_equal(explicit.thresholds_, m.thresholds_)


def test_default_c_depends_on_formulation_and_kernel():
    X, y = make_instance(40, 1, separable=False, seed=5)
    assert OrdinalMarginRanker().get_params()["c"] is None
    assert OrdinalMarginRanker(kernel="rbf", gamma=1.0).fit(X, y).c_ == SVOR_KERNEL_C == 2.0
    assert OrdinalMarginRanker(kernel="poly").fit(X, y).c_ == SVOR_KERNEL_C
    paper = OrdinalMarginRanker(formulation="paper").fit(X, y)
    assert paper.c_ == PAPER_C
    same = OrdinalMarginRanker(formulation="paper", c=PAPER_C).fit(X, y)
    assert paper.result_.objective == same.result_.objective
    assert OrdinalMarginRanker(c=3.0).fit(X, y).c_ == 3.0


@pytest.mark.parametrize("loss, kernel, kw", [
    ("squared_hinge", "linear", {"solver": "dual_cd"}),
    ("hinge", "linear", {}),
    ("squared_hinge", "rbf", {"gamma": 0.5}),
    ("hinge", "rbf", {"gamma": 0.5}),
    ("squared_hinge", "poly", {"gamma": 0.5, "degree": 2}),
])
def test_dual_cd_reaches_the_clarabel_optimum(loss, kernel, kw):
    X, y = _problem(4)
    tol = 1e-7
    res = solve_svor(X, y, c=10.0, loss=loss, kernel=kernel, tol=tol, max_iter=200_000, **kw)
    params = {k: v for k, v in kw.items() if k != "solver"}
    ref = svor_qp(X, y, 10.0, loss=loss, kernel=kernel, **params)
    assert res.status == "converged" and res.svor_solver == "dual_cd"
    # the gap bounds the distance to the optimum: 0 <= P - P* <= gap <= tol P
    assert -1e-9 * ref.objective <= res.objective - ref.objective <= tol * res.objective
    assert res.dual_objective <= ref.objective * (1 + 1e-9)
    np.testing.assert_allclose(res.scores, ref.scores, atol=1e-2)
    if kernel != "linear":
        K = kernel_matrix(X, kernel=kernel, **params)
        np.testing.assert_allclose(res.scores, K @ res.x, atol=1e-8)
    assert np.all(np.diff(res.thresholds) >= -1e-3)


def test_dual_cd_shrinking_and_status_are_honest():
    X, y = _problem(5, n=200)
    calls = []
    res = solve_svor(X, y, solver="dual_cd", tol=1e-8, callback=calls.append)
    assert res.status == "converged" and len(calls) == res.nit
    assert min(c.n_active for c in calls) < y.size * 3      # pairs were shrunk ...
    assert calls[-1].gap <= 1e-8 * calls[-1].primal          # ... and the gap is global
    capped = solve_svor(X, y, solver="dual_cd", tol=1e-12, max_iter=3)
    assert capped.status == "maximum number of iterations reached" and not capped.success


def test_sparse_equals_dense_and_sample_weight_is_repetition():
    X, y = _problem(6, n=80, d=6)
    X[np.abs(X) < 0.7] = 0.0
    for solver in ("tron", "dual_cd"):
        d = solve_svor(X, y, solver=solver, tol=1e-10, max_iter=100_000)
        s = solve_svor(sp.csr_matrix(X), y, solver=solver, tol=1e-10, max_iter=100_000)
        assert s.objective == pytest.approx(d.objective, rel=1e-8)
        np.testing.assert_allclose(s.x, d.x, atol=1e-5)
    w = np.random.default_rng(6).integers(1, 4, size=y.size).astype(float)
    keep = np.repeat(np.arange(y.size), w.astype(int))
    a = solve_svor(X, y, sample_weight=w)
    b = solve_svor(X[keep], y[keep])
    assert a.objective == pytest.approx(b.objective, rel=1e-9)
    np.testing.assert_allclose(a.x, b.x, atol=1e-6)


def test_bad_arguments_name_themselves():
    X, y = _problem(7, n=30)
    with pytest.raises(ValueError, match="loss"):
        solve_svor(X, y, loss="logistic")
    with pytest.raises(ValueError, match="solver: 'tron' needs"):
        solve_svor(X, y, loss="hinge", solver="tron")
    with pytest.raises(ValueError, match="solver: 'tron' needs"):
        solve_svor(X, y, kernel="rbf", solver="tron")
    with pytest.raises(ValueError, match="tol"):
        solve_svor(X, y, tol=0.0)
    with pytest.raises(ValueError, match="sample_weight"):
        solve_svor(X, y, sample_weight=-np.ones(y.size))
    with pytest.raises(TypeError, match="sparse"):
        solve_svor(sp.csr_matrix(X), y, kernel="rbf")


# ------------------------------------------------------- thresholds by DP
def _losses(a, b, loss):
    return {"mae": np.abs(a - b), "mse": (a - b) ** 2, "zero_one": (a != b) * 1.0}[loss]


def _brute_force(f, y, w, levels, loss, ref):
    """Every monotone threshold choice: a nondecreasing grade per block of
    equal scores; the least loss, and among those the least distance to the
    reference grades."""
    blocks = np.unique(f)
    best = None
    for grades in itertools.combinations_with_replacement(range(levels.size), blocks.size):
        pred = np.asarray(grades)[np.searchsorted(blocks, f)]
        key = (float(w @ _losses(levels[pred], levels[y], loss)),
               float(w @ np.abs(pred - ref)))
        if best is None or key[0] < best[0] - 1e-9 or (
                abs(key[0] - best[0]) <= 1e-9 and key[1] < best[1] - 1e-9):
            best = key
    return best


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("loss", ["mae", "mse", "zero_one"])
def test_loss_thresholds_exact_against_brute_force(seed, loss):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(4, 9)), int(rng.integers(3, 5))
    y = np.r_[np.arange(k), rng.integers(0, k, size=n - k)]
    f = rng.integers(0, 5, size=n).astype(float)          # ties on purpose
    w = rng.integers(1, 4, size=n).astype(float) if seed % 2 else np.ones(n)
    levels = np.cumsum(rng.uniform(0.5, 2.0, size=k)) if seed % 3 == 0 else None
    lev = np.arange(k, dtype=float) if levels is None else levels
    reference = np.sort(rng.uniform(-1, 5, size=k - 1)) if seed % 4 == 1 else None
    ref = (predict_labels(f, reference) if reference is not None
           else np.zeros(n, dtype=np.int64))
    b = loss_thresholds(f, y, levels=levels, loss=loss, sample_weight=w, reference=reference)
    assert b.shape == (k - 1,) and np.all(np.diff(b) >= 0)
    pred = predict_labels(f, b)
    got = (float(w @ _losses(lev[pred], lev[y], loss)), float(w @ np.abs(pred - ref)))
    want = _brute_force(f, y, w, lev, loss, ref)
    assert got[0] == pytest.approx(want[0], abs=1e-9)
    assert got[1] == pytest.approx(want[1], abs=1e-9)


def test_loss_thresholds_places_midpoints_and_margins():
    b = loss_thresholds([0.0, 1.0, 2.0, 3.0, 4.0], [0, 0, 2, 2, 1])
    assert b.tolist() == [1.5, 1.5]                      # grade 1 unused: both at the gap
    b = loss_thresholds([0.0, 1.0, 2.0, 3.0], [1, 1, 2, 0], loss="mae", margin=0.5)
    assert b[0] == -0.5                                   # everyone above the first threshold
    # the object of weight 0 does not count, not even for a midpoint: 1 + margin
    assert loss_thresholds([0.0, 1.0], [1, 0], sample_weight=[0.0, 1.0]).tolist() == [2.0]
    with pytest.raises(ValueError, match="loss"):
        loss_thresholds([0.0, 1.0], [0, 1], loss="hinge")
    with pytest.raises(ValueError, match="every weight is 0"):
        loss_thresholds([0.0, 1.0], [0, 1], sample_weight=[0.0, 0.0])


# ------------------------------------------------------------- estimator
def test_overlapping_grades_paper_collapses_and_warns_default_does_not():
    """Issue 29: the paper's (S) has w = 0 on overlapping grades and says so;
    the default SVOR ranks and stays silent (warnings are errors)."""
    X, y = make_overlapping(1000, signal=0.6, seed=0)
    mode_mae = np.abs(y - np.bincount(y).argmax()).mean()
    with pytest.warns(TrivialModelWarning, match="formulation='svor'"):
        paper = OrdinalMarginRanker(formulation="paper").fit(X, y)
    assert np.abs(paper.coef_).max() <= 1e-8 and np.unique(paper.predict(X)).size == 1
    assert -paper.score(X, y) == pytest.approx(mode_mae)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = OrdinalMarginRanker().fit(X, y)
    assert model.result_.status == "converged"
    assert np.unique(model.predict(X)).size >= 3
    assert -model.score(X, y) < mode_mae - 0.03


def test_trivial_svor_warns_with_its_remedy():
    X = np.ones((20, 2))                                   # no information at all
    y = np.arange(20) % 3
    with pytest.warns(TrivialModelWarning, match="standardise X"):
        OrdinalMarginRanker().fit(X, y)


def test_threshold_rules():
    X, y = make_overlapping(400, 5, signal=1.0, seed=3)
    obj = OrdinalMarginRanker(threshold_rule="objective").fit(X, y)
    np.testing.assert_array_equal(obj.thresholds_, obj.result_.thresholds)
    f = obj.decision_function(X)
    for rule, metric in (("mae", lambda p: np.abs(p - y).mean()),
                         ("mse", lambda p: ((p - y) ** 2).mean()),
                         ("zero_one", lambda p: (p != y).mean())):
        m = OrdinalMarginRanker(threshold_rule=rule).fit(X, y)
        np.testing.assert_allclose(m.coef_, obj.coef_)       # the same scores ...
        # ... and thresholds no worse on the loss they minimise than the objective's
        assert metric(m.predict(X)) <= metric(predict_labels(f, obj.thresholds_)) + 1e-12
    # labels as numbers: the loss is in their units (here 1, 2, 4, 8, ...)
    levels = 2.0 ** np.arange(y.max() + 1)
    m = OrdinalMarginRanker().fit(X, levels[y])
    b = loss_thresholds(m.result_.scores, y, levels=levels, reference=m.result_.thresholds)
    np.testing.assert_array_equal(m.thresholds_, b)


def test_kernel_svor_estimator_and_paper_kernel_unchanged():
    X, y = make_instance(120, 1, separable=False, seed=8)
    m = OrdinalMarginRanker(kernel="rbf", gamma=2.0).fit(X, y)
    assert m.result_.svor_solver == "dual_cd" and m.result_.status == "converged"
    K = kernel_matrix(X, m.support_vectors_, kernel="rbf", gamma=2.0)
    np.testing.assert_allclose(m.decision_function(X), K @ m.dual_coef_, rtol=1e-12)
    np.testing.assert_allclose(m.decision_function(X), m.result_.scores, atol=1e-8)
    assert -m.score(X, y) < 0.2


@pytest.mark.parametrize("params, match", [
    ({"margin": "hard"}, "margin='hard'.*formulation='paper'"),
    ({"nonneg": True}, "nonneg=True"),
    ({"method": "full"}, "method='full'"),
    ({"representation": "dual", "add_per_iter": 2}, "representation='dual', add_per_iter=2"),
    ({"subproblem_solver": "clarabel"}, "subproblem_solver"),
    ({"formulation": "paper", "loss": "hinge"}, "loss: 'hinge' applies to formulation='svor'"),
])
def test_parameters_of_the_other_formulation_raise(params, match):
    X, y = make_instance(30, 1, separable=False, seed=9)
    with pytest.raises(ValueError, match=match):
        OrdinalMarginRanker(**params).fit(X, y)


def test_estimator_callback_limit_and_numerical_failure():
    X, y = make_overlapping(300, 4, signal=1.0, seed=10)
    calls = []
    m = OrdinalMarginRanker().fit(X, y, callback=calls.append)
    assert [c.iteration for c in calls] == m.result_.trace.iteration.tolist()
    assert m.n_iter_ == m.result_.nit >= 1
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        OrdinalMarginRanker(loss="hinge", max_iter=1).fit(X, y)
    Xb = X.copy()
    Xb[:, 0] *= 1e200                        # products overflow float64: the input gate
    with pytest.raises(ValueError, match="too large.*scale X"):
        OrdinalMarginRanker().fit(Xb, y)
    Xb = X.copy()
    Xb[:, 0] *= 1e100                        # passes the gate; the dual overflows mid-run
    with pytest.raises(NumericalError, match="not finite"):   # (TRON looped forever)
        OrdinalMarginRanker().fit(Xb, y)


# --------------------------------------------------------------------------
# the warm path (issue 45): what is reused across fits on the same data


def test_explicit_hessian_is_the_matrix_free_product():
    """The (d + l) x (d + l) Hessian of a warm TRON solve times v equals the
    matrix-free product of the cold solves, at a point with active and
    inactive pairs and with weights."""
    from polyrank.ordinal.svor import _SquaredHinge

    X, labels = _problem(3, n=80, d=5)
    l = int(labels.max())
    cw = np.linspace(0.1, 2.0, labels.size)
    free = _SquaredHinge(X, labels, cw, l)
    full = _SquaredHinge(X, labels, cw, l, explicit_hessian=True)
    rng = np.random.default_rng(0)
    theta = 2.0 * rng.standard_normal(X.shape[1] + l)
    for v in rng.standard_normal((4, theta.size)):
        assert np.allclose(full.Hv(theta, v), free.Hv(theta, v), rtol=1e-12, atol=1e-12)
    assert 0 < full.mask.sum() < full.mask.size


def test_a_warm_path_reaches_the_cold_objectives():
    """Along a grid (the predictor, the explicit Hessian) every warm fit
    reaches the cold fit's objective to TRON's gap."""
    from polyrank.ordinal import ordinal_path

    X, labels = _problem(5, n=200, d=6)
    cs = np.logspace(-2, 1, 8)
    warm = ordinal_path(X, labels, cs=cs)
    cold = ordinal_path(X, labels, cs=cs, warm=False)
    assert warm.warm_start[1:] == ["used"] * 7
    assert np.allclose(warm.objectives, cold.objectives, rtol=1e-8)


def _kept(est):
    from polyrank._warm import _PREPARED

    return _PREPARED[est][1]


def test_warm_fits_on_the_same_arrays_reuse_the_checked_data():
    """A changed X (any entry, not only a sampled row), y, weights or
    ``classes`` rebuilds the checked data; the same arrays reuse it."""
    X, labels = _problem(7, n=90, d=4)
    est = OrdinalMarginRanker(warm_start=True).fit(X, labels)
    first = _kept(est)
    est.set_params(c=0.5).fit(X.copy(), labels.copy())
    assert _kept(est) is first
    X2 = X.copy()
    X2[45, 2] += 1e-9                  # a row fingerprint() does not sample
    est.fit(X2, labels)
    assert _kept(est) is not first and _kept(est).X[45, 2] == X2[45, 2]
    for y, sw, classes in ((labels[::-1].copy(), None, None),
                           (labels, np.full(labels.size, 2.0), None),
                           (labels, None, [3, 2, 1, 0])):
        kept = _kept(est)
        est.set_params(classes=classes).fit(X2, y, sample_weight=sw)
        assert _kept(est) is not kept
    cold = OrdinalMarginRanker().fit(X, labels)
    assert np.array_equal(cold.predict(X), cold.predict(X))


def test_kernel_svor_keeps_its_gram_matrix_across_warm_fits():
    X, labels = _problem(8, n=70, d=3)
    est = OrdinalMarginRanker(kernel="rbf", loss="hinge", warm_start=True).fit(X, labels)
    cache = _kept(est).cache
    (K,) = [v[0] for v in cache.values()]
    est.set_params(c=0.5).fit(X, labels)
    assert [v[0] for v in _kept(est).cache.values()][0] is K
    est.set_params(gamma=0.1).fit(X, labels)       # another kernel: rebuilt
    assert [v[0] for v in _kept(est).cache.values()][0] is not K
