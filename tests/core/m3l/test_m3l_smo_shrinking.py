"""Shrinking in the kernel M3L SMO (issue 30, item 3; LIBSVM's
``do_shrinking`` / ``reconstruct_gradient``): the same optimum as Clarabel
and as the plain Alg. 1, KKT conditions on every variable at the end (the
gradient of the result rebuilt from the Gram matrix), a non-diagonal R,
sample weights (box C_i, weight 0 included), warm starts, kernel caches of
2 rows to the whole matrix, and counts showing that something was shrunk.
No timings (``polyrank bench m3l-rows --smo`` measures them)."""

import numpy as np
import pytest

from polyrank.kernels import kernel_matrix
from polyrank.m3l import dual_gradient, dual_qp, m3l_smo, projected_gradient
from polyrank.result import STATUS_MAX_ITER

GAMMA = 0.5
R3 = np.array([[1.0, 0.4, 0.0], [0.4, 1.0, 0.3], [0.0, 0.3, 1.0]])


def _problem(seed=0, N=120, D=4, L=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    Y = np.where(X @ rng.normal(size=(D, L)) + 0.4 + 0.6 * rng.normal(size=(N, L)) > 0,
                 1.0, -1.0)
    return X, Y


def _weights(N, seed=1):
    w = np.random.default_rng(seed).uniform(0.2, 2.0, N)
    w[::17] = 0.0                                        # weight 0: the box is a point
    return w


def _smo(X, Y, R, C, **kw):
    kw = {"kernel": "rbf", "gamma": GAMMA, "tol": 1e-8, "method": "smo", "max_iter": 10_000,
          **kw}
    return m3l_smo(X, Y, R, C, **kw)


def _assert_kkt(res, X, Y, R, C, weights, tol):
    """The result's gradient is the exact one of its alpha (no stale entry
    of a shrunk example), alpha is in its box and every projected gradient
    of all N L variables is below tol."""
    K = kernel_matrix(X, kernel="rbf", gamma=GAMMA)
    alpha, G = res.dual["alpha"], res.dual["G"]
    Rm = np.eye(Y.shape[1]) if R is None else R
    np.testing.assert_allclose(G, dual_gradient(K, Y, Rm, alpha), atol=1e-9)
    Cv = C * (np.ones(len(X)) if weights is None else weights)
    assert alpha.min() >= 0.0 and np.all(alpha <= Cv[:, None])
    assert np.abs(projected_gradient(alpha, G, Cv)).max() < tol
    assert res.n_active == len(X)


@pytest.mark.parametrize("cache_mb", [1e-9, 0.03, 10.0])     # 2 rows, 31 rows, all 120
@pytest.mark.parametrize("R", [None, R3], ids=["R=I", "R"])
@pytest.mark.parametrize("weighted", [False, True], ids=["C", "C_i"])
def test_shrinking_reaches_the_clarabel_optimum(cache_mb, R, weighted):
    X, Y = _problem()
    w = _weights(len(X)) if weighted else None
    res = _smo(X, Y, R, 1.0, cache_mb=cache_mb, sample_weight=w)
    K = kernel_matrix(X, kernel="rbf", gamma=GAMMA)
    ref = dual_qp(K, Y, np.eye(3) if R is None else R, 1.0, sample_weight=w)
    assert res.status == "converged" and res.shrinking
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=1e-7)
    np.testing.assert_allclose(res.dual["alpha"], ref.x, atol=1e-4)
    assert 0.0 <= res.gap < 1e-5
    _assert_kkt(res, X, Y, R, 1.0, w, 1e-8)
    # it did shrink, and the solve ended on a rebuilt, unshrunk problem
    assert res.n_shrunk > 0 and res.n_unshrink >= 1
    assert res.trace.to_dict()["n_active"].min() < len(X)


@pytest.mark.parametrize("R", [None, R3], ids=["R=I", "R"])
def test_shrinking_and_the_plain_alg1_agree(R):
    X, Y = _problem(2, N=150)
    w = _weights(150, 3)
    on = _smo(X, Y, R, 2.0, cache_mb=0.05, sample_weight=w, tol=1e-9)
    off = _smo(X, Y, R, 2.0, cache_mb=0.05, sample_weight=w, tol=1e-9, shrinking=False)
    assert on.status == off.status == "converged"
    assert on.dual_objective == pytest.approx(off.dual_objective, rel=1e-10)
    assert on.primal_objective == pytest.approx(off.primal_objective, rel=1e-8)
    np.testing.assert_allclose(on.dual["alpha"], off.dual["alpha"], atol=1e-6)
    assert not off.shrinking and off.n_shrunk == 0 and off.n_unshrink == 0
    assert set(off.trace.to_dict()["n_active"]) == {150.0}
    assert on.n_shrunk > 0


def test_shrinking_false_is_the_plain_alg1_bit_for_bit_in_any_cache():
    # the shrinking machinery off: one call of the kernel and the other take
    # the same choices; a whole-Gram cache and the LRU cache agree to rounding
    X, Y = _problem(4, N=80)
    a = _smo(X, Y, R3, 1.0, cache_mb=1e-9, shrinking=False, tol=1e-6)
    b = _smo(X, Y, R3, 1.0, cache_mb=1e-9, shrinking=False, tol=1e-6)
    np.testing.assert_array_equal(a.dual["alpha"], b.dual["alpha"])
    assert a.cache_misses == b.cache_misses and a.nit == b.nit


@pytest.mark.parametrize("R", [None, R3], ids=["R=I", "R"])
def test_warm_start_with_shrinking(R):
    X, Y = _problem(5)
    w = _weights(len(X), 6)
    first = _smo(X, Y, R, 0.5, cache_mb=0.03, sample_weight=w)
    res = _smo(X, Y, R, 1.0, cache_mb=0.03, sample_weight=w, alpha0=first.dual["alpha"])
    K = kernel_matrix(X, kernel="rbf", gamma=GAMMA)
    ref = dual_qp(K, Y, np.eye(3) if R is None else R, 1.0, sample_weight=w)
    assert res.status == "converged"
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=1e-7)
    _assert_kkt(res, X, Y, R, 1.0, w, 1e-8)
    assert res.n_shrunk > 0
    # the trace's dual starts from the warm start's exact D2 and never falls
    dual = res.trace.to_dict()["dual"]
    assert dual[0] >= first.dual_objective - 1e-9
    assert np.all(np.diff(dual) >= -1e-9)


def test_stopping_early_while_shrunk_returns_exact_gradients():
    # max_iter ends the solve after the first iteration, when examples are
    # shrunk: the result's G is rebuilt for every example, so its
    # objectives and projected gradient are those of its alpha
    X, Y = _problem(7, N=200)
    res = _smo(X, Y, R3, 1.0, cache_mb=0.05, max_iter=1)
    assert res.status == STATUS_MAX_ITER
    assert res.trace.to_dict()["n_active"][-1] < 200                # it was shrunk
    K = kernel_matrix(X, kernel="rbf", gamma=GAMMA)
    np.testing.assert_allclose(res.dual["G"], dual_gradient(K, Y, R3, res.dual["alpha"]),
                               atol=1e-9)
    pg = np.abs(projected_gradient(res.dual["alpha"], res.dual["G"], 1.0)).max()
    assert res.max_projected_gradient == pytest.approx(pg)
    assert res.n_active == 200


def test_the_trace_while_shrunk_brackets_the_optimum():
    # shrunk iterations record D2 from the exact step gains (a lower bound
    # on the optimum, increasing) and P2 = D2 + the active variables' gap
    X, Y = _problem(8, N=200)
    res = _smo(X, Y, R3, 1.0, cache_mb=0.05, tol=1e-7)
    t = res.trace.to_dict()
    assert np.all(t["primal"] >= t["dual"])
    assert np.all(np.diff(t["dual"]) >= -1e-9)
    assert np.all(t["dual"] <= res.dual_objective + 1e-9)
    assert t["n_shrunk"][-1] == res.n_shrunk > 0


def test_shrinking_must_be_a_bool():
    X, Y = _problem(N=20)
    with pytest.raises(TypeError, match="shrinking"):
        _smo(X, Y, None, 1.0, shrinking="yes")


def test_estimator_passes_shrinking_to_the_smo():
    from polyrank import M3LClassifier

    X, Y = _problem(9, N=150)
    kw = dict(kernel="rbf", gamma=GAMMA, C=1.0, tol=1e-8, solver="smo", cache_mb=0.05)
    on = M3LClassifier(**kw).fit(X, Y)
    off = M3LClassifier(shrinking=False, **kw).fit(X, Y)
    assert on.result_.shrinking and on.result_.n_shrunk > 0
    assert not off.result_.shrinking and off.result_.n_shrunk == 0
    np.testing.assert_allclose(on.decision_function(X), off.decision_function(X), atol=1e-5)
