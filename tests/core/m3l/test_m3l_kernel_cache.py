"""Kernel M3L (issue 30, item 3): the bias feature in feature space (the
kernel offset bias^2) against Clarabel on D2 with K + bias^2 and against
one-vs-rest SVC; the kernel cache sized from the available memory, its LRU
eviction against the whole Gram matrix; progress lines and the notebook bar.
No timings asserted (``polyrank bench m3l-rows`` measures them)."""

import io

import numpy as np
import pytest
from sklearn.svm import SVC

import polyrank._progress as progress_mod
from polyrank import M3LClassifier
from polyrank.kernels import kernel_matrix
from polyrank.m3l import dual_qp, gram, m3l_smo, smo, solver
from polyrank.result import IterInfo
from polyrank_paper.bench.m3l_labels import bench_m3l_rows, yeast_rows

TOL = 1e-6


def _problem(seed=0, N=40, D=4, L=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    # unbalanced labels: the bias matters
    Y = np.where(X @ rng.normal(size=(D, L)) + 0.8 + 0.5 * rng.normal(size=(N, L)) > 0,
                 1.0, -1.0)
    return X, Y


@pytest.mark.parametrize("method", ["cd", "smo"])
@pytest.mark.parametrize("kernel, params", [("rbf", {"gamma": 0.5}),
                                            ("poly", {"gamma": 0.5, "degree": 2,
                                                      "coef0": 1.0})])
def test_offset_solves_d2_with_the_offset_kernel(method, kernel, params):
    X, Y = _problem()
    K = kernel_matrix(X, kernel=kernel, **params) + 2.25
    ref = dual_qp(K, Y, np.eye(3), 0.7)
    res = m3l_smo(X, Y, None, 0.7, kernel=kernel, tol=1e-8, method=method, offset=2.25,
                  gram_dtype="float64", random_state=0, **params)
    assert res.success
    assert res.dual_objective == pytest.approx(ref.dual_objective, rel=TOL)
    np.testing.assert_allclose(res.dual["alpha"], ref.x, atol=1e-4)


def test_estimator_bias_is_the_kernel_offset_and_gamma_counts_no_bias():
    X, Y = _problem(1)
    Xt = np.random.default_rng(5).normal(size=(7, 4))
    m = M3LClassifier(kernel="rbf", C=1.0, bias=1.5, tol=1e-8, random_state=0).fit(X, Y)
    assert m.X_fit_.shape == (40, 4)                 # no bias column appended
    K = kernel_matrix(Xt, X, kernel="rbf", gamma=1 / 4) + 1.5 ** 2
    np.testing.assert_allclose(m.decision_function(Xt), K @ m.dual_coef_, atol=1e-10)
    ref = dual_qp(kernel_matrix(X, kernel="rbf", gamma=1 / 4) + 2.25, Y, np.eye(3), 1.0)
    assert m.result_.dual_objective == pytest.approx(ref.dual_objective, rel=TOL)
    m0 = M3LClassifier(kernel="rbf", C=1.0, bias=0.0, tol=1e-8, random_state=0).fit(X, Y)
    ref0 = dual_qp(kernel_matrix(X, kernel="rbf", gamma=1 / 4), Y, np.eye(3), 1.0)
    assert m0.result_.dual_objective == pytest.approx(ref0.dual_objective, rel=TOL)


def test_a_large_bias_approaches_svc_with_its_free_intercept():
    # R = I: M3L(C) is L SVMs of penalty 2C (Sec. 3.1); a weakly regularised
    # bias weight (bias = 10: penalty (b / 10)^2 / 2) approaches SVC's free b,
    # no bias at all does not
    X, Y = _problem(2, N=60)
    svc = np.column_stack([SVC(kernel="rbf", gamma=0.5, C=1.0, tol=1e-8).fit(
        X, Y[:, lab]).decision_function(X) for lab in range(Y.shape[1])])
    dev = {}
    for bias in (0.0, 10.0):
        m = M3LClassifier(kernel="rbf", C=0.5, gamma=0.5, bias=bias, tol=1e-5,
                          gram_dtype="float64", max_iter=100_000, random_state=0).fit(X, Y)
        dev[bias] = np.abs(m.decision_function(X) - svc).max()
    assert dev[10.0] < 1e-3 and dev[0.0] > 0.05


def test_auto_cache_follows_the_available_memory(monkeypatch):
    mb = 1e6
    monkeypatch.setattr(gram, "memory_budget",
                        lambda fraction, floor, cap: min(cap, max(floor, fraction * 3000 * mb)))
    assert solver.cache_megabytes("auto") == pytest.approx(1500.0)
    monkeypatch.setattr(gram, "memory_budget",
                        lambda fraction, floor, cap: min(cap, max(floor, fraction * 100 * mb)))
    assert solver.cache_megabytes("auto") == pytest.approx(solver.AUTO_CACHE_MIN_MB)
    assert solver.cache_megabytes(12) == 12.0
    with pytest.raises(ValueError, match="cache_mb"):
        solver.cache_megabytes("big")
    with pytest.raises(ValueError, match="cache_mb"):
        M3LClassifier(kernel="rbf", cache_mb="big").fit(*_problem())


def test_memory_budget_bounds(monkeypatch):
    from polyrank import _memory
    monkeypatch.setattr(_memory, "available_bytes", lambda: 10_000)
    assert _memory.memory_budget(0.5, 100.0, 1e9) == 5000.0
    assert _memory.memory_budget(0.5, 8000.0, 1e9) == 8000.0
    assert _memory.memory_budget(0.5, 100.0, 1000.0) == 1000.0
    monkeypatch.setattr(_memory, "available_bytes", lambda: None)
    assert _memory.memory_budget(0.5, 100.0, 1000.0) == 100.0
    with pytest.raises(ValueError, match="fraction"):
        _memory.memory_budget(0.0, 1.0, 2.0)


def test_auto_cache_picks_the_whole_gram_matrix_when_memory_allows(monkeypatch):
    X, Y = _problem(3)
    monkeypatch.setattr(smo, "cache_megabytes", lambda c: 1e-3 if c == "auto" else c)
    assert m3l_smo(X, Y, None, 1.0, kernel="rbf", gamma=0.5).solver == "m3l-smo"
    monkeypatch.undo()
    assert m3l_smo(X, Y, None, 1.0, kernel="rbf", gamma=0.5).solver == "m3l-cd"


@pytest.mark.parametrize("offset", [0.0, 1.0])
def test_lru_cache_evicts_and_gives_the_dual_of_the_whole_gram_matrix(offset):
    X, Y = _problem(4, N=50)
    kw = dict(kernel="rbf", gamma=0.5, tol=1e-8, offset=offset, method="smo")
    whole = m3l_smo(X, Y, None, 1.0, cache_mb=10.0, **kw)
    tiny = m3l_smo(X, Y, None, 1.0, cache_mb=1e-9, **kw)           # 2 rows
    cd = m3l_smo(X, Y, None, 1.0, cache_mb=10.0, gram_dtype="float64", random_state=0,
                 **{**kw, "method": "cd"})
    assert tiny.cache_rows == 2 and whole.cache_rows == 50
    assert whole.cache_misses == 50 < tiny.cache_misses           # evictions
    # the whole matrix comes from BLAS blocks, evicted rows from kernel_row:
    # the same optimum, not bitwise the same kernel values
    np.testing.assert_allclose(tiny.dual["alpha"], whole.dual["alpha"], atol=1e-6)
    assert tiny.dual_objective == pytest.approx(whole.dual_objective, rel=1e-9)
    assert cd.dual_objective == pytest.approx(whole.dual_objective, rel=TOL)


def test_verbose_prints_the_phases_and_the_iterations(capsys):
    X, Y = _problem(5)
    M3LClassifier(kernel="rbf", C=1.0, verbose=1, random_state=0).fit(X, Y)
    out = capsys.readouterr().out
    assert "M3L: coordinate ascent on the whole Gram matrix" in out
    assert "M3L: Gram matrix 40 x 40 (float32" in out
    assert "M3LClassifier iter     1" in out
    M3LClassifier(kernel="rbf", C=1.0, verbose=1, cache_mb=1e-3).fit(X, Y)
    assert "M3L: SMO (Alg. 1) with an LRU cache of 3 kernel rows of 40" in \
        capsys.readouterr().out


def test_notebook_bar_follows_the_projected_gradient(monkeypatch):
    seen = []
    monkeypatch.setattr(progress_mod, "in_notebook", lambda: True)
    cb, bar = progress_mod.fit_bar(seen.append, "fit", 1e-3)
    assert bar is not None and cb is bar
    bar.bar.fp = io.StringIO()
    for it, pg in enumerate((2.0, 2e-1, 2e-2, 1e-4), start=1):
        cb(IterInfo(it, 0.1, 1.0, 0.5, 0.5, max_pg=pg))
        assert bar.bar.n == [0, 30, 60, 100][it - 1]     # decades of 2 / tol
    assert len(seen) == 4                                # the wrapped callback ran
    bar.close()
    with progress_mod.verbosity(1):                      # verbose: lines, no bar
        assert progress_mod.fit_bar(None, "fit", 1e-3) == (None, None)
    monkeypatch.setattr(progress_mod, "in_notebook", lambda: False)
    assert progress_mod.fit_bar(None, "fit", 1e-3) == (None, None)


def test_fit_in_a_notebook_closes_its_bar(monkeypatch):
    made = []

    class Bar(progress_mod._FitBar):
        def __init__(self, *args):
            super().__init__(*args)
            self.bar.fp = io.StringIO()
            self.closed = False
            made.append(self)

        def close(self):
            self.closed = True
            super().close()

    monkeypatch.setattr(progress_mod, "in_notebook", lambda: True)
    monkeypatch.setattr(progress_mod, "_FitBar", Bar)
    X, Y = _problem(6)
    M3LClassifier(kernel="rbf", C=1.0, random_state=0).fit(X, Y)
    assert len(made) == 1 and made[0].closed and made[0].bar.n == 100


def test_in_notebook_is_false_in_a_plain_process(monkeypatch):
    assert not progress_mod.in_notebook()
    monkeypatch.setenv("POLYRANK_PROGRESS", "0")
    assert not progress_mod.in_notebook()


def test_bench_m3l_rows_tiny_run():
    res = bench_m3l_rows(Ns=(60, 90), C=1.0, nobias=True)
    assert [r.N for r in res.rows] == [60, 90]
    for r in res.rows:
        assert r.ratio == pytest.approx(r.m3l_s / r.svc_s)
        assert r.hamming_diff == pytest.approx(r.hamming_m3l - r.hamming_svc)
        assert 0 <= r.hamming_m3l <= 1 and r.hamming_nobias is not None
    assert res.summary.Ns == (60, 90) and res.summary.m3l_growth is not None
    Xtr, Xte, Ytr, Yte = yeast_rows(30)
    assert Xtr.shape == (30, 103) and Xte.shape == (917, 103) and Ytr.shape == (30, 14)
    with pytest.raises(ValueError, match="Ns"):
        bench_m3l_rows(Ns=(3,))
