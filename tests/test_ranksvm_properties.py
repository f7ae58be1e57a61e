"""Property-based tests (hypothesis) of the RankSVM solvers: random small
ranking problems -- several queries, ties in y, document weights (some 0) --
solved by Tree-TRON (L2, Eq. 1.3) and the cutting-plane method (L1, Eq. 1.2)
and compared with Clarabel on the pair-enumerated QP; weighted objectives
against duplicated documents.  Source: large-scale-linear-ranksvm.txt."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polyrank.qp import solve_qp
from polyrank.ranksvm import METHODS, RankSVMObjective, ranksvm_cutting_plane, ranksvm_tron
from polyrank.ranksvm.reference import brute_force_fun, brute_force_l1, pair_weights, \
    preference_pairs

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def problems(draw, integer_weights=False):
    """(X, y, qid, sample_weight, C): 1-4 queries of 1-8 documents, labels
    0-3 (ties), 1-4 features, weights in [0, 3] (some zero) or None."""
    sizes = draw(st.lists(st.integers(1, 8), min_size=1, max_size=4))
    l = sum(sizes)
    n = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(l, n)) * draw(st.sampled_from([0.1, 1.0, 10.0]))
    y = draw(st.lists(st.integers(0, 3), min_size=l, max_size=l))
    qid = np.repeat(np.arange(len(sizes)), sizes)[rng.permutation(l)]
    if integer_weights:
        sw = np.array(draw(st.lists(st.integers(0, 3), min_size=l, max_size=l)), dtype=float)
    else:
        sw = draw(st.one_of(st.none(), st.lists(
            st.sampled_from([0.0, 0.25, 1.0, 1.5, 3.0]), min_size=l, max_size=l).map(np.array)))
    C = draw(st.sampled_from([1e-3, 0.1, 1.0, 10.0, 1e3]))
    return X, np.array(y, dtype=float), qid, sw, C


def _pairs(y, qid, sw):
    if sw is None:
        return preference_pairs(y, qid)
    keep = np.flatnonzero(sw > 0)
    return keep[preference_pairs(y[keep], qid[keep])]


def _reference(X, y, qid, sw, C, loss):
    """min 1/2 w'w + C sum_P c_ij xi_ij^k (k = 2 or 1), xi_ij >= 1 - w'(x_i - x_j)
    (and xi >= 0 for L1), by Clarabel over (w, xi)."""
    pairs = _pairs(y, qid, sw)
    c = pair_weights(pairs, sw)
    D = X[pairs[:, 0]] - X[pairs[:, 1]]
    p, n = D.shape
    G = sp.hstack([-sp.csc_matrix(D), -sp.identity(p)])
    h = -np.ones(p)
    if loss == "l2":
        P = sp.block_diag([sp.identity(n), sp.diags(2.0 * C * c)]).tocsc()
        q = np.zeros(n + p)
    else:
        P = sp.block_diag([sp.identity(n), sp.csc_matrix((p, p))]).tocsc()
        q = np.concatenate([np.zeros(n), C * c])
        G = sp.vstack([G, sp.hstack([sp.csc_matrix((p, n)), -sp.identity(p)])])
        h = np.concatenate([h, np.zeros(p)])
    res = solve_qp(P, q, G=G.tocsc(), h=h)
    return res.x[:n], res.primal_objective


@SETTINGS
@given(problems(), st.sampled_from(sorted(METHODS)))
def test_tron_reaches_the_clarabel_optimum(problem, method):
    X, y, qid, sw, C = problem
    if len(_pairs(y, qid, sw)) == 0:
        with pytest.raises(ValueError, match="no preference pairs|all weights are zero"):
            ranksvm_tron(X, y, qid, C, sample_weight=sw, method=method)
        return
    _, f_ref = _reference(X, y, qid, sw, C, "l2")
    res = ranksvm_tron(X, y, qid, C, method=method, sample_weight=sw, eps=1e-9)
    f = brute_force_fun(X, y, qid, res.x, C, sample_weight=sw)
    assert res.primal_objective == pytest.approx(f, rel=1e-10)
    assert f == pytest.approx(f_ref, rel=1e-6, abs=1e-9)
    # Clarabel's tolerances are 1e-10 absolute: it may sit a hair above the min
    assert f >= f_ref * (1 - 1e-8) - 1e-9
    assert 0 <= res.gap and res.dual_objective <= f_ref * (1 + 1e-8) + 1e-9
    assert np.all(res.trace.gap >= 0)
    assert res.status in ("converged", "no progress at rounding level")


@SETTINGS
@given(problems())
def test_cutting_plane_reaches_the_clarabel_optimum_with_a_valid_bound(problem):
    X, y, qid, sw, C = problem
    if len(_pairs(y, qid, sw)) == 0:
        return
    _, f_ref = _reference(X, y, qid, sw, C, "l1")
    res = ranksvm_cutting_plane(X, y, qid, C, sample_weight=sw, eps=1e-7, max_iter=300)
    assert res.status == "converged"
    assert np.all(res.trace.gap >= 0)
    assert np.all(np.diff(res.trace.dual) >= -1e-12 * np.abs(res.trace.dual[1:]))
    assert res.dual_objective <= f_ref * (1 + 1e-8) + 1e-9    # certified lower bound
    f = brute_force_l1(X, y, qid, res.x, C, sample_weight=sw)
    assert res.primal_objective == pytest.approx(f, rel=1e-10)
    assert f == pytest.approx(f_ref, rel=1e-6, abs=1e-9)


@SETTINGS
@given(problems(integer_weights=True), st.sampled_from(sorted(METHODS)), st.booleans())
def test_integer_weights_are_duplicated_documents(problem, method, partial_pairs):
    X, y, qid, sw, C = problem
    rep = np.repeat(np.arange(y.size), sw.astype(int))
    if rep.size == 0:
        return
    rng = np.random.default_rng(0)
    weighted = RankSVMObjective(X, y, qid, C, method=method, partial_pairs=partial_pairs,
                                sample_weight=sw)
    repeated = RankSVMObjective(X[rep], y[rep], qid[rep], C, method=method,
                                partial_pairs=partial_pairs)
    assert weighted.n_pairs == len(_pairs(y, qid, sw)) or partial_pairs
    for _ in range(3):
        w, v = rng.normal(size=X.shape[1]), rng.normal(size=X.shape[1])
        assert weighted.fun(w) == pytest.approx(repeated.fun(w), rel=1e-12)
        scale = 1.0 + abs(weighted.fun(w))
        np.testing.assert_allclose(weighted.grad(w), repeated.grad(w), rtol=1e-11,
                                   atol=1e-11 * scale)
        np.testing.assert_allclose(weighted.Hv(w, v), repeated.Hv(w, v), rtol=1e-11,
                                   atol=1e-11 * scale * (1 + np.abs(v).max()))
