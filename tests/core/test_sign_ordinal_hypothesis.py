"""Property-based tests (issue 14, item 5) of the two solvers that had none:
SC-SDCA (``sign-constrained-pegasos-sdca.txt``, Alg. 2, with and without
shrinking) against the Clarabel QP of Eq. 5, and row (and column) generation
for ordinal ranking (``row-column-generation-ordinal.txt``, Sec. 4-8) against
the whole problem solved at once, on random small problems: random sizes,
signs, scales, penalties, labels and weights."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polyrank.ordinal import solve_ordinal
from polyrank.sign import sc_sdca
from polyrank.sign.reference import reference_qp


@st.composite
def sign_problems(draw):
    n = draw(st.integers(3, 25))
    d = draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.normal(size=(n, d)) * draw(st.sampled_from([0.3, 1.0, 3.0]))
    w_true = rng.normal(size=d)
    loss = draw(st.sampled_from(["hinge", "square", "absolute"]))
    if loss == "hinge":
        y = np.where(X @ w_true + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
        if np.unique(y).size < 2:
            y[0] = -y[0]
    else:
        y = X @ w_true + 0.3 * rng.normal(size=n)
    signs = rng.integers(-1, 2, size=d).astype(float)
    lam = draw(st.sampled_from([1e-2, 0.1, 1.0]))
    return X, y, loss, lam, signs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sign_problems(), st.booleans())
def test_sc_sdca_matches_the_clarabel_qp(p, shrinking):
    X, y, loss, lam, signs = p
    res = sc_sdca(X, y, loss, lam, signs, tol=1e-9, max_iter=200000, shrinking=shrinking,
                  random_state=0)
    ref = reference_qp(X, y, loss, lam, signs)
    scale = max(abs(ref.primal_objective), 1e-3)
    assert res.status == "converged", res.message
    # tol is relative to max(1, P(0)), P(0) the primal at w = 0 (1 for the hinge)
    P0 = {"hinge": 1.0, "square": 0.5 * np.mean(y ** 2), "absolute": np.mean(np.abs(y))}[loss]
    assert -1e-12 * scale <= res.gap <= 1e-9 * max(1.0, P0)     # the certificate (rounding)
    assert res.primal_objective == pytest.approx(ref.primal_objective, abs=1e-6 * scale)
    assert np.all(signs * res.x >= 0)                           # feasible, exactly


@st.composite
def ordinal_problems(draw):
    n_labels = draw(st.integers(2, 4))
    n = draw(st.integers(3 * n_labels, 30))
    m = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.normal(size=(n, m))
    s = X @ rng.normal(size=m) + draw(st.sampled_from([0.0, 0.5, 2.0])) * rng.normal(size=n)
    y = np.argsort(np.argsort(s)) * n_labels // n            # every label used, in order
    c = draw(st.sampled_from([0.1, 1.0, 10.0]))
    w = None
    if draw(st.booleans()):
        w = rng.integers(0, 3, size=n).astype(float)
        w[rng.integers(n)] = 1.0
    return X, y, c, w


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ordinal_problems(), st.sampled_from(["primal", "dual"]),
       st.sampled_from([1, 2, 5]))
def test_generation_matches_the_whole_problem(p, representation, add_per_iter):
    X, y, c, w = p
    kw = dict(margin="soft", c=c, representation=representation, sample_weight=w)
    g = solve_ordinal(X, y, add_per_iter=add_per_iter, **kw)
    f = solve_ordinal(X, y, method="full", **kw)
    assert g.status == f.status == "converged"
    assert g.objective == pytest.approx(f.objective, rel=1e-6, abs=1e-8)
    # Lemma 7.1/7.2: at the end no object outside W violates its constraints
    out = np.setdiff1d(np.arange(y.size), g.working_set)
    assert np.all(g.slack_lo[out] <= 1e-7) and np.all(g.slack_up[out] <= 1e-7)
    assert g.gap >= -1e-7 * max(1.0, f.objective)
