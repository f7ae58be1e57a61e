"""The L2-loss RankSVM objective (Eq. 1.3) through l^+, l^-, gamma^+,
gamma^- (Eq. 2.9-2.13) against brute-force pair enumeration, for every
counting method (selection tree Sec. 2.4, y-keyed tree Sec. 2.3, direct
counting Sec. 2.2, PRSVM+ Sec. 3.1); and Tree-TRON on MQ2008 against the
liblinear-ranksvm 2.11 optimum."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import GAP_ROUNDING

from polyrank.datasets import load_mq2008
from polyrank.ranksvm import METHODS, RankSVMObjective, group_queries, ranksvm_tron
from polyrank.ranksvm.reference import (
    brute_force_counts,
    brute_force_fun,
    brute_force_grad,
    brute_force_hv,
    preference_pairs,
)

RTOL = 1e-10          # one central tolerance for float sums in different orders


def _problem(seed, n_queries=6, n=5, levels=4, integer_features=False):
    """Several queries: ties in y, many levels, a one-document query, a
    query with a single relevance level, non-contiguous qids."""
    rng = np.random.default_rng(seed)
    sizes = [1, 7, 12, 5, 30, 9][:n_queries]
    qid = np.concatenate([np.full(s, 100 + 3 * q) for q, s in enumerate(sizes)])
    l = qid.size
    y = rng.integers(0, levels, size=l).astype(float)
    y[qid == 100 + 3 * 3] = 2.0                       # one relevance level only
    y[qid == 100 + 3 * 4] = rng.integers(0, 25, size=30)   # many levels, k_q ~ l_q
    if integer_features:                              # exact margins 1 - z_i + z_j = 0
        X = rng.integers(-2, 3, size=(l, n)).astype(float)
    else:
        X = rng.normal(size=(l, n))
    perm = rng.permutation(l)                         # queries not contiguous
    return X[perm], y[perm], qid[perm]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("integer_features", [False, True])
def test_fun_grad_hv_equal_brute_force(seed, integer_features):
    X, y, qid = _problem(seed, integer_features=integer_features)
    rng = np.random.default_rng(seed + 10)
    C = 0.7
    for w in (np.zeros(X.shape[1]), rng.normal(size=X.shape[1]),
              0.3 * rng.integers(-2, 3, size=X.shape[1]).astype(float)):
        v = rng.normal(size=X.shape[1])
        ref_f = brute_force_fun(X, y, qid, w, C)
        ref_g = brute_force_grad(X, y, qid, w, C)
        ref_hv = brute_force_hv(X, y, qid, w, v, C)
        for method in METHODS:
            obj = RankSVMObjective(X, y, qid, C=C, method=method)
            assert obj.n_pairs == len(preference_pairs(y, qid))
            assert obj.fun(w) == pytest.approx(ref_f, rel=RTOL)
            np.testing.assert_allclose(obj.grad(w), ref_g, rtol=RTOL, atol=RTOL * abs(ref_f))
            np.testing.assert_allclose(obj.Hv(w, v), ref_hv, rtol=RTOL,
                                       atol=RTOL * np.abs(ref_hv).max())


@pytest.mark.parametrize("seed", [0, 3])
def test_counting_methods_agree_exactly_with_enumeration(seed):
    X, y, qid = _problem(seed, integer_features=True)
    rng = np.random.default_rng(seed)
    w = 0.5 * rng.integers(-2, 3, size=X.shape[1]).astype(float)
    v = rng.normal(size=X.shape[1])
    ref = brute_force_counts(X, y, qid, w, v)
    assert ref["lplus"].sum() > 0
    for method in METHODS:
        got = RankSVMObjective(X, y, qid, method=method).counts(w, v)
        # the integers agree exactly, the float sums to rounding
        np.testing.assert_array_equal(got["lplus"], ref["lplus"])
        np.testing.assert_array_equal(got["lminus"], ref["lminus"])
        np.testing.assert_allclose(got["gplus"], ref["gplus"], rtol=RTOL, atol=1e-12)
        np.testing.assert_allclose(got["gminus"], ref["gminus"], rtol=RTOL, atol=1e-12)


def test_hv_is_a_finite_difference_of_grad():
    X, y, qid = _problem(5)
    obj = RankSVMObjective(X, y, qid, C=2.0)
    rng = np.random.default_rng(5)
    w, v = rng.normal(size=5), rng.normal(size=5)
    h = 1e-7            # small enough that SV(w) does not change
    fd = (obj.grad(w + h * v) - obj.grad(w - h * v)) / (2 * h)
    np.testing.assert_allclose(obj.Hv(w, v), fd, rtol=1e-5, atol=1e-5)
    # and grad is a finite difference of fun
    fd = (obj.fun(w + h * v) - obj.fun(w - h * v)) / (2 * h)
    assert obj.grad(w) @ v == pytest.approx(fd, rel=1e-5)


def test_workspace_is_tied_to_w():
    X, y, qid = _problem(6)
    obj = RankSVMObjective(X, y, qid, C=1.0)
    w1, w2 = np.ones(5), -np.ones(5)
    f1 = obj.fun(w1)
    assert obj.fun(w2) == pytest.approx(brute_force_fun(X, y, qid, w2, 1.0), rel=RTOL)
    np.testing.assert_allclose(obj.Hv(w1, w2), brute_force_hv(X, y, qid, w1, w2, 1.0),
                               rtol=RTOL, atol=1e-9)
    assert obj.fun(w1) == f1 and obj.workspace(w1).w is not w1


def test_sparse_csr_equals_dense():
    X, y, qid = _problem(7)
    X[np.abs(X) < 0.8] = 0.0
    w = np.random.default_rng(7).normal(size=5)
    dense = RankSVMObjective(X, y, qid, C=1.0)
    csr = RankSVMObjective(sp.csr_matrix(X), y, qid, C=1.0)
    assert csr.fun(w) == pytest.approx(dense.fun(w), rel=1e-13)
    np.testing.assert_allclose(csr.Hv(w, w), dense.Hv(w, w), rtol=1e-12)


def test_partial_pairs_equal_adjacent_enumeration():
    X, y, qid = _problem(8)
    rng = np.random.default_rng(8)
    w, v = rng.normal(size=5), rng.normal(size=5)
    obj = RankSVMObjective(X, y, qid, C=1.5, partial_pairs=True)
    assert obj.n_pairs == len(preference_pairs(y, qid, adjacent=True)) < len(
        preference_pairs(y, qid))
    assert obj.fun(w) == pytest.approx(brute_force_fun(X, y, qid, w, 1.5, adjacent=True), rel=RTOL)
    np.testing.assert_allclose(obj.grad(w), brute_force_grad(X, y, qid, w, 1.5, adjacent=True),
                               rtol=RTOL, atol=1e-9)
    np.testing.assert_allclose(obj.Hv(w, v), brute_force_hv(X, y, qid, w, v, 1.5, adjacent=True),
                               rtol=RTOL, atol=1e-9)


def test_group_queries_levels_and_pair_count():
    y = np.array([3.0, 1.0, 1.0, 0.5, 7.0, 7.0])
    qid = np.array([2, 1, 2, 2, 1, 9])
    g = group_queries(y, qid)
    assert g.qids.tolist() == [1, 2, 9] and g.kq.tolist() == [2, 3, 1]
    assert g.level[[0, 2, 3]].tolist() == [2, 1, 0]
    assert g.n_pairs == 1 + 3


def test_tron_optimum_has_zero_duality_gap_and_matches_lbfgsb():
    from scipy.optimize import minimize

    X, y, qid = _problem(9)
    res = ranksvm_tron(X, y, qid, C=0.5, tol=1e-10)
    obj = RankSVMObjective(X, y, qid, C=0.5)
    ref = minimize(obj.fun, np.zeros(5), jac=obj.grad, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-16, "maxiter": 5000})
    assert res.primal_objective == pytest.approx(ref.fun, rel=1e-9)
    assert res.primal_objective <= ref.fun * (1 + 1e-12)
    # weak duality along the path, a vanishing gap at the end
    t = res.trace
    assert np.all(t.gap >= -GAP_ROUNDING * t.primal)
    assert res.gap <= 1e-8 * res.primal_objective
    assert t.gap[-1] < t.gap[0]


@pytest.fixture(scope="module")
def mq2008():
    return load_mq2008()


def test_mq2008_optimum_matches_liblinear_ranksvm(mq2008):
    """liblinear-ranksvm 2.11 (-s 8, C = 1) on MQ2008 Fold1 train:
    f* = 29566.5228 at tol 1e-8; f = 29568.97 after 5 TRON iterations at the
    default tol 1e-3."""
    d = mq2008
    res = ranksvm_tron(d.X_train, d.y_train, d.qid_train, C=1.0, tol=1e-8)
    assert res.n_pairs == 52325
    assert abs(res.primal_objective - 29566.5228) <= 1e-6 * 29566.5228
    assert res.gap <= 1e-6 * res.primal_objective
    res3 = ranksvm_tron(d.X_train, d.y_train, d.qid_train, C=1.0, tol=1e-3)
    # X'r is summed instance by instance as in LIBLINEAR: after 24 CG steps in
    # step 4 another summation order moves the iterate at the 1e-6 level
    # (OpenBLAS's order gives 29567.83 after 5 steps; the CG inner products
    # use BLAS, whose kernels differ per CPU: 29569.18 on an AMD EPYC)
    assert res3.nit == 5
    assert res3.primal_objective == pytest.approx(29568.97, rel=1e-5)
