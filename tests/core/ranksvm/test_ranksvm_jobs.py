"""RankSVM with ``n_jobs`` (issue 30, item 4): numba threads over fixed
blocks of whole queries give bitwise the same iterates for
every int n_jobs, agree with the one-thread default up to rounding and with
the pair-enumerating reference, restore numba's thread count, and reject
bad values naming n_jobs."""

from __future__ import annotations

import numba
import numpy as np
import pytest
import scipy.sparse as sp

from polyrank import RankSVM
from polyrank.dask import make_ranking_partition
from polyrank.ranksvm import RankSVMObjective, ranksvm_tron
from polyrank.ranksvm.objective import block_docs, query_blocks
from polyrank.ranksvm.reference import brute_force_fun
from polyrank.ranksvm.solvers import ranksvm_dcd

JOBS = (1, 2, -1)


def _problem(n_queries=600, n_features=8, shuffle=True, seed=3):
    """Generated LETOR-like data, 20 documents per query (12,000 rows: three
    query blocks), rows of a query scattered when shuffled."""
    X, y, qid = make_ranking_partition(seed, 0, 0, n_queries, 20, n_features)
    if shuffle:
        p = np.random.default_rng(seed).permutation(y.size)
        X, y, qid = X[p], y[p], qid[p]
    return np.ascontiguousarray(X), y, qid


@pytest.fixture(scope="module")
def problem():
    return _problem()


def test_the_problem_has_several_blocks(problem):
    X, y, qid = problem
    obj = RankSVMObjective(X, y, qid, n_jobs=2)
    assert obj._blocks.size - 1 >= 3


@pytest.mark.parametrize("method", ["selection_tree", "y_tree", "direct", "prsvm_plus"])
def test_every_int_n_jobs_gives_bitwise_the_same_fit(problem, method):
    X, y, qid = problem
    runs = [ranksvm_tron(X, y, qid, 1.0, method=method, tol=1e-6, n_jobs=j) for j in JOBS]
    for r in runs[1:]:
        assert np.array_equal(r.x, runs[0].x)
        assert r.primal_objective == runs[0].primal_objective
        assert (r.nit, r.n_hv) == (runs[0].nit, runs[0].n_hv)
        assert np.array_equal(r.trace.primal, runs[0].trace.primal)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_bitwise_on_csr_and_weights_and_close_to_one_thread(problem, sparse, weighted):
    X, y, qid = problem
    data = sp.csr_matrix(np.where(X < 0.4, 0.0, X)) if sparse else X
    sw = np.random.default_rng(0).uniform(0.0, 2.0, y.size) if weighted else None
    runs = [ranksvm_tron(data, y, qid, 1.0, tol=1e-6, sample_weight=sw, n_jobs=j) for j in JOBS]
    for r in runs[1:]:
        assert np.array_equal(r.x, runs[0].x) and r.n_hv == runs[0].n_hv
    one = ranksvm_tron(data, y, qid, 1.0, tol=1e-6, sample_weight=sw)
    # n_jobs=None sums X'r row by row: the same optimum up to rounding
    np.testing.assert_allclose(runs[0].x, one.x, rtol=1e-7, atol=1e-9)
    assert runs[0].primal_objective == pytest.approx(one.primal_objective, rel=1e-12)


def test_objective_pieces_bitwise_across_n_jobs_and_against_the_reference():
    X, y, qid = _problem(n_queries=300)
    rng = np.random.default_rng(1)
    w, v = rng.normal(size=X.shape[1]), rng.normal(size=X.shape[1])
    objs = [RankSVMObjective(X, y, qid, C=0.5, n_jobs=j) for j in JOBS]
    ref = RankSVMObjective(X, y, qid, C=0.5)
    f, g, hv = objs[0].fun(w), objs[0].grad(w), objs[0].Hv(w, v)
    for o in objs[1:]:
        assert o.fun(w) == f
        assert np.array_equal(o.grad(w), g) and np.array_equal(o.Hv(w, v), hv)
    # the loss sums and X'r grouped by blocks: the same values up to rounding
    assert f == pytest.approx(ref.fun(w), rel=1e-13)
    np.testing.assert_allclose(g, ref.grad(w), rtol=1e-11)
    np.testing.assert_allclose(hv, ref.Hv(w, v), rtol=1e-11)
    assert f == pytest.approx(brute_force_fun(X, y, qid, w, 0.5), rel=1e-10)


@pytest.mark.parametrize("method", ["selection_tree", "prsvm_plus"])
def test_the_parallel_pass_counts_as_one_thread(method):
    """z, the sorted order, l^+, l^-, gamma^+, gamma^- and r of the blocked
    pass are those of the one-thread kernels, bit for bit (a query is
    sorted and counted by one thread, by the same code)."""
    X, y, qid = _problem(n_queries=300)
    w = np.random.default_rng(2).normal(size=X.shape[1])
    a = RankSVMObjective(X, y, qid, method=method, n_jobs=2).workspace(w)
    b = RankSVMObjective(X, y, qid, method=method).workspace(w)
    for key in ("z", "order", "lplus", "lminus", "gplus", "gminus", "r"):
        assert np.array_equal(getattr(a, key), getattr(b, key)), key
    assert a.p_w == b.p_w


def test_estimator_n_jobs_bitwise_and_the_thread_count_restored(problem):
    X, y, qid = problem
    before = numba.get_num_threads()
    m1 = RankSVM(n_jobs=1).fit(X, y, qid=qid)
    m2 = RankSVM(n_jobs=2).fit(X, y, qid=qid)
    assert numba.get_num_threads() == before
    assert np.array_equal(m1.coef_, m2.coef_)
    m0 = RankSVM().fit(X, y, qid=qid)
    assert m0.result_.primal_objective == pytest.approx(m2.result_.primal_objective, rel=1e-12)
    assert RankSVM().get_params()["n_jobs"] is None


def test_l1_solvers_take_n_jobs(problem):
    X, y, qid = problem
    a = RankSVM(loss="l1", n_jobs=2, random_state=0, tol=1e-2).fit(X[:2000], y[:2000],
                                                                    qid=qid[:2000])
    b = RankSVM(loss="l1", n_jobs=1, random_state=0, tol=1e-2).fit(X[:2000], y[:2000],
                                                                    qid=qid[:2000])
    assert np.array_equal(a.coef_, b.coef_)
    assert ranksvm_dcd(X[:500], y[:500], qid[:500], 1.0).status == "converged"


@pytest.mark.parametrize("bad, error", [(0, ValueError), (1.5, TypeError), ("2", TypeError),
                                        (True, TypeError)])
def test_bad_n_jobs(problem, bad, error):
    X, y, qid = problem
    with pytest.raises(error, match="n_jobs"):
        ranksvm_tron(X[:100], y[:100], qid[:100], n_jobs=bad)
    with pytest.raises(error, match="n_jobs"):
        RankSVMObjective(X[:100], y[:100], qid[:100], n_jobs=bad)
    with pytest.raises(error, match="n_jobs"):
        RankSVM(n_jobs=bad).fit(X[:100], y[:100], qid=qid[:100])


def test_blocks_cover_the_queries():
    start = np.array([0, 3, 5, 9, 10, 30, 31], dtype=np.int64)
    b = query_blocks(start, docs=4)
    assert b[0] == 0 and b[-1] == start.size - 1 and np.all(np.diff(b) > 0)
    assert b.tolist() == [0, 2, 3, 5, 6]            # a block ends at or after 4k docs
    assert block_docs(1_000_000, 46) == 4096
    # a very wide X: fewer, larger blocks, their partial n-vectors within 2^22 doubles
    l, n = 1_000_000, 3_000_000
    assert -(-l // block_docs(l, n)) * n <= 2 ** 22 + n


@pytest.mark.slow
def test_bench_ranksvm_liblinear_tiny(monkeypatch):
    """The bench on tiny sizes: both objectives and the ratios are printed,
    RankSVM(n_jobs=2) equals RankSVM(n_jobs=1) bit for bit; without the peer
    it says so."""
    from polyrank_paper.bench import ranksvm_liblinear as bench

    res = bench.bench_ranksvm_liblinear(sizes=(2000, 4000), repeats=1)
    s = res.summary
    assert s.bitwise_same and [r.documents for r in res.rows][0] == 2000
    if s.peer is not None:                        # liblinear-ranksvm built in /tmp/peers
        peer = {r.documents: r.f for r in res.rows if r.solver == bench._PEER}
        for r in res.rows:
            assert r.f == pytest.approx(peer[r.documents], rel=1e-6)
        assert set(s.ratios) == {"2000", "4000"} and s.target_met is None
    monkeypatch.setattr(bench, "find_peer", lambda: None)
    res = bench.bench_ranksvm_liblinear(sizes=(2000,), repeats=1)
    assert "NOT found" in res.notes[0] and res.summary.same_f is None
    with pytest.raises(ValueError, match="sizes"):
        bench.bench_ranksvm_liblinear(sizes=(2010,))
