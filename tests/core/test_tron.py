"""polyrank.tron: LIBLINEAR's trust-region Newton-CG on objects with
fun/grad/Hv (large-scale-linear-ranksvm.txt, Sec. 4.1, Eq. 4.1-4.4)."""

import numpy as np
import pytest
from scipy.optimize import minimize

from polyrank.tron import TRON_CONSTANTS, trcg, tron

# the ``logistic`` fixture (conftest.Logistic) is a smooth strictly convex
# test function with an independent reference (scipy L-BFGS-B)


def test_constants_are_the_papers():
    assert TRON_CONSTANTS == {"eta0": 1e-4, "eta1": 0.25, "eta2": 0.75,
                              "sigma1": 0.25, "sigma2": 0.5, "sigma3": 4.0}


def test_tron_matches_lbfgsb_and_meets_eq_4_4(logistic):
    res = tron(logistic, tol=1e-8)
    ref = minimize(logistic.fun, np.zeros(8), jac=logistic.grad, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10000})
    assert res.success and res.status == "converged"
    assert res.primal_objective <= ref.fun + 1e-9 * abs(ref.fun)
    np.testing.assert_allclose(res.x, ref.x, rtol=1e-5, atol=1e-7)
    # Eq. 4.4: ||grad f(w)|| <= tol ||grad f(0)||
    assert np.linalg.norm(logistic.grad(res.x)) <= 1e-8 * res.grad_norm0
    assert res.n_hv == logistic.n_hv


def test_trace_columns_monotone_f_and_radius_rules(logistic):
    res = tron(logistic, tol=1e-8)
    t = res.trace
    assert {"grad_norm", "delta", "cg_iter", "accepted"} <= set(t.columns)
    acc = t.accepted == 1.0
    f = t.primal
    assert np.all(np.diff(f) <= 1e-12 * abs(f[0]))        # f never increases
    assert np.all(t.delta > 0) and np.all(t.cg_iter >= 1)
    assert int(acc.sum()) == res.nit
    assert t.cg_total[-1] == res.n_hv
    assert np.isnan(t.dual).all()                          # Logistic has no dual(w)


def test_trcg_exact_inside_and_on_boundary():
    rng = np.random.default_rng(1)
    B = rng.normal(size=(6, 6))
    H = B @ B.T + np.eye(6)
    g = rng.normal(size=6)
    s, r, it, boundary = trcg(lambda v: H @ v, g, 1e6, cg_tol=1e-12)
    np.testing.assert_allclose(s, np.linalg.solve(H, -g), rtol=1e-8)
    np.testing.assert_allclose(r, -g - H @ s, atol=1e-10)
    assert not boundary and it <= 7
    s, r, it, boundary = trcg(lambda v: H @ v, g, 0.01)
    assert boundary and np.linalg.norm(s) == pytest.approx(0.01, rel=1e-12)
    np.testing.assert_allclose(r, -g - H @ s, atol=1e-12)
    assert g @ s < 0                                         # a descent direction


def test_bad_arguments(logistic):
    with pytest.raises(TypeError, match="obj"):
        tron(object())
    with pytest.raises(ValueError, match="tol"):
        tron(logistic, tol=0.0)
    with pytest.raises(ValueError, match="w0"):
        tron(logistic, w0=np.zeros(3) * np.nan)
    with pytest.raises(ValueError, match="max_iter"):
        tron(logistic, max_iter=0)
